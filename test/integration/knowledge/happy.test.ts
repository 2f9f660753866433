// Knowledge bases end to end on the local stack (docs/knowledge.md): documents added as text, as
// files (Markdown, HTML, PDF) and from a URL are stored, chunked and embedded in the background
// with the provider sandbox's embeddings; a query finds the passage that answers; the same content
// twice is one document; deleting a document or a knowledge base takes its passages with it; an
// agent links only its own workspace's knowledge bases; embeddings are metered. A query's and an
// agent's `maxDistance` and `topK` decide which passages come back and which reach the LLM (a chat's
// agent turn lists the passages its reply was given).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DocumentView, KnowledgeBaseView, PassageView } from "../../../src/knowledge/schema";
import { createWorkspace, expectError, json, until, type Workspace } from "../../support/harness";
import { makePdf } from "../../support/pdf";
import { type Receiver, startReceiver } from "../../support/receiver";
import { createWidget, visitor, chat as widgetChat } from "../../support/widgets";
import { getChat } from "../chats/helpers";

const PERSONA = "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77";

const PRICES = `# Prices

## Cleaning
A professional cleaning costs 80 dollars and takes forty minutes.

## Whitening
Teeth whitening costs 250 dollars and needs two visits.

# Opening hours
We are open Monday to Friday from 8:00 to 18:00 and on Saturday from 9:00 to 13:00.
`;

const HTML = `<!doctype html><html><head><title>FAQ</title><style>.x{color:red}</style><script>var secret = "never indexed";</script></head>
<body><nav>Home · About · Contact</nav><main><h1>Parking</h1><p>Free parking is behind the building, entrance on Elm&nbsp;Street.</p>
<h2>Insurance</h2><p>We accept Delta &amp; Aetna dental plans.</p></main><footer>© Acme</footer></body></html>`;

async function readyDocument(ws: Workspace, kb: string, added: Response): Promise<DocumentView> {
  expect(added.status).toBe(202);
  const doc = await json<DocumentView>(added);
  expect(doc.status).toBe("processing");
  return until(
    async () => json<DocumentView>(await ws.api(`/v1/knowledge-bases/${kb}/documents/${doc.id}`)),
    (d) => d.status !== "processing",
    30_000,
  );
}

const upload = (ws: Workspace, kb: string, name: string, bytes: Uint8Array | string, type: string) => {
  const form = new FormData();
  form.set("file", new Blob([bytes], { type }), name);
  return ws.api(`/v1/knowledge-bases/${kb}/documents`, { method: "POST", body: form });
};

const query = async (ws: Workspace, kb: string, q: string, topK = 3) => {
  const res = await ws.api(`/v1/knowledge-bases/${kb}/query`, { method: "POST", json: { query: q, topK } });
  expect(res.status).toBe(200);
  return json<{ data: PassageView[]; usage: { tokens: number } }>(res);
};

describe("knowledge bases", () => {
  let ws: Workspace;
  let kb: string;
  let site: Receiver;

  beforeAll(async () => {
    ws = await createWorkspace("Knowledge");
    site = await startReceiver(() => ({
      status: 200,
      body: "# Returns\n\nYou can return unopened products within 30 days for a full refund.",
      headers: { "content-type": "text/markdown" },
    }));
    const res = await ws.api("/v1/knowledge-bases", { method: "POST", json: { name: "Acme Dental", description: "Front desk answers" } });
    expect(res.status).toBe(201);
    const created = await json<KnowledgeBaseView>(res);
    expect(created).toMatchObject({ name: "Acme Dental", documentCount: 0, chunkCount: 0, sizeBytes: 0 });
    kb = created.id;
  });
  afterAll(async () => site?.stop());

  it("processes text sent as JSON into passages under their headings, and finds the one that answers", async () => {
    const doc = await readyDocument(
      ws,
      kb,
      await ws.api(`/v1/knowledge-bases/${kb}/documents`, { method: "POST", json: { type: "text", name: "Prices", text: PRICES } }),
    );
    expect(doc).toMatchObject({ status: "ready", source: "text", contentType: "text/markdown", progress: 1, error: null });
    expect(doc.chunkCount).toBe(3);
    expect(doc.contentHash).toMatch(/^[0-9a-f]{64}$/);

    const found = await query(ws, kb, "How much does a cleaning cost?");
    expect(found.data[0]).toMatchObject({ documentId: doc.id, documentName: "Prices", heading: "Prices › Cleaning", knowledgeBaseId: kb });
    expect(found.data[0]?.content).toContain("80 dollars");
    expect(found.data[0]?.score).toBeGreaterThan(found.data[1]?.score as number);
    expect(found.usage.tokens).toBeGreaterThan(0);
    const hours = await query(ws, kb, "When are you open on Saturday?", 1);
    expect(hours.data.map((p) => p.heading)).toEqual(["Opening hours"]);
  });

  it("answers the same content again with the document it already is, storing nothing twice", async () => {
    const again = await ws.api(`/v1/knowledge-bases/${kb}/documents`, {
      method: "POST",
      json: { type: "text", name: "Prices (copy)", text: PRICES },
    });
    expect(again.status).toBe(200);
    expect((await json<DocumentView>(again)).name).toBe("Prices");
    const page = await json<{ data: DocumentView[] }>(await ws.api(`/v1/knowledge-bases/${kb}/documents`));
    expect(page.data.filter((d) => d.name.startsWith("Prices"))).toHaveLength(1);
  });

  it("reads uploaded HTML without its scripts, styles or navigation, and a PDF's pages", async () => {
    const html = await readyDocument(ws, kb, await upload(ws, kb, "faq.html", HTML, "text/html"));
    expect(html).toMatchObject({ status: "ready", source: "file", name: "faq.html", contentType: "text/html" });
    const parking = await query(ws, kb, "Where can I park?", 1);
    expect(parking.data[0]).toMatchObject({ documentId: html.id, heading: "Parking" });
    expect(parking.data[0]?.content).toBe("Free parking is behind the building, entrance on Elm Street.");
    const insurance = await query(ws, kb, "Do you accept Aetna insurance?", 1);
    expect(insurance.data[0]).toMatchObject({ heading: "Parking › Insurance", content: "We accept Delta & Aetna dental plans." });
    for (const q of ["never indexed secret", "Home About Contact"]) {
      for (const p of (await query(ws, kb, q, 10)).data) expect(p.content).not.toMatch(/never indexed|Home · About|color:red/);
    }

    const pdf = makePdf([["Implants are placed by Dr. Rivera."], ["An implant consultation is free of charge."]]);
    const doc = await readyDocument(ws, kb, await upload(ws, kb, "implants.pdf", pdf, "application/pdf"));
    expect(doc).toMatchObject({ status: "ready", contentType: "application/pdf", sizeBytes: pdf.length });
    const implants = await query(ws, kb, "Is an implant consultation free?", 1);
    expect(implants.data[0]?.documentId).toBe(doc.id);
    expect(implants.data[0]?.content).toContain("free of charge");
  });

  it("imports a URL", async () => {
    const doc = await readyDocument(
      ws,
      kb,
      await ws.api(`/v1/knowledge-bases/${kb}/documents`, { method: "POST", json: { type: "url", url: site.url } }),
    );
    expect(doc).toMatchObject({ status: "ready", source: "url", url: site.url, name: site.url, contentType: "text/markdown" });
    expect(site.received[0]?.headers["user-agent"]).toBe("Service-Knowledge/1.0");
    expect((await query(ws, kb, "Can I return a product?", 1)).data[0]?.documentId).toBe(doc.id);
  });

  it("counts what a knowledge base holds and meters every embedding", async () => {
    const base = await json<KnowledgeBaseView>(await ws.api(`/v1/knowledge-bases/${kb}`));
    expect(base.documentCount).toBe(4);
    expect(base.chunkCount).toBeGreaterThanOrEqual(7);
    expect(base.sizeBytes).toBeGreaterThan(0);
    const usage = await json<{ requests: { data: Array<{ modality: string; endpoint: string; status: number; quantity: number }> } }>(
      await ws.api("/v1/usage?limit=100"),
    );
    const embeddings = usage.requests.data.filter((r) => r.modality === "embedding");
    expect(embeddings.some((r) => r.endpoint === `/v1/knowledge-bases/${kb}/documents` && r.status === 200 && r.quantity > 0)).toBe(true);
    expect(embeddings.some((r) => r.endpoint === `/v1/knowledge-bases/${kb}/query` && r.status === 200 && r.quantity > 0)).toBe(true);
  });

  it("links an agent to its own workspace's knowledge bases only, and unlinks a deleted one", async () => {
    const other = await createWorkspace("Other");
    const theirs = await json<KnowledgeBaseView>(await other.api("/v1/knowledge-bases", { method: "POST", json: { name: "Theirs" } }));
    const refused = await ws.api("/v1/agents", {
      method: "POST",
      json: { name: "Desk", personaId: PERSONA, knowledge: { knowledgeBaseIds: [theirs.id] } },
    });
    await expectError(refused, 400, "validation_failed");
    const spare = await json<KnowledgeBaseView>(await ws.api("/v1/knowledge-bases", { method: "POST", json: { name: "Spare" } }));
    const created = await ws.api("/v1/agents", {
      method: "POST",
      json: { name: "Desk", personaId: PERSONA, knowledge: { knowledgeBaseIds: [kb, spare.id], topK: 4 } },
    });
    expect(created.status).toBe(201);
    const agent = await json<{ id: string; knowledge: Record<string, unknown> }>(created);
    expect(agent.knowledge).toEqual({ knowledgeBaseIds: [kb, spare.id], topK: 4, maxDistance: null, retrieval: "every_turn" });
    const patched = await ws.api(`/v1/agents/${agent.id}`, { method: "PATCH", json: { knowledge: { retrieval: "tool" } } });
    expect((await json<{ knowledge: Record<string, unknown> }>(patched)).knowledge).toMatchObject({ topK: 4, retrieval: "tool" });
    expect((await ws.api(`/v1/knowledge-bases/${spare.id}`, { method: "DELETE" })).status).toBe(204);
    const after = await json<{ knowledge: { knowledgeBaseIds: string[] } }>(await ws.api(`/v1/agents/${agent.id}`));
    expect(after.knowledge.knowledgeBaseIds).toEqual([kb]);
    await expectError(await ws.api(`/v1/knowledge-bases/${spare.id}`), 404, "not_found");
  });

  it("leaves out passages farther than maxDistance, and returns at most topK", async () => {
    const q = "How much does a cleaning cost?";
    const all = (await query(ws, kb, q, 20)).data;
    expect(all.length).toBeGreaterThanOrEqual(4);
    const [first, second] = all as [PassageView, PassageView];
    expect(first.distance).toBeLessThan(second.distance);
    const limited = async (body: Record<string, unknown>) => {
      const res = await ws.api(`/v1/knowledge-bases/${kb}/query`, { method: "POST", json: { query: q, ...body } });
      expect(res.status).toBe(200);
      return (await json<{ data: PassageView[] }>(res)).data.map((p) => p.chunkId);
    };
    expect(await limited({ topK: 20, maxDistance: (first.distance + second.distance) / 2 })).toEqual([first.chunkId]);
    expect(await limited({ topK: 20, maxDistance: first.distance / 2 })).toEqual([]);
    expect(await limited({ topK: 20, maxDistance: 2 })).toEqual(all.map((p) => p.chunkId));
    // At most topK, 5 by default (a passage at the same distance as the last one kept may take its place).
    const distances = async (body: Record<string, unknown>) => {
      const res = await ws.api(`/v1/knowledge-bases/${kb}/query`, { method: "POST", json: { query: q, ...body } });
      return (await json<{ data: PassageView[] }>(res)).data.map((p) => p.distance);
    };
    expect(await distances({ topK: 2 })).toEqual([first.distance, second.distance]);
    expect(await distances({})).toEqual(all.slice(0, 5).map((p) => p.distance));
    const wrong = await ws.api(`/v1/knowledge-bases/${kb}/query`, { method: "POST", json: { query: q, maxDistance: 2.5 } });
    await expectError(wrong, 400, "validation_failed");
  });

  it("deletes a document's passages with it, and another workspace finds nothing of ours", async () => {
    const before = await query(ws, kb, "Where can I park?", 1);
    const parking = before.data[0] as PassageView;
    expect((await ws.api(`/v1/knowledge-bases/${kb}/documents/${parking.documentId}`, { method: "DELETE" })).status).toBe(204);
    const after = await query(ws, kb, "Where can I park?", 10);
    expect(after.data.some((p) => p.documentId === parking.documentId)).toBe(false);
    const other = await createWorkspace("Snoop");
    await expectError(await other.api(`/v1/knowledge-bases/${kb}/query`, { method: "POST", json: { query: "parking" } }), 404, "not_found");
  });
});

describe("retrieval in conversations", () => {
  it("puts the passages the visitor's words find before them, so the agent answers from the knowledge base", async () => {
    const ws = await createWorkspace("Retrieval");
    const kb = await json<KnowledgeBaseView>(await ws.api("/v1/knowledge-bases", { method: "POST", json: { name: "Office" } }));
    await readyDocument(
      ws,
      kb.id,
      await ws.api(`/v1/knowledge-bases/${kb.id}/documents`, { method: "POST", json: { type: "text", name: "Prices", text: PRICES } }),
    );
    const created = await ws.api("/v1/agents", {
      method: "POST",
      json: { name: "Desk", personaId: PERSONA, knowledge: { knowledgeBaseIds: [kb.id], topK: 2 } },
    });
    const agent = await json<{ id: string }>(created);
    const widget = await createWidget(ws, { agentId: agent.id });
    const visitorId = visitor();
    const answer = await widgetChat(widget.token, { visitorId, message: "How much does teeth whitening cost?" });
    expect(answer.reply.text).toBe('From "Prices": Teeth whitening costs 250 dollars and needs two visits.');
    const usage = await json<{ requests: { data: Array<{ modality: string; chatId?: string | null; status: number }> } }>(
      await ws.api("/v1/usage?limit=100"),
    );
    expect(usage.requests.data.filter((r) => r.modality === "embedding" && r.status === 200).length).toBeGreaterThanOrEqual(2);

    // The same agent without knowledge bases answers as before (the sandbox echoes) in a new conversation; the one
    // under way keeps the version it started with (docs/agents.md, "What runs which version").
    await ws.api(`/v1/agents/${agent.id}`, { method: "PATCH", json: { knowledge: { knowledgeBaseIds: [] } } });
    const plain = await widgetChat(widget.token, { visitorId, message: "How much does teeth whitening cost?" });
    expect(plain.sessionId).not.toBe(answer.sessionId);
    expect(plain.reply.text).toBe("You said: How much does teeth whitening cost?");
    const sameChat = await widgetChat(widget.token, {
      visitorId,
      sessionId: answer.sessionId,
      message: "How much does teeth whitening cost?",
    });
    expect(sameChat.reply.text).toBe('From "Prices": Teeth whitening costs 250 dollars and needs two visits.');

    // Retrieval only when asked: the LLM is offered search_knowledge and gets the passages as its result.
    await ws.api(`/v1/agents/${agent.id}`, {
      method: "PATCH",
      json: { knowledge: { knowledgeBaseIds: [kb.id], retrieval: "tool", topK: 1 } },
    });
    const asked = await widgetChat(widget.token, { visitorId, message: "Please search knowledge: whitening cost" });
    expect(asked.reply.text).toMatch(
      /^The tool search_knowledge returned: \{"passages":\[\{"source":"Prices","heading":"Prices › Whitening","text":"Teeth whitening costs 250 dollars/,
    );
    const chat = await json<{ transcript: { turns: Array<{ role: string; tool?: { name: string; outcome: string } }> } }>(
      await ws.api(`/v1/chats/${asked.sessionId}`),
    );
    expect(chat.transcript.turns.filter((t) => t.role === "tool").map((t) => t.tool)).toMatchObject([
      { name: "search_knowledge", outcome: "ok" },
    ]);
  });
});

describe("an agent's topK and maxDistance", () => {
  it("decide which passages reach the LLM, as the chat's agent turns list them", async () => {
    const ws = await createWorkspace("Retrieval limits");
    const kb = await json<KnowledgeBaseView>(await ws.api("/v1/knowledge-bases", { method: "POST", json: { name: "Office" } }));
    await readyDocument(
      ws,
      kb.id,
      await ws.api(`/v1/knowledge-bases/${kb.id}/documents`, { method: "POST", json: { type: "text", name: "Prices", text: PRICES } }),
    );
    // Six words or more: the chat searches them alone, as the query route does.
    const question = "How much does teeth whitening cost?";
    const nearest = (await query(ws, kb.id, question, 3)).data;
    const [first, second] = nearest as [PassageView, PassageView];
    expect(first.heading).toBe("Prices › Whitening");
    expect(first.distance).toBeLessThan(second.distance);

    const agent = await json<{ id: string }>(
      await ws.api("/v1/agents", {
        method: "POST",
        json: { name: "Desk", personaId: PERSONA, knowledge: { knowledgeBaseIds: [kb.id], topK: 1 } },
      }),
    );
    const widget = await createWidget(ws, { agentId: agent.id });
    const visitorId = visitor();
    const sessions: string[] = [];
    /** The agent's reply with `plan` (in a new conversation: one under way keeps its version), and the passages its turn lists. */
    const ask = async (plan: Record<string, unknown>) => {
      const patched = await ws.api(`/v1/agents/${agent.id}`, { method: "PATCH", json: { knowledge: plan } });
      expect(patched.status).toBe(200);
      const answer = await widgetChat(widget.token, { visitorId, message: question });
      sessions.push(answer.sessionId);
      const turn = (await getChat(ws, answer.sessionId)).transcript.turns.filter((t) => t.role === "agent").at(-1);
      return { text: answer.reply.text, passages: turn?.knowledge?.passages.map((p) => p.chunkId) };
    };
    const answered = 'From "Prices": Teeth whitening costs 250 dollars and needs two visits.';

    expect(await ask({ topK: 1, maxDistance: null })).toEqual({ text: answered, passages: [first.chunkId] });
    expect(await ask({ topK: 3 })).toEqual({ text: answered, passages: nearest.map((p) => p.chunkId) });
    expect(await ask({ topK: 3, maxDistance: (first.distance + second.distance) / 2 })).toEqual({
      text: answered,
      passages: [first.chunkId],
    });
    // Nothing close enough: nothing reaches the LLM, which answers without (the sandbox echoes).
    expect(await ask({ topK: 3, maxDistance: first.distance / 2 })).toEqual({ text: `You said: ${question}`, passages: [] });
    const chat = await getChat(ws, sessions[0] as string);
    expect(chat.transcript.turns.find((t) => t.role === "agent")?.knowledge?.passages[0]).toEqual({
      chunkId: first.chunkId,
      documentId: first.documentId,
      documentName: "Prices",
      score: first.score,
    });
  });
});
