// Every way adding a knowledge document goes wrong (docs/knowledge.md). A document that cannot be
// read (a corrupt, encrypted or scanned PDF, text that is not UTF-8) is accepted, then ends
// `failed` with a reason the user can act on and no passage. A request that is not a document
// (empty, an unread type, a broken or wrong body, a bad name, a URL that fails) is a 4xx and
// nothing is stored. Another workspace's documents are 404 on every document route. On a worker
// of its own, configured as in production (the SSRF guard on, DNS through test/support/dns.ts) with
// small limits: private URLs are refused, the workspace limits are 409 (also to uploads made at
// once), the file limit 413, and deleting a document or a knowledge base removes its originals.
// A document that failed because credits ran out or the embedding provider failed (a worker whose
// EMBEDDING_MODEL is a sandbox fault) is retried by uploading it again once the cause is gone; on
// that worker a query is a 502 and a chat reply goes on without passages.
import { readdirSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorker, type WorkerProcess } from "../../../dev/stack";
import { organizations } from "../../../src/db/schema";
import type { DocumentView, PassageView } from "../../../src/knowledge/schema";
import { createAgent } from "../../support/calls";
import { startDoh } from "../../support/dns";
import { createWorkspace, expectError, json, onWorker, settled, stack, testDb, type Workspace } from "../../support/harness";
import { addText, documentsPath, holdsNothing, newKnowledgeBase, passagesOf, processed, upload } from "../../support/knowledge";
import { makePdf } from "../../support/pdf";
import { type Receiver, startReceiver } from "../../support/receiver";
import { createWidget, visitor, widgetRequest } from "../../support/widgets";
import { getChat } from "../chats/helpers";

let ws: Workspace;
let kb: string;

beforeAll(async () => {
  ws = await createWorkspace("Knowledge errors");
  kb = await newKnowledgeBase(ws);
});

const post = (body: unknown, to = kb) => ws.api(documentsPath(to), { method: "POST", json: body });
const latin1 = (s: string) => Uint8Array.from([...s].map((c) => c.charCodeAt(0)));

describe("a document that cannot be read ends failed with the reason, and keeps no passage", () => {
  it.each([
    [
      "a corrupt PDF",
      "broken.pdf",
      new TextEncoder().encode("%PDF-1.4\n1 0 obj << /Type /Catalog >> truncated"),
      /PDF cannot be read.*Export it again/,
    ],
    ["a file named .pdf that is not one", "notes.pdf", new TextEncoder().encode("just some words"), /not a PDF/],
    ["an encrypted PDF", "locked.pdf", makePdf([["Secret prices"]], { encrypt: true }), /encrypted with a password.*without one/],
    ["a scanned PDF (pages without text)", "scan.pdf", makePdf([[], []]), /no text to read.*\(OCR\)/],
  ])("%s", async (_what, name, bytes, reason) => {
    const doc = await processed(ws, kb, await upload(ws, kb, { name, bytes, type: "application/pdf" }));
    expect(doc).toMatchObject({ status: "failed", contentType: "application/pdf", chunkCount: 0, progress: 0 });
    expect(doc.error).toMatch(reason);
    expect(await passagesOf(doc.id)).toBe(0);
  });

  it("text or HTML that is not UTF-8, and text with nothing in it", async () => {
    const cases: Array<[string, string, Uint8Array, RegExp]> = [
      ["prix.txt", "text/plain", latin1("Nettoyage: 80 \xe9uros, caf\xe9 offert"), /not UTF-8 text.*Save it as UTF-8/],
      ["page.html", "text/html", latin1("<p>Fa\xe7ade r\xe9nov\xe9e</p>"), /not UTF-8 text/],
      ["blank.md", "text/markdown", new TextEncoder().encode(" \n\n\t \n"), /no text to read/],
    ];
    for (const [name, type, bytes, reason] of cases) {
      const doc = await processed(ws, kb, await upload(ws, kb, { name, bytes, type }));
      expect(doc, name).toMatchObject({ status: "failed", chunkCount: 0 });
      expect(doc.error, name).toMatch(reason);
      expect(await passagesOf(doc.id)).toBe(0);
    }
  });
});

describe("an upload that is not a document is refused, and nothing is stored", () => {
  let empty: string;
  beforeAll(async () => {
    empty = await newKnowledgeBase(ws, "Stays empty");
  });

  it("an empty file (400), a type we do not read (400 naming the ones we do)", async () => {
    const none = await expectError(await upload(ws, empty, { name: "a.txt", bytes: "", type: "text/plain" }), 400, "validation_failed");
    expect(none.message).toMatch(/empty/);
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
    const err = await expectError(await upload(ws, empty, { name: "logo.png", bytes: png, type: "image/png" }), 400, "validation_failed");
    expect(err.message).toContain("image/png");
    expect(err.message).toContain("logo.png");
    expect(err.message).toMatch(/text \(\.txt\), Markdown \(\.md\), HTML \(\.html\) or PDF \(\.pdf\)/);
    await holdsNothing(ws, empty);
  });

  it("a malformed multipart body, a form without `file`, a `file` that is text (400); a body of another type (415)", async () => {
    // Bytes, so fetch adds no Content-Type of its own.
    const raw = (body: string, type: string | null) =>
      ws.api(documentsPath(empty), { method: "POST", body: new TextEncoder().encode(body), headers: type ? { "content-type": type } : {} });
    for (const type of ["multipart/form-data; boundary=b", "multipart/form-data"]) {
      const err = await raw("--b\r\nnot a part", type);
      expect(err.status, type).toBe(400);
      expect((await json<{ message: string }>(err)).message, type).toMatch(/malformed/i);
    }

    const form = new FormData();
    form.set("name", "Prices");
    const missing = await expectError(await ws.api(documentsPath(empty), { method: "POST", body: form }), 400, "validation_failed");
    expect(missing.issues).toEqual([expect.objectContaining({ path: "file" })]);
    form.set("file", "# Prices\n\nCleaning: 80 dollars.");
    const text = await expectError(await ws.api(documentsPath(empty), { method: "POST", body: form }), 400, "validation_failed");
    expect(text.issues).toEqual([expect.objectContaining({ path: "file" })]);

    for (const type of ["text/plain", "application/x-www-form-urlencoded", "application/xml", null]) {
      const err = await expectError(await raw("file=hello", type), 415, "unsupported_media_type");
      expect(err.message).toMatch(/multipart\/form-data.*application\/json/);
      expect(err.message).toContain(type ?? "no Content-Type");
    }
    await expectError(await ws.api(documentsPath(empty), { method: "POST" }), 415, "unsupported_media_type"); // no body at all
    await holdsNothing(ws, empty);
  });

  it("a name over 200 characters, a name of several lines, NUL in a field or a file name (400)", async () => {
    const file = { name: "prices.md", bytes: "# Prices\n\nCleaning: 80 dollars.", type: "text/markdown" };
    const long = await expectError(await upload(ws, empty, file, { name: "n".repeat(201) }), 400, "validation_failed");
    expect(long.issues).toEqual([expect.objectContaining({ path: "name", message: expect.stringMatching(/at most 200/) })]);
    await expectError(await upload(ws, empty, file, { name: "Prices\nand more" }), 400, "validation_failed");
    const nul = await expectError(await upload(ws, empty, file, { name: "Pri\u0000ces" }), 400, "validation_failed");
    expect(nul.message).toMatch(/NUL/);
    // A NUL in a part's headers: the multipart parser refuses the body (or the input guard the name).
    expect((await upload(ws, empty, { ...file, name: "pri\u0000ces.md" })).status).toBe(400);
    await holdsNothing(ws, empty);
  });

  it("takes a unicode name, and a long file name cut to 200 characters whose extension still decides the type", async () => {
    const named = await upload(
      ws,
      kb,
      { name: "hours.md", bytes: "# Hours\n\nOpen 8 to 18.", type: "application/octet-stream" },
      { name: "Часы работы 🦷 שעות" },
    );
    expect(named.status).toBe(202);
    expect(await json<DocumentView>(named)).toMatchObject({ name: "Часы работы 🦷 שעות", contentType: "text/markdown" });
    const fileName = `${"🦷".repeat(250)}.md`;
    const long = await upload(ws, kb, { name: fileName, bytes: "# Teeth\n\nBrush twice a day.", type: "application/octet-stream" });
    expect(long.status).toBe(202);
    const doc = await json<DocumentView>(long);
    expect(doc.contentType).toBe("text/markdown");
    expect(doc.name).toBe("🦷".repeat(200)); // 200 code points: no emoji cut in half
  });
});

describe("JSON of the wrong shape is a 400, and nothing is stored", () => {
  it.each([
    ["an unknown type", { type: "pdf", name: "x", text: "y" }],
    ["no type", { name: "x", text: "y" }],
    ["text without a name", { type: "text", text: "y" }],
    ["text without text", { type: "text", name: "x" }],
    ["empty text", { type: "text", name: "x", text: "" }],
    ["a blank name", { type: "text", name: "   ", text: "y" }],
    ["a name that is a number", { type: "text", name: 5, text: "y" }],
    ["text that is an object", { type: "text", name: "x", text: { value: "y" } }],
    ["a name over 200 characters", { type: "text", name: "é".repeat(201), text: "y" }],
    ["text over 200,000 characters", { type: "text", name: "x", text: "a".repeat(200_001) }],
    ["an unknown field", { type: "text", name: "x", text: "y", language: "en" }],
    ["NUL in the name", { type: "text", name: "a\u0000b", text: "y" }],
    ["NUL in the text", { type: "text", name: "x", text: "a\u0000b" }],
    ["a URL without url", { type: "url" }],
    ["a URL that is not one", { type: "url", url: "not a url" }],
    ["a URL of another scheme", { type: "url", url: "ftp://example.com/prices.txt" }],
    ["a URL over 2,048 characters", { type: "url", url: `https://example.com/${"p".repeat(2100)}` }],
    ["an array", [{ type: "text", name: "x", text: "y" }]],
    ["null", null],
  ])("%s", async (_what, body) => {
    const empty = await newKnowledgeBase(ws, "Stays empty");
    await expectError(await post(body, empty), 400, "validation_failed");
    await holdsNothing(ws, empty);
  });

  it("takes unicode names and text", async () => {
    const doc = await processed(ws, kb, await addText(ws, kb, "Цены 🦷 מחירון", "# Чистка\n\nПрофессиональная чистка стоит 80 долларов."));
    expect(doc).toMatchObject({ status: "ready", name: "Цены 🦷 מחירון", chunkCount: 1 });
  });
});

describe("a URL that cannot be imported is a 400 url_fetch_failed saying why, and nothing is stored", () => {
  let site: Receiver;
  let silent: Server;
  let silentUrl: string;
  beforeAll(async () => {
    site = await startReceiver(() => ({ status: 302, headers: { location: "/hook" } })); // to itself
    silent = createServer(() => undefined); // takes the request, never answers
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    silentUrl = `http://127.0.0.1:${(silent.address() as { port: number }).port}/prices.md`;
  });
  afterAll(async () => {
    await site?.stop();
    silent?.closeAllConnections();
    await new Promise((resolve) => silent?.close(resolve));
  });

  const refused = async (url: string, why: RegExp) => {
    const empty = await newKnowledgeBase(ws, "Stays empty");
    const err = await expectError(await post({ type: "url", url }, empty), 400, "url_fetch_failed");
    expect(err.message).toMatch(why);
    expect(err.message).toMatch(/Nothing was stored/);
    await holdsNothing(ws, empty);
  };

  it("a URL that answers 404", async () => {
    const missing = await startReceiver(() => ({ status: 404, body: "Not Found" }));
    try {
      await refused(missing.url, /answered HTTP 404/);
    } finally {
      await missing.stop();
    }
  });

  it("a redirect loop: followed five times, then refused", async () => {
    const before = site.received.length;
    await refused(site.url, /redirects more than 5 times/);
    expect(site.received.length - before).toBe(6);
  });

  it("a URL that never answers, within KNOWLEDGE_URL_TIMEOUT_MS", async () => {
    const limit = Number(stack().vars.KNOWLEDGE_URL_TIMEOUT_MS) / 1000;
    await refused(silentUrl, new RegExp(`did not answer within ${limit} s`));
  });
});

describe("another workspace's documents are 404 on every document route", () => {
  it("reads, lists, deletes and adds nothing of theirs", async () => {
    const them = await createWorkspace("Theirs");
    const theirKb = await newKnowledgeBase(them, "Theirs");
    const theirDoc = await processed(them, theirKb, await addText(them, theirKb, "Secret", "# Secret\n\nThe safe code is 4711."));
    for (const base of [theirKb, kb]) {
      const path = `${documentsPath(base)}/${theirDoc.id}`;
      await expectError(await ws.api(path), 404, "not_found");
      await expectError(await ws.api(path, { method: "DELETE" }), 404, "not_found");
    }
    await expectError(await ws.api(documentsPath(theirKb)), 404, "not_found");
    await expectError(await ws.api(`${documentsPath(theirKb)}?status=ready`), 404, "not_found");
    await expectError(await addText(ws, theirKb, "Mine", "# Planted\n\nA passage of ours."), 404, "not_found");
    await expectError(await upload(ws, theirKb, { name: "x.md", bytes: "# x\n\ny", type: "text/markdown" }), 404, "not_found");
    const theirs = await json<{ data: DocumentView[] }>(await them.api(documentsPath(theirKb)));
    expect(theirs.data.map((d) => [d.id, d.status])).toEqual([[theirDoc.id, "ready"]]);
    expect(await passagesOf(theirDoc.id)).toBe(1);
  });
});

const PRICES = "# Cleaning\n\nA cleaning costs 80 dollars.\n\n# Whitening\n\nTeeth whitening costs 250 dollars.";

const setCredits = (ws: Workspace, creditsMicro: number) =>
  testDb().update(organizations).set({ creditsMicro }).where(eq(organizations.id, ws.organizationId));

const queryOn = (ws: Workspace, base: string, query: string) =>
  ws.api(`/v1/knowledge-bases/${base}/query`, { method: "POST", json: { query, topK: 1 } });

describe("a failed document is retried by uploading it again", () => {
  it("credits ran out while embedding it: failed saying so; with credits again, the same upload processes it to ready", async () => {
    const mine = await createWorkspace("Out of credits");
    const base = await newKnowledgeBase(mine);
    await setCredits(mine, 0);
    const failed = await processed(mine, base, await addText(mine, base, "Prices", PRICES));
    expect(failed).toMatchObject({ status: "failed", chunkCount: 0, progress: 0 });
    expect(failed.error).toBe("The workspace's credits ran out while embedding the document. Add credits, then upload it again.");
    expect(await passagesOf(failed.id)).toBe(0);
    // A query needs credits too.
    await expectError(await queryOn(mine, base, "whitening"), 402, "insufficient_credits");

    await setCredits(mine, 10_000_000);
    const again = await addText(mine, base, "Prices, once more", PRICES);
    const retried = await processed(mine, base, again);
    expect(retried).toMatchObject({ id: failed.id, name: "Prices", status: "ready", error: null, chunkCount: 2, progress: 1 });
    const found = await json<{ data: PassageView[] }>(await queryOn(mine, base, "How much does teeth whitening cost?"));
    expect(found.data[0]).toMatchObject({ documentId: failed.id, heading: "Whitening" });
    // Ready now: the same content again is the document, nothing started.
    expect((await addText(mine, base, "Prices", PRICES)).status).toBe(200);
  });

  it("two uploads of a failed document at once start it once", async () => {
    const mine = await createWorkspace("Retried at once");
    const base = await newKnowledgeBase(mine);
    await setCredits(mine, 0);
    const failed = await processed(mine, base, await addText(mine, base, "Hours", "# Hours\n\nOpen Monday to Friday."));
    expect(failed.status).toBe("failed");
    await setCredits(mine, 10_000_000);
    const both = await Promise.all([1, 2].map(() => addText(mine, base, "Hours", "# Hours\n\nOpen Monday to Friday.")));
    expect(both.map((r) => r.status).sort()).toEqual([200, 202]);
    const views = await Promise.all(both.map((r) => json<DocumentView>(r)));
    expect(views.map((d) => d.id)).toEqual([failed.id, failed.id]);
    await expect.poll(async () => (await json<DocumentView>(await mine.api(`${documentsPath(base)}/${failed.id}`))).status).toBe("ready");
  });
});

describe("on a worker whose embedding provider fails (EMBEDDING_MODEL fault-500)", () => {
  let faulty: WorkerProcess;
  beforeAll(async () => {
    faulty = await startWorker({ ...stack().vars, EMBEDDING_MODEL: "fault-500" });
  }, 120_000);
  afterAll(async () => faulty?.stop());

  it("a document ends failed saying the provider failed; uploaded again where the provider answers, it is processed to ready", async () => {
    const mine = await createWorkspace("Provider down");
    const onFaulty = onWorker(mine, faulty.baseUrl);
    const base = await newKnowledgeBase(mine);
    const failed = await processed(onFaulty, base, await addText(onFaulty, base, "Prices", PRICES));
    expect(failed).toMatchObject({ status: "failed", chunkCount: 0, progress: 0 });
    expect(failed.error).toMatch(/^The embedding provider failed \(.*answered 500\)\. Upload the document again to retry\.$/);
    expect(await passagesOf(failed.id)).toBe(0);
    // The stack's worker: a provider that answers, and a bucket without the original (stored again by the upload).
    const retried = await processed(mine, base, await addText(mine, base, "Prices", PRICES));
    expect(retried).toMatchObject({ id: failed.id, status: "ready", chunkCount: 2, error: null });
  });

  it("a query is a 502 provider_error, charged nothing", async () => {
    const mine = await createWorkspace("Provider down, query");
    const base = await newKnowledgeBase(mine);
    await processed(mine, base, await addText(mine, base, "Prices", PRICES));
    const err = await expectError(await queryOn(onWorker(mine, faulty.baseUrl), base, "whitening"), 502, "provider_error");
    expect(err.message).toMatch(/answered 500.*Nothing was charged/);
    await settled(mine.organizationId);
    const usage = await json<{ requests: { data: Array<{ endpoint: string; status: number; cost: number }> } }>(
      await mine.api("/v1/usage?modality=embedding&limit=100"),
    );
    expect(usage.requests.data.filter((r) => r.endpoint.endsWith("/query"))).toEqual([expect.objectContaining({ status: 502, cost: 0 })]);
  });

  it("a chat reply goes on without passages when the search fails", async () => {
    const mine = await createWorkspace("Provider down, chat");
    const base = await newKnowledgeBase(mine);
    await processed(mine, base, await addText(mine, base, "Prices", PRICES));
    const agent = await createAgent(mine, { knowledge: { knowledgeBaseIds: [base], topK: 1 } });
    const widget = await createWidget(mine, { agentId: agent.id });
    const visitorId = visitor();
    const question = "How much does teeth whitening cost?";
    const send = async (baseUrl: string, sessionId?: string) => {
      const res = await widgetRequest("/widget/v1/chat", {
        token: widget.token,
        base: baseUrl,
        json: { visitorId, message: question, ...(sessionId && { sessionId }) },
      });
      expect(res.status).toBe(200);
      return json<{ sessionId: string; reply: { text: string } }>(res);
    };
    const without = await send(faulty.baseUrl);
    expect(without.reply.text).toBe(`You said: ${question}`);
    // Where the provider answers, the same question gets its passage.
    const withIt = await send(stack().baseUrl, without.sessionId);
    expect(withIt.reply.text).toBe('From "Prices": Teeth whitening costs 250 dollars.');
    const turns = (await getChat(mine, without.sessionId)).transcript.turns.filter((t) => t.role === "agent");
    expect(turns.map((t) => t.knowledge?.passages.map((p) => p.documentName))).toEqual([[], ["Prices"]]);
  });
});

// -- A worker configured as in production, with small limits ---------------------------------------

describe("on a worker with the SSRF guard on and small limits", () => {
  const LIMITS = { files: 4096, bytes: 6000, documents: 2, chunks: 6 };
  let worker: Awaited<ReturnType<typeof startWorker>>;
  let doh: Awaited<ReturnType<typeof startDoh>>;
  let state: string;

  beforeAll(async () => {
    doh = await startDoh({
      "intranet.example.com": ["10.0.0.5"],
      "localtest.me": ["127.0.0.1"],
      "metadata.example.com": ["169.254.169.254"],
    });
    state = await mkdtemp(join(tmpdir(), "knowledge-errors-"));
    worker = await startWorker(
      {
        ...stack().vars,
        WEBHOOKS_ALLOW_PRIVATE_URLS: "0",
        DNS_RESOLVER_URL: doh.url,
        KNOWLEDGE_MAX_FILE_BYTES: String(LIMITS.files),
        KNOWLEDGE_MAX_BYTES: String(LIMITS.bytes),
        KNOWLEDGE_MAX_DOCUMENTS: String(LIMITS.documents),
        KNOWLEDGE_MAX_CHUNKS: String(LIMITS.chunks),
      },
      { persistTo: state },
    );
  }, 120_000);

  afterAll(async () => {
    await worker?.stop();
    await doh?.stop();
    if (state) await rm(state, { recursive: true, force: true });
  });

  /** The originals the worker's KNOWLEDGE bucket holds (its local R2, under the worker's state). */
  const storedObjects = () =>
    (readdirSync(state, { recursive: true }) as string[]).filter((p) => p.includes("r2") && p.includes("blobs") && !p.endsWith("blobs"))
      .length;

  const workspace = async () => {
    const mine = onWorker(await createWorkspace("Limits"), worker.baseUrl);
    return { mine, base: await newKnowledgeBase(mine) };
  };
  /** `n` sections: one passage each. */
  const sections = (n: number, word: string) =>
    Array.from({ length: n }, (_, i) => `# ${word} ${i}\n\nThe ${word} number ${i} is here.`).join("\n\n");

  it("refuses a private URL, or one that resolves to a private address, storing nothing", async () => {
    const { mine, base } = await workspace();
    const objects = storedObjects();
    for (const [url, why] of [
      ["https://127.0.0.1/prices.md", /non-public address \(loopback\)/],
      ["http://example.com/prices.md", /must use https/],
      ["https://example.com:8080/prices.md", /must use port 443 or 8443/],
      ["https://intranet.example.com/prices.md", /resolves to a non-public address \(private\)/],
      ["https://localtest.me/prices.md", /resolves to a non-public address \(loopback\)/],
      ["https://metadata.example.com/latest/meta-data", /resolves to a non-public address \(linkLocal\)/],
      ["https://printer.local/status", /internal host name/],
    ] as const) {
      const err = await expectError(
        await mine.api(documentsPath(base), { method: "POST", json: { type: "url", url } }),
        400,
        "url_fetch_failed",
      );
      expect(err.message, url).toMatch(why);
    }
    await holdsNothing(mine, base);
    expect(storedObjects()).toBe(objects);
  });

  it("a file or text over KNOWLEDGE_MAX_FILE_BYTES is a 413 saying the limit", async () => {
    const { mine, base } = await workspace();
    const objects = storedObjects();
    const big = "a".repeat(LIMITS.files + 1);
    const file = await expectError(await upload(mine, base, { name: "big.txt", bytes: big, type: "text/plain" }), 413, "payload_too_large");
    expect(file.message).toBe("Documents are limited to 4,096 bytes each (this one is 4,097 bytes).");
    const text = await expectError(await addText(mine, base, "Big", `${big}${big}`), 413, "payload_too_large");
    expect(text.message).toBe("Documents are limited to 4 KiB each (this one is 8 KiB).");
    const exact = await upload(mine, base, { name: "exact.txt", bytes: "b".repeat(LIMITS.files), type: "text/plain" });
    expect(exact.status).toBe(202);
    expect(storedObjects()).toBe(objects + 1);
  });

  it("KNOWLEDGE_MAX_DOCUMENTS and KNOWLEDGE_MAX_BYTES: the document past them is 409 knowledge_limit_reached", async () => {
    const { mine, base } = await workspace();
    expect((await addText(mine, base, "One", "a".repeat(3500))).status).toBe(202);
    const objects = storedObjects();
    const bytes = await expectError(await addText(mine, base, "Two", "b".repeat(3000)), 409, "knowledge_limit_reached");
    expect(bytes.message).toMatch(/hold 3\.4 KiB of 5\.9 KiB; this document \(2\.9 KiB\) does not fit/);
    expect((await addText(mine, base, "Two", "b".repeat(100))).status).toBe(202);
    const third = await expectError(await addText(mine, base, "Three", "c"), 409, "knowledge_limit_reached");
    expect(third.message).toMatch(/hold 2 documents, the most allowed.*Delete documents/);
    // The same content again is the document it already is, not one more.
    expect((await addText(mine, base, "One again", "a".repeat(3500))).status).toBe(200);
    const page = await json<{ data: DocumentView[] }>(await mine.api(documentsPath(base)));
    expect(page.data.map((d) => d.name).sort()).toEqual(["One", "Two"]);
    expect(storedObjects()).toBe(objects + 1);
  });

  it("uploads made at once pass a limit only as far as it goes: KNOWLEDGE_MAX_DOCUMENTS of six at once", async () => {
    const { mine, base } = await workspace();
    const objects = storedObjects();
    const added = await Promise.all(Array.from({ length: 6 }, (_, i) => addText(mine, base, `Doc ${i}`, `# Doc ${i}\n\nWord ${i}.`)));
    expect(added.map((r) => r.status).sort()).toEqual([202, 202, 409, 409, 409, 409]);
    const page = await json<{ data: DocumentView[] }>(await mine.api(documentsPath(base)));
    expect(page.data).toHaveLength(LIMITS.documents);
    expect(storedObjects()).toBe(objects + LIMITS.documents);
  });

  it("deleting a document, then its knowledge base, removes their originals from the bucket", async () => {
    const { mine, base } = await workspace();
    const objects = storedObjects();
    const first = await processed(mine, base, await addText(mine, base, "First", "# First\n\nApples."));
    await processed(mine, base, await addText(mine, base, "Second", "# Second\n\nPears."));
    expect(storedObjects()).toBe(objects + 2);
    expect((await mine.api(`${documentsPath(base)}/${first.id}`, { method: "DELETE" })).status).toBe(204);
    await expect.poll(storedObjects).toBe(objects + 1);
    expect((await mine.api(`/v1/knowledge-bases/${base}`, { method: "DELETE" })).status).toBe(204);
    await expect.poll(storedObjects).toBe(objects);
  });

  it("KNOWLEDGE_MAX_CHUNKS: a document whose passages would pass it ends failed; once reached, adding is 409", async () => {
    const { mine, base } = await workspace();
    const first = await processed(mine, base, await addText(mine, base, "Four", sections(4, "apple")));
    expect(first).toMatchObject({ status: "ready", chunkCount: 4 });
    const second = await processed(mine, base, await addText(mine, base, "Three", sections(3, "pear")));
    expect(second).toMatchObject({ status: "failed", chunkCount: 0 });
    expect(second.error).toBe(
      "The document has 3 passages and the workspace's knowledge bases hold 4 of the 6 allowed. Delete documents you no longer need, then upload it again.",
    );
    expect(await passagesOf(second.id)).toBe(0);

    const other = await workspace();
    await processed(other.mine, other.base, await addText(other.mine, other.base, "Six", sections(6, "plum")));
    const full = await expectError(await addText(other.mine, other.base, "More", "# x\n\ny"), 409, "knowledge_limit_reached");
    expect(full.message).toMatch(/hold 6 passages, the most allowed/);
  });
});
