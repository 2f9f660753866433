/** @jsxImportSource hono/jsx */
// A knowledge base's documents table: name, source, type, size, status (a progress bar while its
// passages are embedded, the reason when it failed), passages, added, and Delete. The page's
// script (widget/src/knowledge-page.ts) follows the documents being processed and fills rows it
// adds from the <template> drawn here, by the cells' `data-cell` names: one markup for both.
import type { FC } from "hono/jsx";
import { Badge, Csrf, When } from "../ui";
import type { DocumentRow } from "./format";

/** A document's status: its badge, a progress bar while processing, the reason when it failed. */
export const DocumentStatus: FC<{ row: DocumentRow }> = ({ row }) => (
  <>
    <Badge tone={row.status === "ready" ? "good" : row.status === "failed" ? "bad" : ""}>{row.status}</Badge>
    {row.status === "processing" ? (
      <span class="doc-progress">
        <progress max={100} value={row.percent} aria-label={`${row.name}: passages embedded`}>
          {row.percent}%
        </progress>{" "}
        <span class="small">{row.percent}%</span>
      </span>
    ) : null}
    {row.error ? <span class="doc-error">{row.error}</span> : null}
  </>
);

const Source: FC<{ row: DocumentRow }> = ({ row }) =>
  row.url ? (
    <a href={row.url} rel="noopener noreferrer" class="doc-url">
      {row.url}
    </a>
  ) : (
    row.source
  );

const DocumentTr: FC<{ row: DocumentRow; base: string; csrf: string }> = ({ row, base, csrf }) => (
  <tr data-document={row.id} data-status={row.status}>
    <td data-label="Name" data-cell="name" class="doc-name">
      {row.name}
    </td>
    <td data-label="Source" data-cell="source">
      <Source row={row} />
    </td>
    <td data-label="Type" data-cell="type">
      {row.type}
    </td>
    <td data-label="Size" data-cell="size">
      {row.size}
    </td>
    <td data-label="Status" data-cell="status">
      <DocumentStatus row={row} />
    </td>
    <td data-label="Passages" data-cell="passages">
      {row.passages}
    </td>
    <td data-label="Added" data-cell="added">
      <When at={row.addedAt} />
    </td>
    <td>
      <form
        method="post"
        action={`/dashboard/knowledge/${base}/documents/${row.id}/delete`}
        data-confirm={`Delete the document "${row.name}"? Its passages stop being found at once.`}
      >
        <Csrf token={csrf} />
        <button type="submit" class="secondary">
          Delete<span class="sr"> {row.name}</span>
        </button>
      </form>
    </td>
  </tr>
);

/** What the template's row holds until the script fills it. */
const BLANK: DocumentRow = {
  id: "",
  name: "",
  source: "",
  url: null,
  type: "",
  size: "",
  status: "processing",
  percent: 0,
  error: null,
  passages: "—",
  added: "",
  addedAt: new Date(0).toISOString(),
};

export const DocumentsTable: FC<{ rows: DocumentRow[]; base: string; csrf: string; next: string | null }> = ({
  rows,
  base,
  csrf,
  next,
}) => (
  <section class="card table-wrap" tabindex={0} aria-label="Documents">
    <p class="empty muted" data-documents-empty hidden={rows.length > 0}>
      No documents yet: upload a file, add text or import a web page below.
    </p>
    <table class="stack" data-documents hidden={rows.length === 0}>
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Source</th>
          <th scope="col">Type</th>
          <th scope="col">Size</th>
          <th scope="col">Status</th>
          <th scope="col">Passages</th>
          <th scope="col">Added</th>
          <th scope="col">
            <span class="sr">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody data-documents-body>
        {rows.map((row) => (
          <DocumentTr row={row} base={base} csrf={csrf} />
        ))}
      </tbody>
    </table>
    <template data-document-template>
      <DocumentTr row={BLANK} base={base} csrf={csrf} />
    </template>
    {next ? (
      <p class="mt18 m0">
        <a href={next}>Older documents</a>
      </p>
    ) : null}
  </section>
);
