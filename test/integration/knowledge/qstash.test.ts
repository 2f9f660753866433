// Knowledge documents processed the production way (docs/knowledge.md, "Processing"): on a worker
// with QSTASH_TOKEN, adding a document publishes it through @upstash/qstash to the QStash stand-in
// (dev/qstash.ts), which calls POST /internal/qstash/knowledge back with a signed request; nothing
// is processed in the upload's background. An unsigned or forged call is refused (401) and does
// nothing. When every call fails (the worker unreachable: a proxy in front of it answers 503),
// QStash gives up and its failure callback marks the document failed; a failure callback for a
// document already ready leaves it as it is. When QStash refuses the publish, the upload is a 503
// and the document failed at once (nothing left processing); uploading it again retries it, once
// however many uploads race. A document whose processing stalled is published again by the cron
// sweep (a new message: QStash does not deduplicate it with the first).
import { createServer, type Server } from "node:http";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type QstashStandIn, startQstash } from "../../../dev/qstash";
import { startWorker } from "../../../dev/stack";
import { knowledgeDocuments } from "../../../src/db/schema";
import { NOT_QUEUED, QSTASH_KNOWLEDGE_FAILED_PATH, QSTASH_KNOWLEDGE_PATH } from "../../../src/knowledge/ingest";
import type { DocumentView, PassageView } from "../../../src/knowledge/schema";
import { createWorkspace, expectError, json, onWorker, stack, testDb, until, type Workspace } from "../../support/harness";
import { addText, documentsPath, newKnowledgeBase, passagesOf, processed } from "../../support/knowledge";
import { qstashHeaders, qstashJwt } from "../../support/qstash";

let qstash: QstashStandIn;
let worker: Awaited<ReturnType<typeof startWorker>>;
/** In front of the worker: PUBLIC_BASE_URL, so every QStash call passes here. */
let proxy: Server;
let publicBase = "";
/** While set, QStash's calls to process a document are answered 503, as when the worker cannot be reached. */
let unreachable = false;
let ws: Workspace;
let kb: string;

beforeAll(async () => {
  qstash = await startQstash();
  proxy = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (unreachable && req.url === QSTASH_KNOWLEDGE_PATH) {
      res.writeHead(503, { "content-type": "text/plain" }).end("Service Unavailable");
      return;
    }
    const headers = Object.entries(req.headers).filter(
      (e): e is [string, string] => typeof e[1] === "string" && !["host", "connection", "content-length"].includes(e[0]),
    );
    const answer = await fetch(worker.baseUrl + req.url, { method: req.method, headers, body: Buffer.concat(chunks) });
    res
      .writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "text/plain" })
      .end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  publicBase = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
  worker = await startWorker({
    ...stack().vars,
    QSTASH_TOKEN: qstash.token,
    QSTASH_URL: qstash.url,
    QSTASH_CURRENT_SIGNING_KEY: qstash.currentSigningKey,
    QSTASH_NEXT_SIGNING_KEY: qstash.nextSigningKey,
    PUBLIC_BASE_URL: publicBase,
  });
  ws = onWorker(await createWorkspace("Knowledge through QStash"), worker.baseUrl);
  kb = await newKnowledgeBase(ws);
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await qstash?.stop();
  proxy?.closeAllConnections();
  await new Promise((resolve) => proxy?.close(resolve));
});

const callsTo = (path: string) => qstash.deliveries.filter((d) => d.url === publicBase + path);

const callRoute = (path: string, body: string, signature?: string, headers: Record<string, string> = {}) =>
  fetch(worker.baseUrl + path, {
    method: "POST",
    headers: { "content-type": "application/json", ...(signature ? { "upstash-signature": signature } : {}), ...headers },
    body,
  });

const signed = (path: string, body: string, key = qstash.currentSigningKey) => qstashJwt(key, { sub: publicBase + path, body });

const failureBody = (documentId: string) => JSON.stringify({ sourceBody: Buffer.from(JSON.stringify({ documentId })).toString("base64") });

const document = async (id: string) => json<DocumentView>(await ws.api(`${documentsPath(kb)}/${id}`));

let ready: DocumentView;

describe("knowledge documents through QStash", () => {
  it("a document added is published to QStash and processed by its signed call to /internal/qstash/knowledge", async () => {
    const before = qstash.published.length;
    ready = await processed(ws, kb, await addText(ws, kb, "Hours", "# Opening hours\n\nWe are open on Saturday from 9:00 to 13:00."));
    expect(ready).toMatchObject({ status: "ready", chunkCount: 1, progress: 1 });
    expect(qstash.published.slice(before)).toEqual([
      expect.objectContaining({ destination: publicBase + QSTASH_KNOWLEDGE_PATH, deduplicated: false }),
    ]);
    await qstash.idle();
    expect(callsTo(QSTASH_KNOWLEDGE_PATH).map((d) => [d.retried, d.status])).toEqual([[0, 200]]);
    const found = await ws.api(`/v1/knowledge-bases/${kb}/query`, { method: "POST", json: { query: "open on Saturday", topK: 1 } });
    expect((await json<{ data: PassageView[] }>(found)).data[0]?.documentId).toBe(ready.id);
    // The same content again is that document: nothing published.
    expect((await addText(ws, kb, "Hours again", "# Opening hours\n\nWe are open on Saturday from 9:00 to 13:00.")).status).toBe(200);
    expect(qstash.published.length).toBe(before + 1);
  });

  it("refuses a call without a valid Upstash-Signature on both routes (401), and does nothing", async () => {
    // A document waiting to be processed: its row, as an upload leaves it before QStash calls.
    const [row] = await testDb()
      .insert(knowledgeDocuments)
      .values({
        organizationId: ws.organizationId,
        knowledgeBaseId: kb,
        name: "Waiting",
        source: "text",
        contentType: "text/markdown",
        sizeBytes: 10,
        contentHash: "0".repeat(64),
      })
      .returning();
    const id = row?.id as string;
    const body = JSON.stringify({ documentId: id });
    const other = JSON.stringify({ documentId: ready.id });
    for (const [path, raw] of [
      [QSTASH_KNOWLEDGE_PATH, body],
      [QSTASH_KNOWLEDGE_FAILED_PATH, failureBody(id)],
    ] as const) {
      const refused = async (signature?: string) => {
        const err = await expectError(await callRoute(path, raw, signature, qstashHeaders(`msg_${id}`, 0)), 401, "unauthorized");
        expect(err.message).toMatch(/Upstash-Signature/);
      };
      await refused();
      await refused("not.a.jwt");
      await refused(await signed(path, raw, "sig_not_the_key"));
      await refused(await signed(path === QSTASH_KNOWLEDGE_PATH ? QSTASH_KNOWLEDGE_FAILED_PATH : QSTASH_KNOWLEDGE_PATH, raw));
      await refused(await signed(path, path === QSTASH_KNOWLEDGE_PATH ? other : failureBody(ready.id))); // another body's signature
    }
    expect(await document(id)).toMatchObject({ status: "processing", error: null });
    expect(await document(ready.id)).toMatchObject({ status: "ready", chunkCount: 1 });

    // Signed, the same call is made: this document has no original stored, so it fails saying so.
    const res = await callRoute(QSTASH_KNOWLEDGE_PATH, body, await signed(QSTASH_KNOWLEDGE_PATH, body));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, status: "failed" });
    expect((await document(id)).error).toMatch(/original was never stored/);
  });

  it("when QStash gives up on a document, its failure callback marks it failed", async () => {
    unreachable = true;
    const doc = await (async () => {
      try {
        const added = await addText(ws, kb, "Prices", "# Prices\n\nA cleaning costs 80 dollars.");
        expect(added.status).toBe(202);
        await qstash.idle();
        return json<DocumentView>(added);
      } finally {
        unreachable = false;
      }
    })();
    const [processing, callback] = [callsTo(QSTASH_KNOWLEDGE_PATH).slice(1), callsTo(QSTASH_KNOWLEDGE_FAILED_PATH)];
    expect(processing.map((d) => [d.retried, d.status])).toEqual([
      [0, 503],
      [1, 503],
      [2, 503],
      [3, 503],
    ]);
    expect(callback.map((d) => d.status)).toEqual([200]);
    expect(await document(doc.id)).toMatchObject({
      status: "failed",
      chunkCount: 0,
      error: "Processing did not finish after several tries. Upload the document again.",
    });
    expect(await passagesOf(doc.id)).toBe(0);
  });

  it("a failure callback for a document already ready leaves it ready, its passages searchable", async () => {
    const body = failureBody(ready.id);
    const res = await callRoute(QSTASH_KNOWLEDGE_FAILED_PATH, body, await signed(QSTASH_KNOWLEDGE_FAILED_PATH, body));
    expect(res.status).toBe(200);
    expect(await document(ready.id)).toMatchObject({ status: "ready", chunkCount: 1, error: null });
    expect(await passagesOf(ready.id)).toBe(1);
    const found = await ws.api(`/v1/knowledge-bases/${kb}/query`, { method: "POST", json: { query: "open on Saturday", topK: 1 } });
    expect((await json<{ data: PassageView[] }>(found)).data[0]?.documentId).toBe(ready.id);
  });
});

describe("when QStash cannot take a document", () => {
  it("the upload is a 503 and the document failed saying so; uploaded again (twice at once) it is published once and processed", async () => {
    const text = "# Parking\n\nParking is free behind the building, entrance on Elm Street.";
    qstash.failNextPublishes(1);
    const before = qstash.published.length;
    const refused = await expectError(await addText(ws, kb, "Parking", text), 503, "service_unavailable");
    expect(refused.message).toMatch(/could not be queued.*marked failed.*Upload it again/);
    expect(qstash.published.length).toBe(before);
    const failed = (await json<{ data: DocumentView[] }>(await ws.api(`${documentsPath(kb)}?status=failed`))).data.find(
      (d) => d.name === "Parking",
    );
    expect(failed).toMatchObject({ status: "failed", error: NOT_QUEUED, chunkCount: 0 });
    expect(await document(failed?.id as string)).toMatchObject({ status: "failed" });

    // QStash answers again. Two uploads of the same content at once: one starts it, the other answers the document.
    const again = await Promise.all([addText(ws, kb, "Parking", text), addText(ws, kb, "Parking (again)", text)]);
    expect(again.map((r) => r.status).sort()).toEqual([200, 202]);
    const answered = await Promise.all(again.map((r) => json<DocumentView>(r)));
    expect(answered.map((d) => d.id)).toEqual([failed?.id, failed?.id]);
    const done = await until(
      () => document(failed?.id as string),
      (d) => d.status !== "processing",
      30_000,
    );
    expect(done).toMatchObject({ status: "ready", name: "Parking", error: null, chunkCount: 1 });
    await qstash.idle();
    expect(qstash.published.slice(before)).toEqual([
      expect.objectContaining({ destination: publicBase + QSTASH_KNOWLEDGE_PATH, deduplicated: false }),
    ]);
  });
});

describe("a document whose processing stalled", () => {
  it("is published again by the cron sweep, as a new message, and processed to ready", async () => {
    const doc = await processed(ws, kb, await addText(ws, kb, "Cleaning", "# Cleaning\n\nA cleaning costs 80 dollars."));
    expect(doc.status).toBe("ready");
    // As a lost message leaves it: processing, nothing written for 20 minutes.
    await testDb()
      .update(knowledgeDocuments)
      .set({ status: "processing", chunkCount: 0, embeddedCount: 0, updatedAt: new Date(Date.now() - 20 * 60_000) })
      .where(eq(knowledgeDocuments.id, doc.id));
    const before = qstash.published.length;
    expect((await fetch(`${worker.baseUrl}/__scheduled?cron=${encodeURIComponent("* * * * *")}`)).status).toBe(200);
    const done = await until(
      () => document(doc.id),
      (d) => d.status !== "processing",
      30_000,
    );
    expect(done).toMatchObject({ status: "ready", chunkCount: 1 });
    const [row] = await testDb().select().from(knowledgeDocuments).where(eq(knowledgeDocuments.id, doc.id));
    expect(row?.attempts).toBe(2);
    expect(qstash.published.slice(before)).toEqual([
      expect.objectContaining({ destination: publicBase + QSTASH_KNOWLEDGE_PATH, deduplicated: false }),
    ]);
  });
});
