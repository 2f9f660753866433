// Every way a widget request is refused. /v1/widgets: what is not a widget, and another
// workspace's agent. (Credentials and another workspace's widget ids: the shared security suite,
// test/support/routes.ts.) The public routes: the gate (token, allowed origin, CORS) on every route of
// the security table, other visitors' sessions, bodies, content types and sizes, and channels
// the widget does not offer. (Rate limits: limits.test.ts.)
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { chats } from "../../../src/db/schema";
import { createAgent } from "../../support/calls";
import { baseUrl, createWorkspace, expectError, testDb } from "../../support/harness";
import { ROUTES } from "../../support/routes";
import { chat, createWidget, SITE, visitor, widgetRequest } from "../../support/widgets";

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

describe("POST /v1/widgets", () => {
  it("refuses what is not a widget (400, naming the field)", async () => {
    const ws = await createWorkspace();
    const agent = await createAgent(ws);
    const base = { agentId: agent.id, name: "w", allowedOrigins: ["https://example.com"] };
    const refused = async (body: Record<string, unknown>, path: string) => {
      const err = await expectError(await ws.api("/v1/widgets", { method: "POST", json: { ...base, ...body } }), 400, "validation_failed");
      expect(err.issues?.map((i) => i.path).join(" ")).toContain(path);
    };
    for (const origin of [
      "example.com",
      "https://example.com/path",
      "https://example.com?x=1",
      "ftp://example.com",
      "https://user:pw@example.com",
      "*",
      "https://*.com",
      "https://*",
      "null",
    ]) {
      await refused({ allowedOrigins: [origin] }, "allowedOrigins");
    }
    await refused({ allowedOrigins: [] }, "allowedOrigins");
    await refused({ allowedOrigins: Array.from({ length: 51 }, (_, i) => `https://s${i}.example.com`) }, "allowedOrigins");
    await refused({ mode: "video" }, "mode");
    await refused({ position: "top-left" }, "position");
    await refused({ colors: { accent: "red" } }, "colors.accent");
    await refused({ colors: { shadow: "#000000" } }, "colors");
    await refused({ name: "" }, "name");
    await refused({ greeting: "x".repeat(1001) }, "greeting");
    await refused({ token: "wgt_mine" }, "(root)");
    await refused({ agentId: "not-a-uuid" }, "agentId");
  });

  it("answers with an agent of this workspace only", async () => {
    const ws = await createWorkspace();
    const theirs = await createAgent(await createWorkspace());
    const err = await expectError(
      await ws.api("/v1/widgets", { method: "POST", json: { agentId: theirs.id, name: "w", allowedOrigins: ["https://example.com"] } }),
      400,
      "validation_failed",
    );
    expect(err.issues).toEqual([{ path: "agentId", message: "no agent with this id in this workspace" }]);
    const mine = await createWidget(ws);
    await expectError(await ws.api(`/v1/widgets/${mine.id}`, { method: "PATCH", json: { agentId: theirs.id } }), 400, "validation_failed");
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

describe("a chat session", () => {
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
    const [row] = await testDb().select().from(chats).where(eq(chats.id, sessionId));
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
