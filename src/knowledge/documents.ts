// A knowledge base's documents (docs/knowledge.md, "Documents"): added as a file, as text or from a
// URL, the original kept in the KNOWLEDGE bucket, its text chunked and embedded in the background
// (ingest.ts). The same bytes twice in one knowledge base are one document. The workspace's limits
// (documents, bytes, passages) are checked here before anything is stored.
import { pageQuery } from "../db/pagination";
import type { KnowledgeDocument, KnowledgeSource } from "../db/schema";
import type { AppConfig } from "../env";
import { byteSize, byteSizes } from "../lib/bytes";
import { ApiError } from "../lib/errors";
import { isUuid } from "../lib/ids";
import { type Page, type PageParams, pageOf } from "../lib/pagination";
import type { Ctx, Op } from "../services";
import { type DocumentType, documentTypeOf, SUPPORTED_DOCUMENTS } from "./extract";
import {
  deleteDocumentRow,
  documentByHash,
  documentRows,
  insertDocumentWithin,
  knowledgeUsageOf,
  ownedDocument,
  restartFailed,
  setObjectKey,
} from "./queries/documents";
import type { DocumentView } from "./schema";
import { deleteObjects, requireKnowledgeBase } from "./service";

export const documentNotFound = () => new ApiError("not_found", "No document with that id in this knowledge base.");

export const toDocumentView = (row: KnowledgeDocument): DocumentView => ({
  id: row.id,
  knowledgeBaseId: row.knowledgeBaseId,
  name: row.name,
  source: row.source,
  url: row.url,
  contentType: row.contentType,
  sizeBytes: row.sizeBytes,
  contentHash: row.contentHash,
  status: row.status,
  error: row.error,
  chunkCount: row.chunkCount,
  progress: row.status === "ready" ? 1 : row.chunkCount > 0 ? Math.min(1, row.embeddedCount / row.chunkCount) : 0,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

/** A workspace's limits (docs/knowledge.md, "Limits"), from the deployment's configuration. */
export interface KnowledgeLimits {
  maxDocuments: number;
  maxBytes: number;
  maxChunks: number;
  maxFileBytes: number;
}

export const knowledgeLimits = (config: AppConfig): KnowledgeLimits => ({
  maxDocuments: config.KNOWLEDGE_MAX_DOCUMENTS,
  maxBytes: config.KNOWLEDGE_MAX_BYTES,
  maxChunks: config.KNOWLEDGE_MAX_CHUNKS,
  maxFileBytes: config.KNOWLEDGE_MAX_FILE_BYTES,
});

export const limitReached = (what: string) =>
  new ApiError("knowledge_limit_reached", `This workspace's knowledge bases ${what}. Delete documents you no longer need, then try again.`);

/** What the workspace holds now: documents, bytes, passages. */
export const workspaceKnowledgeUsage = ({ ctx }: Op<unknown>) => knowledgeUsageOf(ctx.db, ctx.organizationId);

export interface NewDocument {
  knowledgeBaseId: string;
  name: string;
  source: KnowledgeSource;
  url?: string | null;
  /** The declared media type (a file's, a URL's answer); the file name's extension decides when it is generic. */
  contentType: string | null;
  /** The uploaded file's name, or the URL's path: its extension is read when the type is generic (`name` otherwise). */
  fileName?: string;
  bytes: Uint8Array;
}

/** The document's type (a generic one: `fileName`'s extension), or a 400 naming the ones we read. */
export function requireDocumentType(declared: string | null, fileName: string, name = fileName): DocumentType {
  const type = documentTypeOf(declared, fileName);
  if (!type) {
    throw new ApiError(
      "validation_failed",
      `Cannot read "${[...name].slice(0, 100).join("")}"${declared ? ` (${declared.split(";")[0]?.trim()})` : ""}: send ${SUPPORTED_DOCUMENTS}.`,
    );
  }
  return type;
}

const hex = (buf: ArrayBuffer) => [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, "0")).join("");

export const objectKeyOf = (doc: Pick<KnowledgeDocument, "organizationId" | "knowledgeBaseId" | "id">) =>
  `knowledge/${doc.organizationId}/${doc.knowledgeBaseId}/${doc.id}`;

/** What adding a document did: `started` when its processing is to start now (ingest.ts schedules it). */
export interface Added {
  document: KnowledgeDocument;
  /**
   * A new document, or a `failed` one whose content was uploaded again (to retry it: docs/knowledge.md,
   * "Documents"); false when the same content is already there, processing or ready.
   */
  started: boolean;
}

/**
 * Adds a document: checks it and the workspace's limits, stores the original, and leaves its row
 * `processing` for the caller to schedule (ingest.ts). The same bytes already in the knowledge base
 * answer that document, nothing stored twice; if it had failed, it is processing again.
 */
export async function addDocument({ ctx, input }: Op<NewDocument, "db" | "organizationId" | "config" | "knowledgeBucket">): Promise<Added> {
  const base = await requireKnowledgeBase({ ctx, input: { id: input.knowledgeBaseId } });
  const limits = knowledgeLimits(ctx.config);
  const { bytes } = input;
  if (bytes.length === 0) throw new ApiError("validation_failed", "The document is empty: there is nothing to read in it.");
  if (bytes.length > limits.maxFileBytes) {
    const [limit, size] = byteSizes(limits.maxFileBytes, bytes.length);
    throw new ApiError("payload_too_large", `Documents are limited to ${limit} each (this one is ${size}).`);
  }
  const type = requireDocumentType(input.contentType, input.fileName ?? input.name, input.name);
  const contentHash = hex(await crypto.subtle.digest("SHA-256", bytes));

  const existing = await documentByHash(ctx.db, base.id, contentHash);
  if (existing) return again({ ctx, input: { existing, bytes } });

  const row = await insertDocumentWithin(
    ctx.db,
    {
      organizationId: ctx.organizationId,
      knowledgeBaseId: base.id,
      name: input.name,
      source: input.source,
      url: input.url ?? null,
      contentType: type,
      sizeBytes: bytes.length,
      contentHash,
    },
    (used) => {
      if (used.documents >= limits.maxDocuments) throw limitReached(`hold ${limits.maxDocuments} documents, the most allowed`);
      if (used.bytes + bytes.length > limits.maxBytes)
        throw limitReached(
          `hold ${byteSize(used.bytes)} of ${byteSize(limits.maxBytes)}; this document (${byteSize(bytes.length)}) does not fit`,
        );
      if (used.chunks >= limits.maxChunks) throw limitReached(`hold ${limits.maxChunks} passages, the most allowed`);
    },
  );
  if (!row) {
    // The same bytes arrived alongside: that upload's document is this one.
    const raced = await documentByHash(ctx.db, base.id, contentHash);
    if (raced) return { document: raced, started: false };
    throw new ApiError("conflict", "The document changed while it was added; try again.");
  }
  const objectKey = objectKeyOf(row);
  try {
    await storeOriginal(ctx, objectKey, bytes, row.contentType);
  } catch (err) {
    await deleteDocumentRow(ctx.db, ctx.organizationId, row.id);
    throw err;
  }
  const stored = await setObjectKey(ctx.db, row.id, objectKey);
  return { document: stored ?? { ...row, objectKey }, started: true };
}

/** Puts the original in the bucket; a 503 saying nothing was kept when the bucket fails. */
async function storeOriginal(ctx: Ctx<"knowledgeBucket">, key: string, bytes: Uint8Array, contentType: string): Promise<void> {
  try {
    await ctx.knowledgeBucket().put(key, bytes, { httpMetadata: { contentType } });
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw new ApiError("service_unavailable", "The document could not be stored (object storage failed); nothing was kept. Try again.");
  }
}

/**
 * The same content again: the document it is. A `failed` one is retried: its original stored again
 * (whatever its failure was, a missing original included), then made `processing` by one conditional
 * statement, so of two uploads at once only one starts it.
 */
async function again({
  ctx,
  input: { existing, bytes },
}: Op<{ existing: KnowledgeDocument; bytes: Uint8Array }, "db" | "knowledgeBucket">): Promise<Added> {
  if (existing.status !== "failed") return { document: existing, started: false };
  const objectKey = objectKeyOf(existing);
  await storeOriginal(ctx, objectKey, bytes, existing.contentType);
  const restarted = await restartFailed(ctx.db, existing.id, objectKey);
  if (restarted) return { document: restarted, started: true };
  // Another upload restarted it (or it was deleted) meanwhile.
  return { document: (await documentByHash(ctx.db, existing.knowledgeBaseId, existing.contentHash)) ?? existing, started: false };
}

/** A page of a knowledge base's documents, newest first. */
export async function listDocuments({
  ctx,
  input,
}: Op<PageParams & { knowledgeBaseId: string; status?: KnowledgeDocument["status"] }>): Promise<Page<KnowledgeDocument>> {
  const base = await requireKnowledgeBase({ ctx, input: { id: input.knowledgeBaseId } });
  const page = pageQuery(input);
  return pageOf(await documentRows(ctx.db, base.id, page, input.status), page.limit, (r) => r);
}

export async function getDocument({ ctx, input }: Op<{ knowledgeBaseId: string; id: string }>): Promise<KnowledgeDocument> {
  if (!isUuid(input.knowledgeBaseId) || !isUuid(input.id)) throw documentNotFound();
  const row = await ownedDocument(ctx.db, ctx.organizationId, input.knowledgeBaseId, input.id);
  if (!row) {
    await requireKnowledgeBase({ ctx, input: { id: input.knowledgeBaseId } });
    throw documentNotFound();
  }
  return row;
}

/** Deletes a document and its passages (cascade) now, its original after the answer. */
export async function deleteDocument({
  ctx,
  input,
}: Op<{ knowledgeBaseId: string; id: string }, "db" | "organizationId" | "knowledgeBucket" | "waitUntil">): Promise<void> {
  const doc = await getDocument({ ctx, input });
  await deleteDocumentRow(ctx.db, ctx.organizationId, doc.id);
  if (doc.objectKey) ctx.waitUntil(deleteObjects(ctx.knowledgeBucket(), [doc.objectKey]));
}
