// Tools in chats (docs/tools.md), through the real worker, the chat sandbox (which calls the
// tools a message names and reads their results back) and a local tool server that verifies each
// request with the webhook verifier of docs/webhooks.md: a widget chat and a Telegram
// conversation that call a tool and say its answer; tools called in parallel; a timeout, a 500,
// a text answer, an answer over the cap (gzipped under it) and arguments that fail the schema,
// each spoken about and recorded; forged and replayed requests refused by the customer's
// verifier; end_call ending the chat.
import { and, eq } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { usageEvents } from "../../../src/db/schema";
import { receiversPerTest } from "../../support/deliveries";
import { createWorkspace, json, request, signIn, testDb, until, type Workspace } from "../../support/harness";
import { connectTelegram, telegram } from "../../support/messaging";
import { agentWithTools, startToolServer, type ToolServer } from "../../support/tools";
import { chat, createWidget, visitor } from "../../support/widgets";
import { getChat } from "../chats/helpers";

const { subscribed } = receiversPerTest();
const servers: ToolServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

async function setup(opts: { delayMs?: number } = {}) {
  const ws = await createWorkspace();
  const server = await startToolServer(opts);
  servers.push(server);
  const res = await ws.api("/v1/agents", { method: "POST", json: agentWithTools(server.url) });
  expect(res.status, await res.clone().text()).toBe(201);
  const agent = await json<{ id: string; name: string; toolSecret: string; tools: unknown[] }>(res);
  expect(agent.toolSecret).toMatch(/^tss_[A-Za-z0-9]{40}$/);
  server.secret = agent.toolSecret;
  return { ws, server, agent };
}

async function widgetOf(ws: Workspace, agentId: string) {
  return createWidget(ws, { agentId });
}

const toolTurns = <T extends { role: string }>(turns: T[]) => turns.filter((t) => t.role === "tool");

describe("a widget chat with tools", () => {
  it("calls the tool the visitor asks for, signed; its answer is in the next reply; the chat records and counts it", async () => {
    const { ws, server, agent } = await setup();
    const widget = await widgetOf(ws, agent.id);
    const v = visitor();
    const reply = await chat(widget.token, { visitorId: v, message: "Can you lookup order 42 for me?" });

    // The customer's server got one signed request, verified with the webhook verifier.
    expect(server.requests).toHaveLength(1);
    const [req] = server.requests;
    expect(req?.verified).toBe(true);
    expect(req?.status).toBe(200);
    expect(req?.headers["x-service-event"]).toBe("tool.call");
    expect(req?.headers["user-agent"]).toBe("Service-Tools/1.0");
    expect(req?.json).toMatchObject({
      id: req?.headers["x-service-delivery-id"],
      event: "tool.call",
      toolCall: { name: "lookup_order", arguments: { orderId: expect.any(String) } },
      chat: { id: reply.sessionId, channel: "widget" },
      call: null,
      agent: { id: agent.id, name: "Order desk" },
      metadata: {},
    });
    expect(String((req?.json?.toolCall as { id: string }).id)).toMatch(/^call_/);

    // What was said while it ran, then the model's answer built from the tool's JSON.
    expect(reply.reply.text).toMatch(
      /^One moment, let me check\. The tool lookup_order returned: \{"status":"shipped","carrier":"Parcelo"/,
    );
    expect(reply).toMatchObject({ ended: false });

    const view = await getChat(ws, reply.sessionId);
    expect(view.toolCallCount).toBe(1);
    const roles = view.transcript.turns.map((t) => t.role);
    expect(roles).toEqual(["user", "agent", "tool", "agent"]);
    const [tool] = toolTurns(view.transcript.turns);
    expect(tool?.tool).toMatchObject({
      name: "lookup_order",
      outcome: "ok",
      statusCode: 200,
      requestId: req?.headers["x-service-delivery-id"],
      result: expect.stringContaining('"status":"shipped"'),
    });
    expect(tool?.tool?.latencyMs).toEqual(expect.any(Number));
    expect(view.transcript.fullText).toContain("Tool: lookup_order: ok (");

    // The dashboard's chat screen shows the tool turn, its outcome and its request id.
    const { cookie } = await signIn(ws.admin.email, ws.admin.password);
    const html = await (await request(`/dashboard/chats/${reply.sessionId}`, { headers: { cookie } })).text();
    expect(html).toContain('<span class="role">Tool</span>');
    expect(html).toContain("tool ok");
    expect(html).toContain(`request ${req?.headers["x-service-delivery-id"]}`);
    expect(html).toMatch(/<strong>Tool calls<\/strong>\s*1/);

    // Metered: two LLM rounds (the tool call, then the answer), both tagged with the chat.
    const rows = await until(
      () =>
        testDb()
          .select()
          .from(usageEvents)
          .where(and(eq(usageEvents.chatId, reply.sessionId), eq(usageEvents.status, 200))),
      (r) => r.length === 2,
    );
    expect(rows.every((r) => r.modality === "chat" && (r.promptTokens ?? 0) > 0)).toBe(true);
    expect((await getChat(ws, reply.sessionId)).cost.requests).toBe(2);

    // The next message carries the history with the tool turn: the model sees the call and its result.
    const next = await chat(widget.token, { visitorId: v, sessionId: reply.sessionId, message: "thanks" });
    expect(next.reply.text).toBe("You said: thanks.");
    expect(server.requests).toHaveLength(1);
  });

  it("runs the tools of one answer in parallel and gives every result back", async () => {
    const { ws, server, agent } = await setup({ delayMs: 600 });
    const widget = await widgetOf(ws, agent.id);
    const reply = await chat(widget.token, { visitorId: visitor(), message: "lookup order 7 and check stock too" });
    expect(server.requests.map((r) => r.path).sort()).toEqual(["/order", "/stock"]);
    const [a, b] = server.requests;
    // The second request arrived before the first was answered: they ran side by side.
    expect(b?.receivedAt).toBeLessThan(a?.answeredAt ?? 0);
    expect(reply.reply.text).toContain("The tool lookup_order returned:");
    expect(reply.reply.text).toContain('The tool check_stock returned: {"inStock":7}.');
    const view = await getChat(ws, reply.sessionId);
    expect(view.toolCallCount).toBe(2);
    expect(toolTurns(view.transcript.turns).map((t) => t.tool?.outcome)).toEqual(["ok", "ok"]);
  });

  it.each([
    ["slow tool", "slow_tool", "timeout", "timed out after 1 s", null],
    ["broken tool", "broken_tool", "http_error", "answered HTTP 500", 500],
    ["chatty tool", "chatty_tool", "invalid_json", "the answer is not JSON", 200],
    ["bloated tool", "bloated_tool", "invalid_json", "the answer is larger than 16384 bytes", 200],
  ] as const)("speaks about a failing tool (%s) and records why", async (said, name, outcome, error, statusCode) => {
    const { ws, server, agent } = await setup();
    const widget = await widgetOf(ws, agent.id);
    const reply = await chat(widget.token, { visitorId: visitor(), message: `please use the ${said}` });
    // The reply did not wait for the slow tool's answer (it would come 40 s later).
    if (outcome === "timeout") expect(server.requests[0]?.answeredAt).toBeNull();
    // The default failure message (the tool has none of its own), then the model, which got an error result.
    expect(reply.reply.text).toMatch(
      /^Sorry, something went wrong on my side while checking that\. The tool \w+ returned: \{"error":"The tool failed: /,
    );
    expect(reply.reply.text).toContain(error);
    expect(server.requests).toHaveLength(1);
    const [tool] = toolTurns((await getChat(ws, reply.sessionId)).transcript.turns);
    expect(tool?.tool).toMatchObject({ name, outcome, statusCode, error: expect.stringContaining(error) });
    expect(tool?.text).toContain(`${name}: failed`);
    if (outcome === "timeout") {
      // Given up at the tool's 1 s timeout, as the worker timed the request (the whole chat's time,
      // its model rounds included, is the machine's load).
      expect(tool?.tool?.latencyMs).toBeGreaterThanOrEqual(900);
      expect(tool?.tool?.latencyMs).toBeLessThan(4_500);
    }
  });

  it("refuses arguments that fail the tool's schema: nothing is sent, the tool's failure message is said", async () => {
    const { ws, server, agent } = await setup();
    const widget = await widgetOf(ws, agent.id);
    const reply = await chat(widget.token, { visitorId: visitor(), message: "run the pin check" });
    expect(server.requests).toHaveLength(0);
    expect(reply.reply.text).toContain("do not match the tool's parameters");
    const [tool] = toolTurns((await getChat(ws, reply.sessionId)).transcript.turns);
    expect(tool?.tool).toMatchObject({ name: "pin_check", outcome: "invalid_arguments", requestId: null, statusCode: null });
  });

  it("signs so that a forged or replayed request fails the customer's verifier, and a rotated secret signs from then on", async () => {
    const { ws, server, agent } = await setup();
    const widget = await widgetOf(ws, agent.id);
    await chat(widget.token, { visitorId: visitor(), message: "lookup order 9" });
    const [original] = server.requests;
    expect(original?.status).toBe(200);

    // Replayed as captured: the signature is good, the request id is served already.
    expect((await server.replay(original as NonNullable<typeof original>)).status).toBe(409);
    // The body changed (another order), the signature kept: refused.
    const forgedBody = (original?.body ?? "").replace('"lookup_order"', '"cancel_order"');
    expect((await server.replay(original as NonNullable<typeof original>, { body: forgedBody })).status).toBe(401);
    // Signed with another agent's secret: refused.
    const other = await setup();
    const { signPayload } = await import("../../../src/webhooks/signature");
    const requestId = crypto.randomUUID();
    const fresh = (original?.body ?? "").replace(String(original?.json?.id), requestId);
    const sent = original as NonNullable<typeof original>;
    expect(
      (await server.replay(sent, { body: fresh, requestId, signature: await signPayload(other.agent.toolSecret, fresh) })).status,
    ).toBe(401);
    // Signed with the agent's own secret, the same fresh body passes (the checks above fail for their reason only).
    expect((await server.replay(sent, { body: fresh, requestId, signature: await signPayload(agent.toolSecret, fresh) })).status).toBe(200);
    // A captured request replayed after the verifier's tolerance (5 minutes): refused on its timestamp.
    const old = (original?.body ?? "").replace(String(original?.json?.id), crypto.randomUUID());
    const oldId = String(JSON.parse(old).id);
    const stale = await signPayload(agent.toolSecret, old, Math.floor(Date.now() / 1000) - 301);
    expect((await server.replay(sent, { body: old, requestId: oldId, signature: stale })).status).toBe(401);

    // Rotation: the new secret signs the next call; the old one no longer verifies.
    const rotated = await json<{ toolSecret: string }>(await ws.api(`/v1/agents/${agent.id}/rotate-tool-secret`, { method: "POST" }));
    expect(rotated.toolSecret).toMatch(/^tss_[A-Za-z0-9]{40}$/);
    expect(rotated.toolSecret).not.toBe(agent.toolSecret);
    const before = server.requests.length;
    await chat(widget.token, { visitorId: visitor(), message: "lookup order 10" });
    expect(server.requests[before]?.verified).toBe(false);
    server.secret = rotated.toolSecret;
    await chat(widget.token, { visitorId: visitor(), message: "lookup order 11" });
    expect(server.requests[before + 1]?.verified).toBe(true);
    // Shown masked afterwards.
    const read = await json<{ toolSecret: string }>(await ws.api(`/v1/agents/${agent.id}`));
    expect(read.toolSecret).toBe(`tss_...${rotated.toolSecret.slice(-6)}`);
  });

  it("ends the chat when the model calls end_call: agent-ended, widget.completed, the goodbye said", async () => {
    const { ws, agent } = await setup();
    const { receiver } = await subscribed(ws, { channels: ["widget"], events: ["widget.completed"] });
    const widget = await widgetOf(ws, agent.id);
    const v = visitor();
    const first = await chat(widget.token, { visitorId: v, message: "hello" });
    const bye = await chat(widget.token, { visitorId: v, sessionId: first.sessionId, message: "that is all, you can end call now" });
    expect(bye).toMatchObject({ sessionId: first.sessionId, ended: true, reply: { text: "Thanks for chatting, goodbye!" } });
    const view = await getChat(ws, first.sessionId);
    expect(view).toMatchObject({ status: "completed", endedReason: "agent-ended", toolCallCount: 1 });
    expect(toolTurns(view.transcript.turns)[0]?.tool).toMatchObject({ name: "end_call", outcome: "ok" });
    const [completed] = await receiver.waitFor(1);
    const body = JSON.parse(completed?.body ?? "{}");
    expect(body).toMatchObject({
      event: "widget.completed",
      chat: { id: first.sessionId, status: "completed" },
      metadata: { endedReason: "agent-ended" },
    });
    expect(body.transcript.turns.find((t: { role: string }) => t.role === "tool")).toMatchObject({
      tool: { name: "end_call", outcome: "ok" },
    });
    // The next message starts a new session.
    const again = await chat(widget.token, { visitorId: v, message: "hi again" });
    expect(again.started).toBe(true);
  });
});

describe("a Telegram conversation with tools", () => {
  it("sends the tool's start message at once, calls the tool signed, and says its answer; end_call ends it", async () => {
    const { ws, server, agent } = await setup();
    const { bot } = await connectTelegram(ws, { agentId: agent.id });
    const userId = 700_000 + Math.floor(Math.random() * 100_000);
    await telegram.send(bot, userId, { text: "lookup order 42 please" });
    const first = await telegram.next(bot, userId);
    expect(first.text).toBe("One moment, let me check.");
    const second = await telegram.next(bot, userId, first.message_id);
    expect(second.text).toMatch(/^The tool lookup_order returned: \{"status":"shipped"/);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.verified).toBe(true);
    const sessionId = String((server.requests[0]?.json?.chat as { id: string }).id);
    expect(server.requests[0]?.json?.chat).toEqual({ id: sessionId, channel: "telegram" });

    const view = await until(
      () => getChat(ws, sessionId),
      (c) => c.transcript.turns.length >= 4,
    );
    expect(view.transcript.turns.map((t) => t.role)).toEqual(["user", "agent", "tool", "agent"]);
    expect(view.toolCallCount).toBe(1);
    expect(view.cost.requests).toBe(2);

    await telegram.send(bot, userId, { text: "thanks, end call" });
    const bye = await telegram.next(bot, userId, second.message_id);
    expect(bye.text).toBe("Thanks for chatting, goodbye!");
    const ended = await until(
      () => getChat(ws, sessionId),
      (c) => c.status === "completed",
    );
    expect(ended.endedReason).toBe("agent-ended");
  });
});
