// Adding a document, whatever it came as (a file, text, a URL): the one operation the API's and
// the dashboard's upload routes call. It stores the document (documents.ts) and starts its
// processing (ingest.ts); the same content again answers the document it already is.
import type { KnowledgeDocument } from "../db/schema";
import type { Op } from "../services";
import { addDocument } from "./documents";
import { documentTypeOf } from "./extract";
import { fetchDocument } from "./fetch-url";
import { scheduleIngestion } from "./ingest";
import type { AddDocumentJson } from "./schema";

export type AddDocumentInput =
  | { type: "file"; fileName: string; contentType: string | null; bytes: Uint8Array; name?: string }
  | AddDocumentJson;

const utf8 = new TextEncoder();

/** The most of a name kept (file names and URLs can be long). */
const NAME_MAX = 200;

export async function addDocumentFrom({
  ctx,
  input,
}: Op<
  { knowledgeBaseId: string; document: AddDocumentInput },
  "db" | "organizationId" | "config" | "knowledgeBucket" | "providers" | "waitUntil"
>): Promise<{ document: KnowledgeDocument; created: boolean }> {
  const { document: d, knowledgeBaseId } = input;
  let added: { document: KnowledgeDocument; created: boolean };
  if (d.type === "file") {
    const name = (d.name?.trim() || d.fileName || "document").slice(0, NAME_MAX);
    added = await addDocument({ ctx, input: { knowledgeBaseId, name, source: "file", contentType: d.contentType, bytes: d.bytes } });
  } else if (d.type === "text") {
    // Text sent as JSON is Markdown or plain: read as Markdown (plain text has no `#` headings to misread).
    added = await addDocument({
      ctx,
      input: { knowledgeBaseId, name: d.name, source: "text", contentType: "text/markdown", bytes: utf8.encode(d.text) },
    });
  } else {
    const fetched = await fetchDocument(ctx.config, d.url);
    const generic = !fetched.contentType || fetched.contentType.startsWith("application/octet-stream");
    added = await addDocument({
      ctx,
      input: {
        knowledgeBaseId,
        name: (d.name ?? d.url).slice(0, NAME_MAX),
        source: "url",
        url: d.url,
        // A generic type: the extension of the path found decides (…/price-list.pdf).
        contentType: generic ? documentTypeOf(null, new URL(fetched.url).pathname) : fetched.contentType,
        bytes: fetched.bytes,
      },
    });
  }
  if (added.created) await scheduleIngestion(ctx, added.document.id);
  return added;
}
