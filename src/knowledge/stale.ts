// Documents whose processing stalled (docs/knowledge.md, "Processing"): a document stays
// `processing` only while something processes it. A QStash message can be lost, and without QStash
// the processing runs in the background of the upload, where nothing retries a worker that died.
// The cron run (src/worker.ts) looks for documents left `processing` that have written nothing for
// STALLED_AFTER_MS (every step of processing moves `updatedAt` on: passages stored, each batch
// embedded) and starts them again, where they stopped; past MAX_ATTEMPTS it marks them failed,
// saying so. One rule for both modes.

import { type IngestCtx, scheduleIngestion } from "./ingest";
import { markFailed } from "./queries/chunks";
import { restartStalled, stalledDocuments } from "./queries/documents";

/**
 * How long a processing document may write nothing before it counts as stalled: more than the
 * longest quiet a healthy run has (a batch of 64 passages embedded, a 25 MiB PDF's text extracted),
 * and more than QStash's first retries of a call that failed (seconds to minutes), so a message
 * QStash is still retrying is rarely published twice (the run that comes second finds it done).
 */
export const STALLED_AFTER_MS = 15 * 60_000;
/** Runs a document gets (the upload's and the sweep's) before it is marked failed. */
export const MAX_ATTEMPTS = 3;
/** Documents looked at per cron run; the rest wait a minute. */
const SWEEP_BATCH = 50;

export const STALLED_REASON =
  "Processing stopped without finishing, several times. Upload the document again to retry; if it stops again, contact support with the document's id.";

/** Starts stalled documents again (or fails them past MAX_ATTEMPTS); what it did. */
export async function sweepStalledDocuments(ctx: IngestCtx, now = Date.now()): Promise<{ restarted: number; failed: number }> {
  const before = new Date(now - STALLED_AFTER_MS);
  let restarted = 0;
  let failed = 0;
  for (const doc of await stalledDocuments(ctx.db, before, SWEEP_BATCH)) {
    if (doc.attempts >= MAX_ATTEMPTS) {
      if (await markFailed(ctx.db, doc.id, STALLED_REASON, before)) failed++;
      continue;
    }
    // One attempt more, if no run moved it on meanwhile (nor another sweep took it).
    const again = await restartStalled(ctx.db, doc.id, before);
    if (!again) continue;
    try {
      await scheduleIngestion(ctx, again);
      restarted++;
    } catch (err) {
      // Left processing with its attempt counted: a sweep after STALLED_AFTER_MS tries again, or fails it.
      console.error(
        JSON.stringify({
          level: "error",
          msg: "stalled knowledge document not queued",
          documentId: doc.id,
          message: (err as Error)?.message,
        }),
      );
    }
  }
  return { restarted, failed };
}
