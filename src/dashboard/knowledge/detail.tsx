/** @jsxImportSource hono/jsx */
// A knowledge base's page: what it holds, its documents (followed while they are processed), the
// forms that add documents, a test question, and its settings (rename, describe, delete). The
// script is widget/src/knowledge-page.ts (KNOWLEDGE_PAGE_JS): upload progress, live statuses, the
// question answered in place; every form works without it.
import type { FC } from "hono/jsx";
import type { KnowledgeBaseView } from "../../knowledge/schema";
import { Csrf, ErrorSummary, type FieldErrors, Flash, InlineScript, Layout, type Shell, TextArea, TextField } from "../ui";
import { KNOWLEDGE_CSS, KNOWLEDGE_PAGE_JS } from "../ui/assets/built";
import { AddDocuments } from "./add";
import { DocumentsTable } from "./documents";
import type { FormState, PageForms, SettingsValues } from "./form";
import { countsOf, type DocumentRow } from "./format";
import { TestQuery } from "./query";

export interface KnowledgePageProps {
  shell: Shell;
  base: KnowledgeBaseView;
  rows: DocumentRow[];
  /** The cursor of the documents shown (the script follows the same page), and the next page's address. */
  cursor: string | null;
  next: string | null;
  /** The largest file a document may be ("20 MiB"). */
  maxFile: string;
  forms: PageForms;
  notice?: string;
}

const Settings: FC<{ base: KnowledgeBaseView; csrf: string; state: FormState<SettingsValues> }> = ({ base, csrf, state }) => (
  <section class="card" aria-labelledby="settings-heading">
    <h2 id="settings-heading" class="mt0">
      Settings
    </h2>
    <form method="post" action={`/dashboard/knowledge/${base.id}`} novalidate>
      <Csrf token={csrf} />
      <TextField name="name" label="Name" value={state.values.name} errors={state.errors} required />
      <TextArea name="description" label="Description (optional)" value={state.values.description} errors={state.errors} rows={2} />
      <p class="row">
        <button type="submit">Save</button>
      </p>
    </form>
    <form
      method="post"
      action={`/dashboard/knowledge/${base.id}/delete`}
      data-confirm={`Delete the knowledge base "${base.name}" and its ${base.documentCount} documents? Agents linked to it stop answering from it.`}
    >
      <Csrf token={csrf} />
      <p class="small muted">Deleting it deletes its documents and their passages, and unlinks it from its agents.</p>
      <button type="submit" class="danger">
        Delete knowledge base
      </button>
    </form>
  </section>
);

/** Every form's errors, for the summary at the top (each field name is unique on the page). */
const allErrors = (forms: PageForms): FieldErrors => ({
  ...forms.settings.errors,
  ...forms.file.errors,
  ...forms.text.errors,
  ...forms.url.errors,
  ...forms.query.errors,
});

export const KnowledgePage: FC<KnowledgePageProps> = ({ shell, base, rows, cursor, next, maxFile, forms, notice }) => {
  const counts = countsOf(base);
  return (
    <Layout
      shell={shell}
      css={KNOWLEDGE_CSS}
      actions={
        <a class="button secondary" href="/dashboard/knowledge">
          All knowledge bases
        </a>
      }
    >
      {notice ? <Flash>{notice}</Flash> : null}
      <ErrorSummary errors={allErrors(forms)} />
      <div data-knowledge-page data-base={base.id} data-cursor={cursor ?? ""}>
        {base.description ? <p class="mt0">{base.description}</p> : null}
        <p class="muted small mt0">
          <span data-count="documents">{counts.documents}</span> · <span data-count="passages">{counts.passages}</span> (of ready documents)
          · <span data-count="size">{counts.size}</span>. Agents answer from it once it is linked on their page (Knowledge).
        </p>
        <h2>Documents</h2>
        <DocumentsTable rows={rows} base={base.id} csrf={shell.csrf} next={next} />
        <AddDocuments base={base.id} csrf={shell.csrf} maxFile={maxFile} file={forms.file} text={forms.text} url={forms.url} />
        <TestQuery base={base.id} csrf={shell.csrf} state={forms.query} />
        <Settings base={base} csrf={shell.csrf} state={forms.settings} />
      </div>
      <InlineScript nonce={shell.nonce} js={KNOWLEDGE_PAGE_JS} />
    </Layout>
  );
};
