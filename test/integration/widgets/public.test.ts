// The widget's public routes over HTTP, as the embedded script calls them: the gate (token,
// allowed origin, CORS) on every route of the security table, validation, a chat session from
// the first message to its end with both webhooks, sessions of other visitors, voice, metering.
import { randomUUID } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { organizations, usageEvents, widgetSessions } from "../../../src/db/schema";
import { joinWebCall, waitForCall } from "../../calls";
import { baseUrl, createWorkspace, expectError, json, settled, testDb } from "../../harness";
import { startReceiver } from "../../receiver";
import { ROUTES } from "../../routes";
import { stripeAccepts } from "../../stripe";
import { createEndpoint } from "../../webhooks";
import { chat, createWidget, SITE, visitor, widgetRequest } from "../../widgets";

const PUBLIC = ROUTES.filter((r) => r.path.startsWith("/widget/"));

/** A body each route accepts, and its path with any parameter filled. */
const requestOf = (path: string) => {
  const v = visitor();
  switch (path) {
    case "/widget/v1/chat":
      return { path, json: { visitorId: v, message: "Hello" } };
    case "/widget/v1/sessions/:id/end":
      return { path: `/widget/v1/sessions/${randomUUID()}/end`, json: { visitorId: v } };
    case "/widget/v1/web-call":
      return { path, json: { visitorId: v } };
    default:
      return { path, json: undefined };
  }
};

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

describe("the widget gate, on every public widget route", () => {
  it("lists the four public widget routes in the security table", () => {
    expect(PUBLIC.map((r) => `${r.method} ${r.path}`).sort()).toEqual([
      "GET /widget/v1/config",
      "POST /widget/v1/chat",
      "POST /widget/v1/sessions/:id/end",
      "POST /widget/v1/web-call",
    ]);
  });

  describe.each(PUBLIC)("$method $path", (route) => {
    it("refuses a missing, malformed or unknown token (401, readable by the page)", async () => {
      const { path, json: body } = requestOf(route.path);
      for (const token of [null, "nope", `wgt_${"x".repeat(32)}`, `sk-live-${"x".repeat(40)}`]) {
        const res = await widgetRequest(path, { token, method: route.method, json: body });
        expect(res.headers.get("access-control-allow-origin")).toBe("*");
        await expectError(res, 401, "unauthorized");
      }
    });

    it("refuses a revoked token and a rotated-away token (401)", async () => {
      const ws = await createWorkspace();
      const revoked = await createWidget(ws);
      await ws.api(`/v1/widgets/${revoked.id}/revoke`, { method: "POST" });
      const rotated = await createWidget(ws);
      await ws.api(`/v1/widgets/${rotated.id}/rotate-token`, { method: "POST" });
      for (const token of [revoked.token, rotated.token]) {
        const { path, json: body } = requestOf(route.path);
        await expectError(await widgetRequest(path, { token, method: route.method, json: body }), 401, "unauthorized");
      }
    });

    it("refuses a page on another origin, and a request with no Origin (403)", async () => {
      const ws = await createWorkspace();
      const widget = await createWidget(ws, { mode: "both" });
      for (const origin of ["https://evil.example", "http://shop.example.test", "https://shop.example.test:8443", null]) {
        const { path, json: body } = requestOf(route.path);
        const res = await widgetRequest(path, { token: widget.token, origin, method: route.method, json: body });
        const err = await expectError(res, 403, "origin_not_allowed");
        if (origin) expect(err.message).toContain(origin);
      }
    });

    it("answers a preflight only for an allowed origin", async () => {
      const ws = await createWorkspace();
      const widget = await createWidget(ws);
      const { path } = requestOf(route.path);
      const preflight = (token: string, origin: string) =>
        widgetRequest(path, {
          token,
          origin,
          method: "OPTIONS",
          headers: { "access-control-request-method": route.method, "access-control-request-headers": "content-type" },
        });
      const ok = await preflight(widget.token, SITE);
      expect(ok.status).toBe(204);
      expect(ok.headers.get("access-control-allow-origin")).toBe(SITE);
      expect(ok.headers.get("access-control-allow-methods")).toContain(route.method);
      expect(ok.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("content-type");
      expect(ok.headers.get("vary")).toContain("Origin");

      const refused = await preflight(widget.token, "https://evil.example");
      expect(refused.headers.get("access-control-allow-origin")).toBeNull();
      await expectError(refused, 403, "origin_not_allowed");
      const unknown = await preflight(`wgt_${"y".repeat(32)}`, SITE);
      expect(unknown.headers.get("access-control-allow-origin")).toBeNull();
      await expectError(unknown, 401, "unauthorized");
    });
  });

  it("echoes only the allowed origin on answers with data, and matches subdomain wildcards", async () => {
    const ws = await createWorkspace();
    const widget = await createWidget(ws, { allowedOrigins: ["https://*.example.test", "http://localhost:3000"] });
    for (const origin of ["https://a.example.test", "https://a.b.example.test", "http://localhost:3000"]) {
      const res = await widgetRequest("/widget/v1/config", { token: widget.token, origin });
      expect(res.status).toBe(200);
      expect(res.headers.get("access-control-allow-origin")).toBe(origin);
      expect(res.headers.get("access-control-expose-headers")).toContain("RateLimit");
    }
    for (const origin of [
      "https://example.test",
      "https://a.example.test.evil.example",
      "http://a.example.test",
      "http://localhost:3001",
    ]) {
      await expectError(await widgetRequest("/widget/v1/config", { token: widget.token, origin }), 403, "origin_not_allowed");
    }
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
    const receiver = await startReceiver();
    try {
      const endpoint = await createEndpoint(ws, { url: receiver.url, channels: ["widget"] });
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
      await new Promise((r) => setTimeout(r, 300));
      expect(receiver.received).toHaveLength(2);
    } finally {
      await receiver.stop();
    }
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

  it("reaches only the calling visitor's own session of that widget (404 otherwise)", async () => {
    const ws = await createWorkspace();
    const widget = await createWidget(ws);
    const other = await createWidget(await createWorkspace());
    const v = visitor();
    const { sessionId } = await chat(widget.token, { visitorId: v, message: "Mine" });
    const intruder = visitor();
    await expectError(
      await widgetRequest("/widget/v1/chat", { token: widget.token, json: { visitorId: intruder, sessionId, message: "Let me in" } }),
      404,
      "not_found",
    );
    await expectError(
      await widgetRequest(`/widget/v1/sessions/${sessionId}/end`, { token: widget.token, json: { visitorId: intruder } }),
      404,
      "not_found",
    );
    // Another workspace's widget with the same visitor id cannot reach it either.
    await expectError(
      await widgetRequest("/widget/v1/chat", { token: other.token, json: { visitorId: v, sessionId, message: "Hi" } }),
      404,
      "not_found",
    );
    const [row] = await testDb().select().from(widgetSessions).where(eq(widgetSessions.id, sessionId));
    expect(row).toMatchObject({ status: "in-progress", messageCount: 2 });
  });

  it("validates bodies (400), content types (415) and sizes (413)", async () => {
    const ws = await createWorkspace();
    const widget = await createWidget(ws);
    const v = visitor();
    const bad = async (body: unknown, path = "message") => {
      const err = await expectError(await widgetRequest("/widget/v1/chat", { token: widget.token, json: body }), 400, "validation_failed");
      expect(err.issues?.map((i) => i.path)).toContain(path);
    };
    await bad({ visitorId: v, message: "" });
    await bad({ visitorId: v, message: "   " });
    await bad({ visitorId: v, message: "x".repeat(2001) });
    await bad({ visitorId: v, message: 42 });
    await bad({ visitorId: v, message: "a\u0000b" });
    await bad({ visitorId: "short", message: "Hi" }, "visitorId");
    await bad({ visitorId: "has spaces in it", message: "Hi" }, "visitorId");
    await bad({ visitorId: v, sessionId: "not-a-uuid", message: "Hi" }, "sessionId");
    await bad({ visitorId: v, message: "Hi", extra: true }, "(root)");
    await expectError(
      await widgetRequest("/widget/v1/chat", { token: widget.token, body: "{not json", headers: { "content-type": "application/json" } }),
      400,
      "invalid_json",
    );
    await expectError(
      await widgetRequest("/widget/v1/chat", {
        token: widget.token,
        body: JSON.stringify({ visitorId: v, message: "Hi" }),
        headers: { "content-type": "text/plain" },
      }),
      415,
      "unsupported_media_type",
    );
    await expectError(
      await widgetRequest("/widget/v1/chat", { token: widget.token, json: { visitorId: v, message: "x".repeat(20_000) } }),
      413,
      "payload_too_large",
    );
    // A chunked body (no Content-Length) goes through the same limit and gate.
    const chunked = (text: string) =>
      fetch(`${baseUrl()}/widget/v1/chat?token=${widget.token}`, {
        method: "POST",
        headers: { origin: SITE, "content-type": "application/json" },
        body: new Blob([text]).stream(),
        duplex: "half",
      } as RequestInit);
    expect((await chunked(JSON.stringify({ visitorId: v, message: "Streamed" }))).status).toBe(200);
    await expectError(await chunked(JSON.stringify({ visitorId: v, message: "x".repeat(20_000) })), 413, "payload_too_large");
    const end = (body: string, type = "text/plain") =>
      widgetRequest(`/widget/v1/sessions/${randomUUID()}/end`, { token: widget.token, body, headers: { "content-type": type } });
    await expectError(await end("{"), 400, "invalid_json");
    await expectError(await end(JSON.stringify({ visitorId: "x" })), 400, "validation_failed");
    await expectError(await end(JSON.stringify({ visitorId: v }), "application/x-www-form-urlencoded"), 415, "unsupported_media_type");
    await expectError(await end(JSON.stringify({ visitorId: v })), 404, "not_found");
    await expectError(
      await widgetRequest(`/widget/v1/sessions/not-a-uuid/end`, { token: widget.token, json: { visitorId: v } }),
      400,
      "validation_failed",
    );
  });

  it("offers only the widget's channels (403 channel_disabled)", async () => {
    const ws = await createWorkspace();
    const voiceOnly = await createWidget(ws, { mode: "voice" });
    const chatOnly = await createWidget(ws, { mode: "chat" });
    await expectError(
      await widgetRequest("/widget/v1/chat", { token: voiceOnly.token, json: { visitorId: visitor(), message: "Hi" } }),
      403,
      "channel_disabled",
    );
    await expectError(
      await widgetRequest("/widget/v1/web-call", { token: chatOnly.token, json: { visitorId: visitor() } }),
      403,
      "channel_disabled",
    );
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
