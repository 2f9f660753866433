// Widgets that work. /v1/widgets with an API key: create with defaults, list, update, delete,
// rotate and revoke the token. The public routes as the embedded script calls them: widget.js,
// the configuration the script renders, a chat session from the first message to its end with
// both webhooks, the agent's prompt, metering, and voice; and the end of idle sessions by the
// cron sweep (widget.completed). Refusals: errors.test.ts; rate limits: limits.test.ts; the
// widget in a browser: browser.test.ts.
import { randomUUID } from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { MAX_CHAT_TURNS, sweepIdleChats } from "../../../src/chats/runtime";
import { chats, organizations, usageEvents } from "../../../src/db/schema";
import type { WidgetView } from "../../../src/widgets/schema";
import { createAgent, joinWebCall, waitForCall } from "../../support/calls";
import { eventsWritten, receiversPerTest } from "../../support/deliveries";
import { baseUrl, createWorkspace, expectError, json, settled, testDb } from "../../support/harness";
import { asCronRun, triggerCron } from "../../support/scheduled";
import { stripeAccepts } from "../../support/stripe";
import { chat, createWidget, SITE, visitor, widgetRequest } from "../../support/widgets";

const { subscribed } = receiversPerTest();

describe("POST /v1/widgets", () => {
  it("creates a widget with defaults, a public token and the embed code", async () => {
    const ws = await createWorkspace();
    const agent = await createAgent(ws);
    const res = await ws.api("/v1/widgets", {
      method: "POST",
      json: { agentId: agent.id, name: "Pricing page", allowedOrigins: ["https://www.example.com"] },
    });
    expect(res.status).toBe(201);
    const widget = await json<WidgetView>(res);
    expect(res.headers.get("location")).toBe(`/v1/widgets/${widget.id}`);
    expect(widget).toMatchObject({
      agentId: agent.id,
      name: "Pricing page",
      mode: "chat",
      allowedOrigins: ["https://www.example.com"],
      title: null,
      greeting: null,
      colors: { accent: "#4f46e5", accentText: "#ffffff", background: "#ffffff", text: "#1f2937" },
      position: "bottom-right",
      status: "active",
      tokenRotatedAt: null,
      revokedAt: null,
    });
    expect(widget.token).toMatch(/^wgt_[0-9A-Za-z]{32}$/);
    expect(widget.embedCode).toMatch(
      new RegExp(`^<script src="http://127\\.0\\.0\\.1:\\d+/widget\\.js" data-service-token="${widget.token}" async></script>$`),
    );
    expect(await json<WidgetView>(await ws.api(`/v1/widgets/${widget.id}`))).toEqual(widget);
  });

  it("normalizes origins and colours", async () => {
    const ws = await createWorkspace();
    const widget = await createWidget(ws, {
      allowedOrigins: [
        "https://WWW.Example.com/",
        "https://www.example.com:443",
        "http://localhost:3000",
        "https://*.Example.org",
        " https://shop.example.com ",
      ],
      colors: { accent: "#0F766E", text: "#ABC" },
    });
    expect(widget.allowedOrigins).toEqual([
      "https://www.example.com",
      "http://localhost:3000",
      "https://*.example.org",
      "https://shop.example.com",
    ]);
    expect(widget.colors).toEqual({ accent: "#0f766e", accentText: "#ffffff", background: "#ffffff", text: "#aabbcc" });
  });
});

describe("list, update, delete", () => {
  it("lists newest first, filters by agent, pages with a cursor", async () => {
    const ws = await createWorkspace();
    const a = await createAgent(ws);
    const w1 = await createWidget(ws, { agentId: a.id });
    const w2 = await createWidget(ws);
    const w3 = await createWidget(ws, { agentId: a.id });
    const page = await json<{ data: WidgetView[]; hasMore: boolean; nextCursor: string }>(await ws.api("/v1/widgets?limit=2"));
    expect(page.data.map((w) => w.id)).toEqual([w3.id, w2.id]);
    expect(page.hasMore).toBe(true);
    const next = await json<{ data: WidgetView[]; hasMore: boolean }>(await ws.api(`/v1/widgets?limit=2&cursor=${page.nextCursor}`));
    expect(next).toMatchObject({ hasMore: false, data: [{ id: w1.id }] });
    const mine = await json<{ data: WidgetView[] }>(await ws.api(`/v1/widgets?agentId=${a.id}`));
    expect(mine.data.map((w) => w.id)).toEqual([w3.id, w1.id]);
    expect((await json<{ data: unknown[] }>(await (await createWorkspace()).api("/v1/widgets"))).data).toEqual([]);
  });

  it("updates only the fields sent; colours merge", async () => {
    const ws = await createWorkspace();
    const widget = await createWidget(ws, { colors: { accent: "#111111" }, greeting: "Hello" });
    const res = await ws.api(`/v1/widgets/${widget.id}`, {
      method: "PATCH",
      json: { colors: { text: "#222222" }, mode: "both", greeting: null },
    });
    expect(res.status).toBe(200);
    const updated = await json<WidgetView>(res);
    expect(updated).toMatchObject({ mode: "both", greeting: null, token: widget.token, name: widget.name });
    expect(updated.colors).toEqual({ accent: "#111111", accentText: "#ffffff", background: "#ffffff", text: "#222222" });
    await expectError(await ws.api(`/v1/widgets/${widget.id}`, { method: "PATCH", json: {} }), 400, "validation_failed");
    // The page picks the change up on its next load.
    const config = await json<{ mode: string; colors: { text: string } }>(
      await widgetRequest("/widget/v1/config", { token: widget.token }),
    );
    expect(config).toMatchObject({ mode: "both", colors: { text: "#222222" } });
  });

  it("deletes a widget: its token stops, its sessions stay with the workspace", async () => {
    const ws = await createWorkspace();
    const widget = await createWidget(ws);
    const { sessionId } = await chat(widget.token, { visitorId: visitor(), message: "Hi" });
    expect((await ws.api(`/v1/widgets/${widget.id}`, { method: "DELETE" })).status).toBe(204);
    await expectError(await ws.api(`/v1/widgets/${widget.id}`), 404, "not_found");
    await expectError(await ws.api(`/v1/widgets/${widget.id}`, { method: "DELETE" }), 404, "not_found");
    await expectError(await widgetRequest("/widget/v1/config", { token: widget.token }), 401, "unauthorized");
    const [row] = await testDb().select().from(chats).where(eq(chats.id, sessionId));
    expect(row).toMatchObject({ organizationId: ws.organizationId, widgetId: null });
  });

  it("deleting the agent deletes its widgets", async () => {
    const ws = await createWorkspace();
    const agent = await createAgent(ws);
    const widget = await createWidget(ws, { agentId: agent.id });
    expect((await ws.api(`/v1/agents/${agent.id}`, { method: "DELETE" })).status).toBe(204);
    await expectError(await ws.api(`/v1/widgets/${widget.id}`), 404, "not_found");
  });
});

describe("token rotation and revocation", () => {
  it("rotates: a new token works at once, the old one never again", async () => {
    const ws = await createWorkspace();
    const widget = await createWidget(ws);
    const res = await ws.api(`/v1/widgets/${widget.id}/rotate-token`, { method: "POST" });
    expect(res.status).toBe(200);
    const rotated = await json<WidgetView>(res);
    expect(rotated.token).not.toBe(widget.token);
    expect(rotated.tokenRotatedAt).toBeTruthy();
    expect(rotated.embedCode).toContain(rotated.token);
    expect((await widgetRequest("/widget/v1/config", { token: rotated.token })).status).toBe(200);
    await expectError(await widgetRequest("/widget/v1/config", { token: widget.token }), 401, "unauthorized");
  });

  it("revokes once (409 after), and rotation reactivates under a new token", async () => {
    const ws = await createWorkspace();
    const widget = await createWidget(ws);
    const revoked = await json<WidgetView>(await ws.api(`/v1/widgets/${widget.id}/revoke`, { method: "POST" }));
    expect(revoked).toMatchObject({ status: "revoked", token: widget.token });
    expect(revoked.revokedAt).toBeTruthy();
    await expectError(await widgetRequest("/widget/v1/config", { token: widget.token }), 401, "unauthorized");
    await expectError(await ws.api(`/v1/widgets/${widget.id}/revoke`, { method: "POST" }), 409, "conflict");

    const back = await json<WidgetView>(await ws.api(`/v1/widgets/${widget.id}/rotate-token`, { method: "POST" }));
    expect(back).toMatchObject({ status: "active", revokedAt: null });
    expect((await widgetRequest("/widget/v1/config", { token: back.token })).status).toBe(200);
    await expectError(await widgetRequest("/widget/v1/config", { token: widget.token }), 401, "unauthorized");
  });
});

describe("widget.js, the static asset", () => {
  it("is served with long caching, CORS for any page and a script type", async () => {
    const res = await fetch(`${baseUrl()}/widget.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/javascript/);
    expect(res.headers.get("cache-control")).toBe("public, max-age=86400, stale-while-revalidate=604800");
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("cross-origin-resource-policy")).toBe("cross-origin");
    expect(res.headers.get("etag")).toBeTruthy();
    const code = await res.text();
    expect(code).toContain("ServiceWidget");
    expect(code.length).toBeLessThan(100_000);
  });
});

describe("GET /widget/v1/config", () => {
  it("gives what the script renders, and nothing of the agent's configuration", async () => {
    const ws = await createWorkspace();
    const widget = await createWidget(ws, { title: "Ask Acme", colors: { accent: "#0F766E" }, position: "bottom-left", mode: "both" });
    const res = await widgetRequest("/widget/v1/config", { token: widget.token });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const body = await json<Record<string, unknown>>(res);
    expect(body).toEqual({
      widgetId: widget.id,
      mode: "both",
      title: "Ask Acme",
      greeting: null,
      colors: { accent: "#0f766e", accentText: "#ffffff", background: "#ffffff", text: "#1f2937" },
      position: "bottom-left",
    });
  });

  it("falls back to the agent's name and first message", async () => {
    const ws = await createWorkspace();
    const agent = await json<{ id: string }>(
      await ws.api("/v1/agents", {
        method: "POST",
        json: { name: "Front desk", personaId: randomUUID(), firstMessage: "Hi, front desk here.", systemPrompt: "Secret prompt" },
      }),
    );
    const widget = await createWidget(ws, { agentId: agent.id });
    const body = await json<{ title: string; greeting: string }>(await widgetRequest("/widget/v1/config", { token: widget.token }));
    expect(body).toMatchObject({ title: "Front desk", greeting: "Hi, front desk here." });
    expect(JSON.stringify(body)).not.toContain("Secret prompt");
  });
});

describe("a chat session", () => {
  it("starts with the first message (widget.started), continues, and ends on close (widget.completed with the transcript)", async () => {
    const ws = await createWorkspace();
    const { receiver, endpoint } = await subscribed(ws, { channels: ["widget"] });
    const widget = await createWidget(ws, { greeting: "Hi! How can I help?" });
    const v = visitor();

    const first = await chat(widget.token, { visitorId: v, message: "Hello there" });
    expect(first).toMatchObject({ started: true, reply: { role: "agent", text: "You said: Hello there." } });
    const [started] = await receiver.waitFor(1);
    const startedBody = JSON.parse(started?.body ?? "{}");
    expect(startedBody).toMatchObject({
      event: "widget.started",
      channel: "widget",
      chat: { id: first.sessionId, status: "in-progress", agentId: widget.agentId, endedAt: null },
      transcript: null,
      metadata: { widgetId: widget.id, visitorId: v, origin: SITE },
    });
    expect(started?.headers["x-service-event"]).toBe("widget.started");
    expect(stripeAccepts(started?.body ?? "", String(started?.headers["x-service-signature"]), endpoint.secret)).toBe(true);

    const second = await chat(widget.token, { visitorId: v, sessionId: first.sessionId, message: "What are your prices?" });
    expect(second).toMatchObject({ sessionId: first.sessionId, started: false, reply: { text: "You said: What are your prices?" } });

    const end = await widgetRequest(`/widget/v1/sessions/${first.sessionId}/end`, { token: widget.token, json: { visitorId: v } });
    expect(end.status).toBe(204);
    expect(end.headers.get("access-control-allow-origin")).toBe(SITE);
    const [, completed] = await receiver.waitFor(2);
    const body = JSON.parse(completed?.body ?? "{}");
    expect(body).toMatchObject({
      event: "widget.completed",
      chat: { id: first.sessionId, status: "completed", messageCount: 5 },
      metadata: { widgetId: widget.id, endedReason: "visitor-ended" },
    });
    expect(body.chat.endedAt).toBeTruthy();
    expect(body.transcript.turns).toEqual([
      { role: "agent", text: "Hi! How can I help?" },
      { role: "user", text: "Hello there" },
      { role: "agent", text: "You said: Hello there." },
      { role: "user", text: "What are your prices?" },
      { role: "agent", text: "You said: What are your prices?" },
    ]);
    expect(body.transcript.fullText).toBe(
      "Agent: Hi! How can I help?\nUser: Hello there\nAgent: You said: Hello there.\nUser: What are your prices?\nAgent: You said: What are your prices?",
    );
    expect(stripeAccepts(completed?.body ?? "", String(completed?.headers["x-service-signature"]), endpoint.secret)).toBe(true);

    // Ending again changes nothing and sends nothing; the session takes no more messages.
    const again = await widgetRequest(`/widget/v1/sessions/${first.sessionId}/end`, {
      token: widget.token,
      body: JSON.stringify({ visitorId: v }),
      headers: { "content-type": "text/plain;charset=UTF-8" },
    });
    expect(again.status).toBe(204);
    const late = await widgetRequest("/widget/v1/chat", {
      token: widget.token,
      json: { visitorId: v, sessionId: first.sessionId, message: "Still there?" },
    });
    await expectError(late, 409, "session_ended");
    // Both answered: any event they fired is written by now.
    expect(await eventsWritten(ws.organizationId)).toEqual(["widget.started", "widget.completed"]);
    expect(receiver.received).toHaveLength(2);
  });

  it("answers with the agent's system prompt in force", async () => {
    const ws = await createWorkspace();
    const agent = await json<{ id: string }>(
      await ws.api("/v1/agents", {
        method: "POST",
        json: { name: "JSON bot", personaId: randomUUID(), systemPrompt: "Always answer in JSON." },
      }),
    );
    const widget = await createWidget(ws, { agentId: agent.id });
    const { reply } = await chat(widget.token, { visitorId: visitor(), message: "Hi" });
    expect(JSON.parse(reply.text)).toEqual({ reply: "You said: Hi." });
  });

  it("is metered to the workspace, and refused with 402 when it has no credits", async () => {
    const ws = await createWorkspace();
    const widget = await createWidget(ws);
    await chat(widget.token, { visitorId: visitor(), message: "Count me" });
    await settled(ws.organizationId); // the reply does not wait for its settlement
    const rows = await testDb()
      .select()
      .from(usageEvents)
      .where(and(eq(usageEvents.organizationId, ws.organizationId), eq(usageEvents.endpoint, "/widget/v1/chat")));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ modality: "chat", status: 200, apiKeyId: null });
    expect(rows[0]?.costMicro).toBeGreaterThan(0);

    await testDb().update(organizations).set({ creditsMicro: 0 }).where(eq(organizations.id, ws.organizationId));
    const res = await widgetRequest("/widget/v1/chat", { token: widget.token, json: { visitorId: visitor(), message: "Broke" } });
    await expectError(res, 402, "insufficient_credits");
  });
});

describe("voice from the widget", () => {
  it("starts a web call with the widget's agent, which the browser joins and hangs up", async () => {
    const ws = await createWorkspace();
    const agent = await json<{ id: string }>(
      await ws.api("/v1/agents", {
        method: "POST",
        json: { name: "Voice desk", personaId: randomUUID(), llmModel: "sandbox-chat", firstMessage: "Hello from the widget." },
      }),
    );
    const widget = await createWidget(ws, { agentId: agent.id, mode: "voice" });
    const v = visitor();
    const res = await widgetRequest("/widget/v1/web-call", { token: widget.token, json: { visitorId: v } });
    expect(res.status).toBe(201);
    const call = await json<{ callId: string; url: string; sampleRate: number; encoding: string }>(res);
    expect(call).toMatchObject({ sampleRate: 16000, encoding: "pcm_s16le" });
    expect(call.url).toMatch(/^ws:\/\/.+\/web-calls\/.+\/socket\?token=wct_/);

    const client = await joinWebCall(call.url);
    await client.waitForEvent((e) => e.type === "status" && e.status === "in-progress");
    await client.waitForEvent((e) => e.type === "transcript" && e.role === "agent" && e.text === "Hello from the widget.");
    client.ws.send(JSON.stringify({ type: "hangup" }));
    await client.closed;
    const done = await waitForCall(ws, call.callId, (c) => c.status !== "in-progress" && c.status !== "queued");
    expect(done).toMatchObject({ type: "web", status: "completed", endedReason: "customer-ended-call" });
    expect(done.metadata).toMatchObject({ source: "widget", widgetId: widget.id, visitorId: v, origin: SITE });
  }, 60_000);
});

describe("a full chat", () => {
  it("takes a message while there is room for it and its reply, then ends (session-full, 409) and the next message starts anew", async () => {
    const ws = await createWorkspace();
    const { receiver } = await subscribed(ws, { channels: ["widget"], events: ["widget.completed"] });
    const widget = await createWidget(ws);
    const v = visitor();
    const { sessionId } = await chat(widget.token, { visitorId: v, message: "Hi" });
    await testDb()
      .update(chats)
      .set({ messageCount: MAX_CHAT_TURNS - 3 })
      .where(eq(chats.id, sessionId));
    const last = await chat(widget.token, { visitorId: v, sessionId, message: "One more" });
    expect(last).toMatchObject({ sessionId, started: false, reply: { text: "You said: One more." } });
    const [full] = await testDb().select().from(chats).where(eq(chats.id, sessionId));
    expect(full).toMatchObject({ status: "in-progress", messageCount: MAX_CHAT_TURNS - 1 });
    expect(full?.transcript.slice(-2).map((t) => t.text)).toEqual(["One more", "You said: One more."]);

    await expectError(
      await widgetRequest("/widget/v1/chat", { token: widget.token, json: { visitorId: v, sessionId, message: "And another" } }),
      409,
      "session_ended",
    );
    const [event] = await receiver.waitFor(1);
    expect(JSON.parse(event?.body ?? "{}")).toMatchObject({
      event: "widget.completed",
      chat: { id: sessionId, status: "completed", messageCount: MAX_CHAT_TURNS - 1 },
      metadata: { endedReason: "session-full" },
    });
    const [ended] = await testDb().select().from(chats).where(eq(chats.id, sessionId));
    expect(ended?.transcript.map((t) => t.text)).not.toContain("And another");
    const next = await chat(widget.token, { visitorId: v, message: "And another" });
    expect(next.sessionId).not.toBe(sessionId);
  });
});

describe("idle sessions", () => {
  const sweep = (timeoutSeconds: number) => asCronRun((deps) => sweepIdleChats(deps, timeoutSeconds));

  it("ends a session idle past the timeout, once, with widget.completed and the transcript", async () => {
    const ws = await createWorkspace();
    const { receiver } = await subscribed(ws, { channels: ["widget"], events: ["widget.completed"] });
    const widget = await createWidget(ws);
    const v = visitor();
    const idle = await chat(widget.token, { visitorId: v, message: "Are you there?" });
    const fresh = await chat(widget.token, { visitorId: visitor(), message: "Still here" });
    await testDb().update(chats).set({ lastActivityAt: sql`now() - interval '31 minutes'` }).where(eq(chats.id, idle.sessionId));
    expect(await sweep(1800)).toBeGreaterThanOrEqual(1);
    const [event] = await receiver.waitFor(1);
    const body = JSON.parse(event?.body ?? "{}");
    expect(body).toMatchObject({
      event: "widget.completed",
      chat: { id: idle.sessionId, status: "completed", messageCount: 2 },
      metadata: { endedReason: "inactivity" },
      transcript: {
        turns: [
          { role: "user", text: "Are you there?" },
          { role: "agent", text: "You said: Are you there?" },
        ],
      },
    });
    await sweep(1800); // returns once its deliveries were made
    expect(receiver.received).toHaveLength(1);
    const [still] = await testDb().select().from(chats).where(eq(chats.id, fresh.sessionId));
    expect(still?.status).toBe("in-progress");
    // The visitor's next message in the ended session is refused; the widget then starts anew.
    await expectError(
      await widgetRequest("/widget/v1/chat", {
        token: widget.token,
        json: { visitorId: v, sessionId: idle.sessionId, message: "Hello?" },
      }),
      409,
      "session_ended",
    );
  });

  it("runs as the worker's cron trigger (wrangler dev's /__scheduled)", async () => {
    const widget = await createWidget(await createWorkspace());
    const { sessionId } = await chat(widget.token, { visitorId: visitor(), message: "Bye for now" });
    await testDb().update(chats).set({ lastActivityAt: sql`now() - interval '2 hours'` }).where(eq(chats.id, sessionId));
    expect((await triggerCron()).status).toBe(200);
    await expect
      .poll(async () => (await testDb().select().from(chats).where(eq(chats.id, sessionId)))[0]?.endedReason, {
        timeout: 10_000,
      })
      .toBe("inactivity");
  });
});
