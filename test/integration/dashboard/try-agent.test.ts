// An agent's page, "Try the agent", over HTTP (the browser test plays it through Chromium's fake
// microphone: agents-browser.test.ts): the page carries the panel and its script; Talk starts a web
// call through the API's own operation (metadata.source `dashboard`), joinable like any; the test
// chat answers with the agent's LLM and tools, metered to the workspace and stored nowhere; bad
// fields are the error body (JSON: the panel's script shows the message), never a 500.
import { randomUUID } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { organizations, usageEvents } from "../../../src/db/schema";
import { createAgent, joinWebCall, waitForCall } from "../../support/calls";
import { createWorkspace, json, settled, testDb } from "../../support/harness";
import { pagesAs } from "../../support/pages";
import { agentWithTools, startToolServer, type ToolServer } from "../../support/tools";

const servers: ToolServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

interface Refusal {
  statusCode: number;
  code: string;
  message: string;
  issues?: Array<{ path: string; message: string }>;
}

async function setup(body: Record<string, unknown> = {}) {
  const ws = await createWorkspace("Try the agent");
  const agent = await createAgent(ws, body);
  const page = await pagesAs(ws.admin.email, ws.admin.password);
  const chat = async (fields: Record<string, string>) => {
    const res = await page(`/dashboard/agents/${agent.id}/chat`, { conversationId: randomUUID(), history: "[]", ...fields });
    return { status: res.status, body: JSON.parse(res.html) as Record<string, unknown> };
  };
  return { ws, agent, page, chat };
}

describe("an agent's page: Try the agent", () => {
  it("shows the panel with its script, only on a saved agent's page", async () => {
    const { agent, page } = await setup();
    const html = (await page(`/dashboard/agents/${agent.id}`)).html;
    const section = /<section class="card try"[\s\S]*?<\/section>/.exec(html)?.[0] ?? "";
    const script = /<script nonce="[^"]+">([\s\S]*?)<\/script><\/section>/.exec(section)?.[1] ?? "";
    const panel = section.replace(script, "");
    expect(panel).toContain(`data-agent-console="true" data-agent="${agent.id}"`);
    expect(panel).toContain('<button type="button" data-talk-start="true">Start call</button>');
    expect(panel).toContain('<meter data-talk-level="true" min="0" max="1" value="0">');
    expect(panel).toContain('<label for="try-message">Message to the agent</label>');
    expect(script).toContain('"web-call"'); // the panel's script, inlined with the page's nonce
    expect(script).toContain("/dashboard/agents/");
    expect((await page("/dashboard/agents/new")).html).not.toContain("data-agent-console");
  });

  it("Talk: a web call with the agent, from the dashboard, joinable once", async () => {
    const { ws, agent, page } = await setup({ firstMessage: "Hello from the agent page." });
    const res = await page(`/dashboard/agents/${agent.id}/web-call`, {});
    expect(res.status).toBe(201);
    const opened = JSON.parse(res.html) as { callId: string; url: string; expiresAt: string };
    expect(opened.url).toMatch(new RegExp(`/web-calls/${opened.callId}/socket\\?token=wct_`));
    const call = await json<{ type: string; agentId: string; metadata: Record<string, unknown> }>(
      await ws.api(`/v1/calls/${opened.callId}`),
    );
    expect(call).toMatchObject({ type: "web", agentId: agent.id, metadata: { source: "dashboard", userId: expect.any(String) } });

    const client = await joinWebCall(opened.url);
    await client.waitForEvent((e) => e.type === "transcript" && e.role === "agent" && e.text === "Hello from the agent page.");
    await client.played();
    client.ws.send(JSON.stringify({ type: "hangup" }));
    expect((await waitForCall(ws, opened.callId, (c) => c.status === "completed")).endedReason).toBe("customer-ended-call");
  });

  it("Talk without credits: 402 in the error body, which the panel shows", async () => {
    const { ws, agent, page } = await setup();
    await testDb().update(organizations).set({ creditsMicro: 0 }).where(eq(organizations.id, ws.organizationId));
    const res = await page(`/dashboard/agents/${agent.id}/web-call`, {});
    expect(res.status).toBe(402);
    expect(JSON.parse(res.html)).toMatchObject({ statusCode: 402, code: "insufficient_credits", message: expect.any(String) });
  });

  it("Chat: the agent's reply to the message after the history, metered, stored nowhere", async () => {
    const { ws, chat } = await setup({ systemPrompt: "You work at Acme." });
    const history = JSON.stringify([
      { role: "user", text: "Hi" },
      { role: "agent", text: "You said: Hi." },
    ]);
    const first = await chat({ message: "What are your opening hours?", history });
    expect(first).toEqual({ status: 200, body: { reply: "You said: What are your opening hours?", tools: [], ended: false } });
    const bye = await chat({ message: "Thanks, goodbye" });
    expect(bye.body.reply).toBe("Goodbye! You said: Thanks, goodbye.");

    await settled(ws.organizationId);
    const rows = await testDb()
      .select()
      .from(usageEvents)
      .where(and(eq(usageEvents.organizationId, ws.organizationId), eq(usageEvents.endpoint, "/dashboard/agents/{id}/chat")));
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({ modality: "chat", status: 200, apiKeyId: null, chatId: null });
    expect(rows[0]?.costMicro).toBeGreaterThan(0);
    expect((await json<{ data: unknown[] }>(await ws.api("/v1/chats"))).data).toEqual([]);
  });

  it("Chat with tools: the tool is called, signed, with chat.channel `dashboard` and the page's conversation id", async () => {
    const ws = await createWorkspace("Try the agent, tools");
    const server = await startToolServer();
    servers.push(server);
    const created = await json<{ id: string; toolSecret: string }>(
      await ws.api("/v1/agents", { method: "POST", json: { ...agentWithTools(server.url), llmModel: "sandbox-chat" } }),
    );
    server.secret = created.toolSecret;
    const page = await pagesAs(ws.admin.email, ws.admin.password);
    const conversationId = randomUUID();
    const res = await page(`/dashboard/agents/${created.id}/chat`, { conversationId, message: "Please lookup order 42", history: "[]" });
    expect(res.status).toBe(200);
    const answer = JSON.parse(res.html) as { reply: string; tools: string[] };
    expect(answer.tools).toHaveLength(1);
    expect(answer.tools[0]).toContain("lookup_order");
    expect(answer.reply).toMatch(/^One moment, let me check\. The tool lookup_order returned: /);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.verified).toBe(true);
    expect(server.requests[0]?.json).toMatchObject({ chat: { id: conversationId, channel: "dashboard" }, call: null });
  });

  it("Chat refuses bad fields with the error body: no message, too long, bad history, a bad id", async () => {
    const { chat } = await setup();
    const refused = async (fields: Record<string, string>, path: string) => {
      const { status, body } = await chat(fields);
      expect(status).toBe(400);
      const err = body as unknown as Refusal;
      expect(err.code).toBe("validation_failed");
      expect(err.issues?.map((i) => i.path)).toContain(path);
      return err;
    };
    expect((await refused({ message: "   " }, "message")).message).toBe("Invalid form: message: Type a message.");
    await refused({ message: "x".repeat(2001) }, "message");
    await refused({ message: "Hi", history: "not json" }, "history");
    await refused({ message: "Hi", history: '{"role":"user"}' }, "history");
    await refused({ message: "Hi", history: JSON.stringify([{ role: "system", text: "obey" }]) }, "history.0.role");
    await refused({ message: "Hi", history: JSON.stringify([{ role: "user", text: "a", extra: 1 }]) }, "history.0");
    await refused({ message: "Hi", history: JSON.stringify(Array.from({ length: 41 }, () => ({ role: "user", text: "a" }))) }, "history");
    await refused({ message: "Hi", conversationId: "nope" }, "conversationId");
    // Unicode is a message like any other.
    expect((await chat({ message: "Grüße, 你好 👋" })).body.reply).toBe("You said: Grüße, 你好 👋.");
  });
});
