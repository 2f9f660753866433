// A document's processing (docs/knowledge.md, "Processing"): its original read back from the
// bucket, its text extracted and chunked, the passages stored, then embedded 64 at a time (each
// batch metered, the document's progress moved on). It runs after the upload's answer: through
// QStash when QSTASH_TOKEN is set (retried if the worker dies; the failure callback marks the
// document failed once QStash gives up), otherwise in the background of the request. It can start
// again at any point: passages stored are kept, embeddings made are kept. Any failure leaves the
// document `failed` with the reason and none of its passages: nothing half-stored is ever found.
// A document whose processing stalls (a publish lost, a worker gone) is started again by the cron
// sweep (stale.ts).
import { Client } from "@upstash/qstash";
import type { Db } from "../db/client";
import { EMBEDDING_DIMENSIONS, type KnowledgeDocument } from "../db/schema";
import { ApiError } from "../lib/errors";
import { meteredEmbeddings } from "../metering/embed";
import type { Payer } from "../metering/metered";
import { ProviderError } from "../providers/http";
import type { Ctx } from "../services";
import { chunkText } from "./chunk";
import { type DocumentType, DocumentUnreadable, extractText } from "./extract";
import { documentById, markFailed, markReady, passagesOfOthers, replaceChunks, saveEmbeddings, unembedded } from "./queries/chunks";

export const QSTASH_KNOWLEDGE_PATH = "/internal/qstash/knowledge";
export const QSTASH_KNOWLEDGE_FAILED_PATH = "/internal/qstash/knowledge-failed";

/** Passages embedded in one provider request. */
export const EMBED_BATCH = 64;

export type IngestCtx = Ctx<"db" | "config" | "providers" | "knowledgeBucket" | "waitUntil">;

/** What a passage is embedded as: its headings give it the words of its section. */
export const embeddingInput = (c: { heading: string; content: string }) => (c.heading ? `${c.heading}\n\n${c.content}` : c.content);

/**
 * Hands the document to QStash, or processes it after the answer. `doc` is the row as the change
 * that started this run wrote it (an upload, a retry, the cron sweep's restart): its `updatedAt`
 * names the run, so QStash deduplicates a publish sent twice but not the next run.
 */
export async function scheduleIngestion(ctx: IngestCtx, doc: Pick<KnowledgeDocument, "id" | "updatedAt">): Promise<void> {
  const { config } = ctx;
  const documentId = doc.id;
  if (config.QSTASH_TOKEN && config.PUBLIC_BASE_URL) {
    const client = new Client({ token: config.QSTASH_TOKEN, baseUrl: config.QSTASH_URL });
    const base = config.PUBLIC_BASE_URL.replace(/\/$/, "");
    await client.publishJSON({
      url: `${base}${QSTASH_KNOWLEDGE_PATH}`,
      body: { documentId },
      deduplicationId: `knowledge-${documentId}-${doc.updatedAt.getTime()}`,
      retries: 3,
      failureCallback: `${base}${QSTASH_KNOWLEDGE_FAILED_PATH}`,
      // A large PDF's passages take a while to embed: QStash waits up to 15 minutes for an answer.
      timeout: 900,
    });
    return;
  }
  ctx.waitUntil(processDocument(ctx, documentId));
}

/** What a document says when its processing could not be handed to the queue. */
export const NOT_QUEUED = "The document could not be queued for processing (the queue did not answer). Upload it again to retry.";

/**
 * Starts a document's processing after an upload; when the queue refuses it (QStash down), the
 * document is marked failed saying so, and the upload is a 503: nothing is left `processing` that
 * nothing will process, and uploading the same content again retries it (documents.ts).
 */
export async function startIngestion(ctx: IngestCtx, doc: KnowledgeDocument): Promise<void> {
  try {
    await scheduleIngestion(ctx, doc);
  } catch (err) {
    console.error(
      JSON.stringify({
        level: "error",
        msg: "knowledge document not queued",
        documentId: doc.id,
        error: (err as Error)?.name,
        message: (err as Error)?.message,
      }),
    );
    await failDocument(ctx.db, doc.id, NOT_QUEUED);
    throw new ApiError(
      "service_unavailable",
      "The document was stored but its processing could not be queued (the queue did not answer); it is marked failed. Upload it again to retry.",
    );
  }
}

/**
 * Marks the document failed with `reason` and drops its passages, if it is still processing (a
 * ready one keeps them); whether it was.
 */
export const failDocument = (db: Db, documentId: string, reason: string): Promise<boolean> =>
  markFailed(db, documentId, reason.slice(0, 1000));

/** The reason a failure is shown with: ours as written, a provider's or the database's in words. */
export function failureReason(err: unknown): string {
  if (err instanceof DocumentUnreadable) return err.message;
  if (err instanceof ApiError) {
    if (err.code === "insufficient_credits")
      return "The workspace's credits ran out while embedding the document. Add credits, then upload it again.";
    return err.message;
  }
  if (err instanceof ProviderError) return `The embedding provider failed (${err.message}). Upload the document again to retry.`;
  return "Processing failed unexpectedly. Upload the document again; if it fails again, contact support with the document's id.";
}

/**
 * Processes one document to `ready` (or `failed`). Returns what it ended in; a document no longer
 * `processing` (done, failed, deleted) is left as it is.
 */
export async function processDocument(ctx: IngestCtx, documentId: string): Promise<KnowledgeDocument["status"] | "gone"> {
  const { db } = ctx;
  const doc = await documentById(db, documentId);
  if (!doc) return "gone";
  if (doc.status !== "processing") return doc.status;
  try {
    const total = doc.chunkCount > 0 ? doc.chunkCount : await storeChunks(ctx, doc);
    await embedChunks(ctx, doc, total);
    return (await markReady(db, doc.id, total)) ? "ready" : "gone";
  } catch (err) {
    console.error(
      JSON.stringify({
        level: "error",
        msg: "knowledge document failed",
        documentId,
        error: (err as Error)?.name,
        message: (err as Error)?.message,
      }),
    );
    if (await failDocument(db, doc.id, failureReason(err))) return "failed";
    return (await documentById(db, doc.id))?.status ?? "gone";
  }
}

/** Extracts, chunks and stores the passages (without embeddings); returns how many. */
async function storeChunks(ctx: IngestCtx, doc: KnowledgeDocument): Promise<number> {
  const { db } = ctx;
  if (!doc.objectKey) throw new DocumentUnreadable("The document's original was never stored. Upload it again.");
  const object = await ctx.knowledgeBucket().get(doc.objectKey);
  if (!object) throw new DocumentUnreadable("The document's original is missing from storage. Upload it again.");
  const text = await extractText(doc.contentType as DocumentType, new Uint8Array(await object.arrayBuffer()));
  const chunks = chunkText(text);
  if (chunks.length === 0) {
    throw new DocumentUnreadable(
      doc.contentType === "application/pdf"
        ? "The PDF has no text to read: a scanned PDF holds pictures of its pages. Run it through text recognition (OCR) and upload the result."
        : "The document has no text to read.",
    );
  }
  const others = await passagesOfOthers(db, doc.organizationId, doc.id);
  const max = ctx.config.KNOWLEDGE_MAX_CHUNKS;
  if (others + chunks.length > max) {
    throw new DocumentUnreadable(
      `The document has ${chunks.length} passages and the workspace's knowledge bases hold ${others} of the ${max} allowed. Delete documents you no longer need, then upload it again.`,
    );
  }
  await replaceChunks(db, doc, chunks);
  return chunks.length;
}

/** Embeds the passages that have no embedding yet, a batch at a time, moving the progress on. */
async function embedChunks(ctx: IngestCtx, doc: KnowledgeDocument, total: number): Promise<void> {
  const { db, config } = ctx;
  const provider = ctx.providers.embeddings();
  const payer: Payer = {
    organizationId: doc.organizationId,
    apiKeyId: null,
    method: "POST",
    endpoint: `/v1/knowledge-bases/${doc.knowledgeBaseId}/documents`,
  };
  // Each round embeds a batch for good, so this many rounds are enough; more means the writes are not landing.
  for (let round = 0; round <= Math.ceil(total / EMBED_BATCH); round++) {
    const batch = await unembedded(db, doc.id, EMBED_BATCH);
    if (batch.length === 0) return;
    const { vectors } = await meteredEmbeddings(db, payer, provider, {
      model: config.EMBEDDING_MODEL,
      input: batch.map(embeddingInput),
      dimensions: EMBEDDING_DIMENSIONS,
    });
    await saveEmbeddings(
      db,
      doc.id,
      batch.map((c) => c.id),
      vectors,
      total,
    );
  }
  throw new Error("embeddings were not stored: the passages still have none after every batch");
}
