/** @jsxImportSource hono/jsx */
// Adding documents to a knowledge base: upload a file, add text, import a web page. Each is a form
// posting to POST /dashboard/knowledge/:id/documents (`type` says which) and works without a
// script; with it, the upload goes by XMLHttpRequest and shows the browser's upload progress.
import type { FC } from "hono/jsx";
import { SUPPORTED_DOCUMENTS } from "../../knowledge/extract";
import { Csrf, type FieldErrors, TextArea, TextField } from "../ui";
import type { FormState, TextValues, UrlValues } from "./form";

/** The file picker offers what we read (the server decides: the type sent, else the name's extension). */
const ACCEPT = ".txt,.text,.md,.markdown,.html,.htm,.pdf,text/plain,text/markdown,text/html,application/pdf";

/** "Text (.txt), Markdown (.md), …": what the file picker's hint says we read. */
const READ = SUPPORTED_DOCUMENTS.charAt(0).toUpperCase() + SUPPORTED_DOCUMENTS.slice(1);

const FileField: FC<{ errors: FieldErrors; maxFile: string }> = ({ errors, maxFile }) => (
  <div>
    <label for="f-file">File</label>
    <input
      id="f-file"
      name="file"
      type="file"
      accept={ACCEPT}
      required
      aria-invalid={errors.file ? "true" : undefined}
      aria-describedby={errors.file ? "f-file-hint f-file-error" : "f-file-hint"}
    />
    <p class="hint" id="f-file-hint">
      {READ}, up to {maxFile}.
    </p>
    <p class="field-error" id="f-file-error" role="alert" data-upload-error hidden={!errors.file}>
      {errors.file ?? ""}
    </p>
  </div>
);

export const AddDocuments: FC<{
  base: string;
  csrf: string;
  maxFile: string;
  file: { errors: FieldErrors };
  text: FormState<TextValues>;
  url: FormState<UrlValues>;
}> = ({ base, csrf, maxFile, file, text, url }) => {
  const action = `/dashboard/knowledge/${base}/documents`;
  return (
    <section class="card" aria-labelledby="add-heading">
      <h2 id="add-heading" class="mt0">
        Add documents
      </h2>
      <p class="small muted">
        Each document is split into passages under its headings and indexed in the background; it is searched once it is ready. The same
        content twice is one document.
      </p>
      <div class="add-forms">
        <form method="post" action={action} enctype="multipart/form-data" novalidate data-upload aria-labelledby="upload-heading">
          <h3 id="upload-heading">Upload a file</h3>
          <Csrf token={csrf} />
          <input type="hidden" name="type" value="file" />
          <FileField errors={file.errors} maxFile={maxFile} />
          <div class="upload-progress" data-upload-progress hidden>
            <progress max={100} value={0} aria-label="Upload progress" data-upload-bar>
              0%
            </progress>{" "}
            <span class="small" data-upload-percent>
              0%
            </span>
          </div>
          <p class="small m0" role="status" data-upload-status />
          <p class="row">
            <button type="submit" data-upload-submit>
              Upload
            </button>
          </p>
        </form>
        <form method="post" action={action} novalidate aria-labelledby="text-heading">
          <h3 id="text-heading">Add text</h3>
          <Csrf token={csrf} />
          <input type="hidden" name="type" value="text" />
          <TextField name="textName" label="Title" value={text.values.textName} errors={text.errors} required hint="e.g. Opening hours" />
          <TextArea
            name="text"
            label="Text"
            value={text.values.text}
            errors={text.errors}
            rows={6}
            required
            hint="Plain text or Markdown: # headings start sections."
          />
          <p class="row">
            <button type="submit">Add text</button>
          </p>
        </form>
        <form method="post" action={action} novalidate aria-labelledby="url-heading">
          <h3 id="url-heading">Import a web page</h3>
          <Csrf token={csrf} />
          <input type="hidden" name="type" value="url" />
          <TextField
            name="url"
            label="URL"
            type="url"
            value={url.values.url}
            errors={url.errors}
            required
            placeholder="https://example.com/faq"
            hint="Fetched once, now: a public address (HTML, Markdown, text or PDF)."
          />
          <TextField name="urlName" label="Name (optional)" value={url.values.urlName} errors={url.errors} hint="Defaults to the URL." />
          <p class="row">
            <button type="submit">Import</button>
          </p>
        </form>
      </div>
    </section>
  );
};
