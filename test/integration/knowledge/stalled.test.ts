// Documents whose processing stalled (docs/knowledge.md, "Processing"; src/knowledge/stale.ts): the
// worker's cron run starts a document left `processing` with nothing written for longer than
// STALLED_AFTER_MS again, where it stopped (its stored passages and embeddings kept), and marks one
// that stalled MAX_ATTEMPTS times failed, saying so; a document that wrote something recently is
// left to its run. On the stack's worker, which processes in the background of the request (no
// QStash): the case where nothing else would ever retry it. qstash.test.ts has the QStash side.
import { and, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { knowledgeChunks, knowledgeDocuments } from "../../../src/db/schema";
import type { DocumentView } from "../../../src/knowledge/schema";
import { MAX_ATTEMPTS, STALLED_AFTER_MS, STALLED_REASON } from "../../../src/knowledge/stale";
import { createWorkspace, json, testDb, type Workspace } from "../../support/harness";
import { addText, documentsPath, newKnowledgeBase, passagesOf, processed } from "../../support/knowledge";
import { triggerCron } from "../../support/scheduled";

const TEXT = "# Cleaning\n\nA cleaning costs 80 dollars.\n\n# Whitening\n\nTeeth whitening costs 250 dollars.";

/** Sets the document back to how a run that stopped leaves it. */
const stall = (id: string, values: Partial<typeof knowledgeDocuments.$inferInsert>) =>
  testDb()
    .update(knowledgeDocuments)
    .set({ status: "processing", ...values })
    .where(eq(knowledgeDocuments.id, id));

const row = async (id: string) => (await testDb().select().from(knowledgeDocuments).where(eq(knowledgeDocuments.id, id)))[0];
const view = async (ws: Workspace, kb: string, id: string) => json<DocumentView>(await ws.api(`${documentsPath(kb)}/${id}`));
const longAgo = () => new Date(Date.now() - STALLED_AFTER_MS - 5 * 60_000);

describe("the cron sweep of stalled documents", () => {
  it("starts one that stopped midway again, where it stopped, and it ends ready; one that wrote recently is left alone", async () => {
    const ws = await createWorkspace("Stalled");
    const kb = await newKnowledgeBase(ws);
    const stopped = await processed(ws, kb, await addText(ws, kb, "Prices", TEXT));
    const recent = await processed(ws, kb, await addText(ws, kb, "Hours", "# Hours\n\nOpen Monday to Friday."));
    expect(stopped).toMatchObject({ status: "ready", chunkCount: 2 });
    // Its second passage not embedded yet when the worker went away, 20 minutes ago.
    const [second] = await testDb()
      .update(knowledgeChunks)
      .set({ embedding: null })
      .where(and(eq(knowledgeChunks.documentId, stopped.id), eq(knowledgeChunks.position, 1)))
      .returning({ id: knowledgeChunks.id });
    await stall(stopped.id, { embeddedCount: 1, updatedAt: longAgo() });
    await stall(recent.id, { updatedAt: new Date() });
    expect((await view(ws, kb, stopped.id)).progress).toBe(0.5);

    expect((await triggerCron()).status).toBe(200);
    await expect.poll(async () => (await view(ws, kb, stopped.id)).status).toBe("ready");
    expect(await view(ws, kb, stopped.id)).toMatchObject({ status: "ready", chunkCount: 2, progress: 1, error: null });
    // Resumed, not redone: the passage that had its embedding is the same row.
    const chunks = await testDb()
      .select({ id: knowledgeChunks.id, embedded: sql<boolean>`${knowledgeChunks.embedding} is not null` })
      .from(knowledgeChunks)
      .where(eq(knowledgeChunks.documentId, stopped.id))
      .orderBy(knowledgeChunks.position);
    expect(chunks.map((c) => c.embedded)).toEqual([true, true]);
    expect(chunks.some((c) => c.id === second?.id)).toBe(true);
    expect((await row(stopped.id))?.attempts).toBe(2);

    expect(await row(recent.id)).toMatchObject({ status: "processing", attempts: 1 });
    const found = await ws.api(`/v1/knowledge-bases/${kb}/query`, { method: "POST", json: { query: "teeth whitening cost", topK: 1 } });
    expect((await json<{ data: Array<{ documentId: string }> }>(found)).data[0]?.documentId).toBe(stopped.id);
  });

  it(`marks one that stalled ${MAX_ATTEMPTS} times failed, saying so, with none of its passages`, async () => {
    const ws = await createWorkspace("Stalled for good");
    const kb = await newKnowledgeBase(ws);
    const doc = await processed(ws, kb, await addText(ws, kb, "Prices", TEXT));
    await stall(doc.id, { attempts: MAX_ATTEMPTS, updatedAt: longAgo() });

    expect((await triggerCron()).status).toBe(200);
    await expect.poll(async () => (await view(ws, kb, doc.id)).status).toBe("failed");
    expect(await view(ws, kb, doc.id)).toMatchObject({ status: "failed", chunkCount: 0, error: STALLED_REASON });
    expect(await passagesOf(doc.id)).toBe(0);
    // Uploading it again retries it from its first attempt.
    const again = await processed(ws, kb, await addText(ws, kb, "Prices", TEXT));
    expect(again).toMatchObject({ id: doc.id, status: "ready", chunkCount: 2 });
    expect((await row(doc.id))?.attempts).toBe(1);
  });
});
