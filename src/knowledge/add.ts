// Adding a document, whatever it came as (a file, text, a URL): the one operation the API's and
// the dashboard's upload routes call. It stores the document (documents.ts) and starts its
// processing (ingest.ts); the same content again answers the document it already is (processing it
// again if it had failed).
import type { Op } from "../services";
import { type Added, addDocument } from "./documents";
import { fetchDocument } from "./fetch-url";
import { startIngestion } from "./ingest";
import { type AddDocumentJson, NAME_MAX } from "./schema";

export type AddDocumentInput =
  | { type: "file"; fileName: string; contentType: string | null; bytes: Uint8Array; name?: string }
  | AddDocumentJson;

const utf8 = new TextEncoder();

/** The first NAME_MAX code points (an emoji is not cut in half). */
const clip = (s: string) => [...s].slice(0, NAME_MAX).join("");

/** A file's name as a document's: its control characters (a file name may hold them) made spaces, and clipped. */
const nameOfFile = (fileName: string) =>
  clip(
    fileName
      .replace(/\p{Cc}+/gu, " ")
      .replace(/\s+/g, " ")
      .trim(),
  ).trim() || "document";

export async function addDocumentFrom({
  ctx,
  input,
}: Op<
  { knowledgeBaseId: string; document: AddDocumentInput },
  "db" | "organizationId" | "config" | "knowledgeBucket" | "providers" | "waitUntil"
>): Promise<Added> {
  const { document: d, knowledgeBaseId } = input;
  let added: Added;
  if (d.type === "file") {
    // The type by the file's own name (a `name` given is the document's, not the file's).
    const name = d.name?.trim() || nameOfFile(d.fileName);
    added = await addDocument({
      ctx,
      input: { knowledgeBaseId, name, source: "file", contentType: d.contentType, fileName: d.fileName, bytes: d.bytes },
    });
  } else if (d.type === "text") {
    // Text sent as JSON is Markdown or plain: read as Markdown (plain text has no `#` headings to misread).
    added = await addDocument({
      ctx,
      input: { knowledgeBaseId, name: d.name, source: "text", contentType: "text/markdown", bytes: utf8.encode(d.text) },
    });
  } else {
    const fetched = await fetchDocument(ctx.config, d.url);
    added = await addDocument({
      ctx,
      input: {
        knowledgeBaseId,
        name: d.name ?? clip(d.url),
        source: "url",
        url: d.url,
        contentType: fetched.contentType,
        // A generic type: the extension of the path found decides (…/price-list.pdf).
        fileName: new URL(fetched.url).pathname,
        bytes: fetched.bytes,
      },
    });
  }
  if (added.started) await startIngestion(ctx, added.document);
  return added;
}
