// The Knowledge screen over HTTP (docs/dashboard.md, "Knowledge"): the list with its empty state and
// create form; a knowledge base's page, where a file is uploaded through the dashboard's own route
// (multipart with the page's CSRF token, as its script sends it), text and URLs are added by plain
// forms, documents are followed by the live JSON until they are ready, and a test question finds
// the passage (metered as the API's query is); rename, delete a document, delete the base.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KnowledgeBaseView } from "../../../src/knowledge/schema";
import { createWorkspace, json, type Workspace } from "../../support/harness";
import { fieldError, knowledgeSession } from "../../support/knowledge-pages";
import { type Receiver, startReceiver } from "../../support/receiver";

const PRICES = `# Prices

## Cleaning
A professional cleaning costs 80 dollars and takes forty minutes.

## Whitening
Teeth whitening costs 250 dollars and needs two visits.
`;

/** Page assertions that name what they looked for, not the whole page. */
const shows = (html: string, part: string) => expect(html.includes(part), `the page shows ${part}`).toBe(true);
const lacks = (html: string, part: string) => expect(html.includes(part), `the page lacks ${part}`).toBe(false);
const matches = (html: string, re: RegExp) => expect(re.test(html), `the page matches ${re}`).toBe(true);

const BYTES = `${Buffer.byteLength(PRICES)} B`;

type Session = Awaited<ReturnType<typeof knowledgeSession>>;

describe("the Knowledge screen", () => {
  let ws: Workspace;
  let s: Session;
  let site: Receiver;
  let gone: Receiver;

  beforeAll(async () => {
    ws = await createWorkspace("Knowledge screen");
    s = await knowledgeSession(ws);
    site = await startReceiver(() => ({
      status: 200,
      body: "# Returns\n\nUnopened products can be returned within 30 days.",
      headers: { "content-type": "text/markdown" },
    }));
    gone = await startReceiver(() => ({ status: 404, body: "gone" }));
  });
  afterAll(async () => {
    await site?.stop();
    await gone?.stop();
  });

  it("says what knowledge bases are for when there is none, creates one from the list, refuses a bad name on its field", async () => {
    const empty = await (await s.get("/dashboard/knowledge")).text();
    shows(empty, "No knowledge bases yet.");
    shows(empty, "that your agents answer from");
    shows(empty, '<a href="/dashboard/knowledge" aria-current="page">Knowledge</a>');

    for (const [name, message] of [
      ["", "must not be empty"],
      ["x".repeat(201), "must be at most 200 characters (got 201)"],
      ["two\nlines", "must not contain control characters such as line breaks"],
    ] as const) {
      const refused = await s.post("/dashboard/knowledge", { name, description: "" });
      expect(refused.status).toBe(400);
      const html = await refused.text();
      expect(fieldError(html, "name"), JSON.stringify(name)).toContain(message);
      shows(html, name.slice(0, 20)); // what was typed is kept
    }

    const created = await s.post("/dashboard/knowledge", { name: "Cabinet dentaire ☕ Zürich", description: "Prices & hours" });
    expect(created.status).toBe(303);
    const id = /^\/dashboard\/knowledge\/([0-9a-f-]{36})\?created=1$/.exec(created.headers.get("location") ?? "")?.[1] as string;
    expect(id).toBeTruthy();
    const viaApi = await json<KnowledgeBaseView>(await ws.api(`/v1/knowledge-bases/${id}`));
    expect(viaApi).toMatchObject({ name: "Cabinet dentaire ☕ Zürich", description: "Prices & hours", documentCount: 0 });

    const list = await (await s.get("/dashboard/knowledge")).text();
    shows(list, `<a href="/dashboard/knowledge/${id}">Cabinet dentaire ☕ Zürich</a>`);
    lacks(list, "No knowledge bases yet.");
    const page = await (await s.get(`/dashboard/knowledge/${id}?created=1`)).text();
    shows(page, "Knowledge base created.");
    shows(page, "No documents yet");
    shows(page, 'data-count="documents">0 documents<');
  });

  it("uploads a Markdown file through the dashboard route, follows it to ready, and finds its passage with a test question", async () => {
    const kb = await json<KnowledgeBaseView>(await ws.api("/v1/knowledge-bases", { method: "POST", json: { name: "Prices" } }));
    // Browsers send application/octet-stream for .md: the name's extension decides.
    const res = await s.upload(kb.id, { name: "prices.md", type: "application/octet-stream", bytes: PRICES });
    expect(res.status).toBe(202);
    const added = await json<{ created: boolean; document: { id: string; name: string; type: string; status: string } }>(res);
    expect(added).toMatchObject({ created: true, document: { name: "prices.md", type: "Markdown", source: "File", status: "processing" } });
    expect(res.headers.get("cache-control")).toContain("no-store");

    const live = await s.settled(kb.id);
    expect(live.documents).toEqual([
      expect.objectContaining({ id: added.document.id, status: "ready", percent: 100, passages: "2", error: null, size: BYTES }),
    ]);
    expect(live.counts).toEqual({ documents: "1 document", passages: "2 passages", size: BYTES });
    const viaApi = await json<{ status: string; chunkCount: number }>(
      await ws.api(`/v1/knowledge-bases/${kb.id}/documents/${added.document.id}`),
    );
    expect(viaApi).toMatchObject({ status: "ready", chunkCount: 2 });

    const page = await (await s.get(`/dashboard/knowledge/${kb.id}`)).text();
    matches(page, new RegExp(`<tr data-document="${added.document.id}" data-status="ready">`));
    shows(page, '<span class="badge good">ready</span>');

    // The same bytes again: the document it already is, nothing added (JSON for the script, a notice for the form).
    const again = await s.upload(kb.id, { name: "copy.md", type: "text/markdown", bytes: PRICES });
    expect(again.status).toBe(200);
    expect(await json<{ created: boolean; document: { id: string } }>(again)).toMatchObject({
      created: false,
      document: { id: added.document.id },
    });
    const byForm = await s.upload(kb.id, { name: "copy.md", type: "text/markdown", bytes: PRICES }, { json: false });
    expect(byForm.status).toBe(303);
    expect(byForm.headers.get("location")).toBe(`/dashboard/knowledge/${kb.id}?existing=1`);

    // The test question: JSON for the page's script (the API's answer and its summary), a page without it.
    const asked = await s.post(
      `/dashboard/knowledge/${kb.id}/query`,
      { query: "How much does a cleaning cost?", topK: "2" },
      { json: true },
    );
    expect(asked.status).toBe(200);
    const found = await json<{
      data: Array<{ heading: string; content: string; score: number; documentName: string }>;
      usage: { tokens: number };
      summary: string;
    }>(asked);
    expect(found.data).toHaveLength(2);
    expect(found.data[0]).toMatchObject({ heading: "Prices › Cleaning", documentName: "prices.md" });
    expect(found.data[0]?.score).toBeGreaterThan(found.data[1]?.score as number);
    expect(found.summary).toBe(`2 passages found, nearest first (the question used ${found.usage.tokens} tokens).`);
    const shown = await s.post(`/dashboard/knowledge/${kb.id}/query`, { query: "How much does whitening cost?", topK: "" });
    expect(shown.status).toBe(200);
    const html = await shown.text();
    matches(html, /<strong>prices\.md<\/strong><span class="muted"> › Prices › Whitening<\/span>/);
    shows(html, "Teeth whitening costs 250 dollars");
    shows(html, 'value="How much does whitening cost?"');
    // Metered as the API's query is: an embedding of the question, on the knowledge base's query endpoint.
    const usage = await json<{ requests: { data: Array<{ modality: string; endpoint: string; status: number; quantity: number }> } }>(
      await ws.api("/v1/usage?limit=100"),
    );
    const queries = usage.requests.data.filter((r) => r.modality === "embedding" && r.endpoint === `/v1/knowledge-bases/${kb.id}/query`);
    expect(queries).toHaveLength(2);
    expect(queries.every((r) => r.status === 200 && r.quantity > 0)).toBe(true);
  });

  it("refuses a bad question on its field: empty, topK out of range or not a number (400, nothing metered)", async () => {
    const kb = await json<KnowledgeBaseView>(await ws.api("/v1/knowledge-bases", { method: "POST", json: { name: "Questions" } }));
    for (const [fields, field, message] of [
      [{ query: "   ", topK: "5" }, "query", "must not be empty"],
      [{ query: "hours?", topK: "21" }, "topK", "must be at most 20"],
      [{ query: "hours?", topK: "0" }, "topK", "must be at least 1"],
      [{ query: "hours?", topK: "two" }, "topK", "must be a finite number"],
      [{ query: "x".repeat(2001), topK: "5" }, "query", "must be at most 2000 characters (got 2001)"],
    ] as const) {
      const page = await s.post(`/dashboard/knowledge/${kb.id}/query`, fields);
      expect(page.status).toBe(400);
      expect(fieldError(await page.text(), field)).toContain(message);
      const script = await s.post(`/dashboard/knowledge/${kb.id}/query`, fields, { json: true });
      expect(script.status).toBe(400);
      expect(await json<{ code: string; message: string }>(script)).toMatchObject({ code: "validation_failed" });
    }
    const usage = await json<{ requests: { data: Array<{ endpoint: string }> } }>(await ws.api("/v1/usage?limit=100"));
    expect(usage.requests.data.filter((r) => r.endpoint === `/v1/knowledge-bases/${kb.id}/query`)).toEqual([]);
  });

  it("adds text and imports a URL with the page's forms; their refusals are said on their fields, what was typed kept", async () => {
    const kb = await json<KnowledgeBaseView>(await ws.api("/v1/knowledge-bases", { method: "POST", json: { name: "Forms" } }));
    const path = `/dashboard/knowledge/${kb.id}/documents`;
    const text = await s.post(path, { type: "text", textName: "Hours 🕗", text: "# Hours\n\nWe open at eight." });
    expect(text.status).toBe(303);
    expect(text.headers.get("location")).toBe(`/dashboard/knowledge/${kb.id}?added=1`);
    const url = await s.post(path, { type: "url", url: site.url, urlName: "" });
    expect(url.status).toBe(303);
    const live = await s.settled(kb.id);
    expect(live.documents.map((d) => [d.name, d.source, d.type, d.status])).toEqual([
      [site.url, "URL", "Markdown", "ready"],
      ["Hours 🕗", "Text", "Markdown", "ready"],
    ]);

    const cases: Array<[Record<string, string>, string, string, number]> = [
      [{ type: "text", textName: "", text: "Something" }, "textName", "must not be empty", 400],
      [{ type: "text", textName: "Empty", text: "" }, "text", "must not be empty", 400],
      [{ type: "url", url: "ftp://example.com/faq", urlName: "" }, "url", "must be an http or https URL", 400],
      [{ type: "url", url: gone.url, urlName: "Gone" }, "url", "404", 400],
      [{ type: "fax", textName: "x" }, "file", "must be one of: file, text, url", 400],
      [{ type: "file" }, "file", "multipart/form-data", 400],
    ];
    for (const [fields, field, message, status] of cases) {
      const res = await s.post(path, fields);
      expect(res.status, JSON.stringify(fields)).toBe(status);
      const html = await res.text();
      expect(fieldError(html, field), JSON.stringify(fields)).toContain(message);
      if (fields.type === "text" && fields.textName) shows(html, `value="${fields.textName}"`);
    }
    expect((await s.live(kb.id)).documents).toHaveLength(2);
  });

  it("renames and describes, deletes a document, then deletes the knowledge base (its agents unlinked)", async () => {
    const kb = await json<KnowledgeBaseView>(await ws.api("/v1/knowledge-bases", { method: "POST", json: { name: "Old name" } }));
    const saved = await s.post(`/dashboard/knowledge/${kb.id}`, { name: "New name", description: "" });
    expect(saved.status).toBe(303);
    expect(saved.headers.get("location")).toBe(`/dashboard/knowledge/${kb.id}?saved=1`);
    expect(await json<KnowledgeBaseView>(await ws.api(`/v1/knowledge-bases/${kb.id}`))).toMatchObject({
      name: "New name",
      description: null,
    });
    const refused = await s.post(`/dashboard/knowledge/${kb.id}`, { name: " ", description: "kept" });
    expect(refused.status).toBe(400);
    const html = await refused.text();
    expect(fieldError(html, "name")).toBe("must not be empty");
    shows(html, ">kept</textarea>");

    const added = await json<{ document: { id: string } }>(
      await s.upload(kb.id, { name: "a.txt", type: "text/plain", bytes: "Parking is free." }),
    );
    const deleted = await s.post(`/dashboard/knowledge/${kb.id}/documents/${added.document.id}/delete`, {});
    expect(deleted.status).toBe(303);
    expect(deleted.headers.get("location")).toBe(`/dashboard/knowledge/${kb.id}?removed=1`);
    expect((await s.live(kb.id)).documents).toEqual([]);

    const agent = await json<{ id: string }>(
      await ws.api("/v1/agents", {
        method: "POST",
        json: { name: "Linked", personaId: crypto.randomUUID(), knowledge: { knowledgeBaseIds: [kb.id] } },
      }),
    );
    const gone = await s.post(`/dashboard/knowledge/${kb.id}/delete`, {});
    expect(gone.status).toBe(303);
    expect(gone.headers.get("location")).toBe("/dashboard/knowledge?deleted=1");
    expect((await ws.api(`/v1/knowledge-bases/${kb.id}`)).status).toBe(404);
    expect(
      (await json<{ knowledge: { knowledgeBaseIds: string[] } }>(await ws.api(`/v1/agents/${agent.id}`))).knowledge.knowledgeBaseIds,
    ).toEqual([]);
    expect((await s.get(`/dashboard/knowledge/${kb.id}`)).status).toBe(404);
    shows(await (await s.get("/dashboard/knowledge?deleted=1")).text(), "Knowledge base deleted.");
  });
});
