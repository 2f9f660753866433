// How the Knowledge screens word a knowledge base's figures and a document's row: one place, used
// by the pages (JSX) and by the JSON the knowledge base page's script follows (GET …/live), so a
// row drawn by the server and one the script fills read the same.
import type { DocumentView, KnowledgeBaseView } from "../../knowledge/schema";
import { when } from "../ui/time";

/** Bytes as people read them: "812 B", "12.3 KiB", "4.1 MiB" (the limits are said in MiB too). */
export function bytesLabel(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const kib = bytes / 1024;
  if (kib < 1024) return `${kib < 10 ? kib.toFixed(1) : Math.round(kib)} KiB`;
  const mib = kib / 1024;
  return `${mib < 10 ? mib.toFixed(1) : Math.round(mib)} MiB`;
}

const TYPES: Record<string, string> = {
  "text/plain": "Text",
  "text/markdown": "Markdown",
  "text/html": "HTML",
  "application/pdf": "PDF",
};

export const typeLabel = (contentType: string) => TYPES[contentType] ?? contentType;

const SOURCES: Record<DocumentView["source"], string> = { file: "File", text: "Text", url: "URL" };

/** "3 documents · 42 passages · 1.2 MiB" as its three parts. */
export const countsOf = (base: Pick<KnowledgeBaseView, "documentCount" | "chunkCount" | "sizeBytes">) => ({
  documents: `${base.documentCount} ${base.documentCount === 1 ? "document" : "documents"}`,
  passages: `${base.chunkCount} ${base.chunkCount === 1 ? "passage" : "passages"}`,
  size: bytesLabel(base.sizeBytes),
});

/** A document's row, as text: what the table shows and the page's script fills in. */
export interface DocumentRow {
  id: string;
  name: string;
  source: string;
  /** The imported URL (source `url`), linked from the source cell. */
  url: string | null;
  type: string;
  size: string;
  status: DocumentView["status"];
  /** Passages embedded so far, 0 to 100. */
  percent: number;
  error: string | null;
  /** Its passages, once its text is read ("—" before). */
  passages: string;
  added: string;
  addedAt: string;
}

export const documentRow = (d: DocumentView): DocumentRow => ({
  id: d.id,
  name: d.name,
  source: SOURCES[d.source],
  url: d.url,
  type: typeLabel(d.contentType),
  size: bytesLabel(d.sizeBytes),
  status: d.status,
  percent: Math.floor(d.progress * 100),
  error: d.error,
  passages: d.status === "failed" || (d.status === "processing" && d.chunkCount === 0) ? "—" : String(d.chunkCount),
  added: when(d.createdAt),
  addedAt: d.createdAt,
});
