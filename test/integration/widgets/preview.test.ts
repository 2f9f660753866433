// The dashboard's live preview of a widget (src/routes/widget/preview.ts): the public routes with
// `?preview=<widget id>` instead of the token, authorised by the dashboard session on the
// dashboard's own origin. What it lets through (a member's own widget, revoked or not, either
// channel) and everything it refuses: no session or a signed-out one, any other origin (the
// widget's own allowed origins included), a preflight, a same-origin claim without Origin or
// Sec-Fetch-Site, another workspace's widget, ids that name no widget. (In Chromium: preview-browser.test.ts.)
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { calls, chats } from "../../../src/db/schema";
import { addMemberTo, baseUrl, createWorkspace, expectError, json, request, signIn, testDb, type Workspace } from "../../support/harness";
import { createWidget, SITE, visitor, widgetRequest } from "../../support/widgets";

const OWN = new URL(baseUrl()).origin;

interface PreviewCall {
  cookie?: string;
  /** The Origin header; null: none. Default: the dashboard's own origin. */
  origin?: string | null;
  fetchSite?: string;
  method?: string;
  json?: unknown;
}

/** A public widget route as the preview calls it: `?preview=<id>`, the session cookie, the dashboard's Origin. */
function previewRequest(path: string, id: string, call: PreviewCall = {}): Promise<Response> {
  const headers = new Headers();
  if (call.cookie) headers.set("cookie", call.cookie);
  if (call.origin !== null) headers.set("origin", call.origin ?? OWN);
  if (call.fetchSite) headers.set("sec-fetch-site", call.fetchSite);
  let body: string | undefined;
  if (call.json !== undefined) {
    headers.set("content-type", "application/json");
    body = JSON.stringify(call.json);
  }
  const url = `${path}?preview=${encodeURIComponent(id)}`;
  return request(url, { method: call.method ?? (body === undefined ? "GET" : "POST"), headers, body });
}

const noCors = (res: Response) => {
  expect(res.headers.get("access-control-allow-origin")).toBeNull();
  expect(res.headers.get("access-control-allow-credentials")).toBeNull();
};

async function signedIn(ws: Workspace) {
  return (await signIn(ws.admin.email, ws.admin.password)).cookie;
}

describe("the widget preview: what it lets through", () => {
  it("shows a member's widget and chats with its agent, from the dashboard's origin with the session; no CORS", async () => {
    const ws = await createWorkspace("Preview");
    const widget = await createWidget(ws, { title: "Front desk", colors: { accent: "#112233" } });
    const member = await addMemberTo(ws, "member");
    const { cookie } = await signIn(member.email, member.password);

    // A same-origin GET carries no Origin: Sec-Fetch-Site says where it comes from.
    const config = await previewRequest("/widget/v1/config", widget.id, { cookie, origin: null, fetchSite: "same-origin" });
    expect(config.status).toBe(200);
    noCors(config);
    expect(config.headers.get("cache-control")).toBe("no-store");
    expect(await json(config)).toMatchObject({ widgetId: widget.id, title: "Front desk", colors: { accent: "#112233" } });

    const v = visitor();
    const chatted = await previewRequest("/widget/v1/chat", widget.id, { cookie, json: { visitorId: v, message: "Are you open?" } });
    expect(chatted.status).toBe(200);
    noCors(chatted);
    const reply = await json<{ sessionId: string; reply: { text: string } }>(chatted);
    expect(reply.reply.text).toContain("Are you open?");
    // A real chat of the widget, from the dashboard's origin.
    const [row] = await testDb().select().from(chats).where(eq(chats.id, reply.sessionId));
    expect(row).toMatchObject({ organizationId: ws.organizationId, widgetId: widget.id, origin: OWN, endUserId: v });

    const ended = await previewRequest(`/widget/v1/sessions/${reply.sessionId}/end`, widget.id, { cookie, json: { visitorId: v } });
    expect(ended.status).toBe(204);
  });

  it("offers both channels whatever the saved mode (the form's mode may not be saved yet); the token does not", async () => {
    const ws = await createWorkspace();
    const voiceOnly = await createWidget(ws, { mode: "voice" });
    const cookie = await signedIn(ws);
    const chatted = await previewRequest("/widget/v1/chat", voiceOnly.id, { cookie, json: { visitorId: visitor(), message: "Hi" } });
    expect(chatted.status).toBe(200);
    await expectError(
      await widgetRequest("/widget/v1/chat", { token: voiceOnly.token, json: { visitorId: visitor(), message: "Hi" } }),
      403,
      "channel_disabled",
    );

    const chatOnly = await createWidget(ws, { mode: "chat" });
    const started = await previewRequest("/widget/v1/web-call", chatOnly.id, { cookie, json: { visitorId: visitor() } });
    expect(started.status).toBe(201);
    const { callId } = await json<{ callId: string }>(started);
    const [call] = await testDb().select().from(calls).where(eq(calls.id, callId));
    expect(call?.metadata).toMatchObject({ source: "widget", widgetId: chatOnly.id, origin: OWN, preview: true });
  });

  it("previews a revoked widget (the session authorises it, not the token)", async () => {
    const ws = await createWorkspace();
    const widget = await createWidget(ws);
    expect((await ws.api(`/v1/widgets/${widget.id}/revoke`, { method: "POST" })).status).toBe(200);
    await expectError(await widgetRequest("/widget/v1/config", { token: widget.token }), 401, "unauthorized");
    const res = await previewRequest("/widget/v1/config", widget.id, { cookie: await signedIn(ws) });
    expect(res.status).toBe(200);
  });
});

describe("the widget preview: what it refuses", () => {
  it("refuses a request without the dashboard session, or with a signed-out one (401, no CORS)", async () => {
    const ws = await createWorkspace();
    const widget = await createWidget(ws);
    for (const cookie of [undefined, "session=not-a-session", `session=sess_${"A".repeat(40)}`]) {
      const res = await previewRequest("/widget/v1/config", widget.id, { cookie });
      noCors(res);
      await expectError(res, 401, "unauthorized");
    }
    const { cookie } = await signIn(ws.admin.email, ws.admin.password);
    const out = await request("/dashboard/api/sign-out", { method: "POST", headers: { cookie, origin: OWN } });
    expect(out.status).toBeLessThan(300);
    await expectError(
      await previewRequest("/widget/v1/chat", widget.id, { cookie, json: { visitorId: visitor(), message: "Hi" } }),
      401,
      "unauthorized",
    );
  });

  it("refuses every other origin, the widget's own allowed origin included, even with the session (403, no CORS)", async () => {
    const ws = await createWorkspace();
    const widget = await createWidget(ws); // allowed origin: SITE
    const cookie = await signedIn(ws);
    const port = Number(new URL(OWN).port || 80);
    const others = [SITE, "https://evil.example", `http://127.0.0.1:${port + 1}`, OWN.replace("127.0.0.1", "localhost"), "null"];
    for (const origin of others) {
      for (const route of [{ path: "/widget/v1/config" }, { path: "/widget/v1/chat", json: { visitorId: visitor(), message: "Hi" } }]) {
        const res = await previewRequest(route.path, widget.id, { cookie, origin, json: route.json });
        noCors(res);
        await expectError(res, 403, "origin_not_allowed");
      }
    }
    // No Origin: only a browser's same-origin request (Sec-Fetch-Site) passes.
    for (const fetchSite of [undefined, "cross-site", "same-site", "none"]) {
      await expectError(
        await previewRequest("/widget/v1/config", widget.id, { cookie, origin: null, fetchSite }),
        403,
        "origin_not_allowed",
      );
    }
    // Origin wins over a claimed Sec-Fetch-Site.
    await expectError(
      await previewRequest("/widget/v1/config", widget.id, { cookie, origin: SITE, fetchSite: "same-origin" }),
      403,
      "origin_not_allowed",
    );
    // Nothing was started from those.
    expect(await testDb().select().from(chats).where(eq(chats.widgetId, widget.id))).toEqual([]);
  });

  it("refuses a preflight (a same-origin request never sends one), without CORS headers", async () => {
    const ws = await createWorkspace();
    const widget = await createWidget(ws);
    const cookie = await signedIn(ws);
    for (const origin of [SITE, OWN]) {
      const res = await previewRequest("/widget/v1/chat", widget.id, {
        cookie,
        origin,
        method: "OPTIONS",
      });
      expect(res.status).toBe(403);
      noCors(res);
      expect(res.headers.get("access-control-allow-methods")).toBeNull();
    }
  });

  it("answers another workspace's widget exactly like a missing one (404), and ids that name no widget too", async () => {
    const owner = await createWorkspace("Owner");
    const widget = await createWidget(owner);
    const stranger = await createWorkspace("Stranger");
    const cookie = await signedIn(stranger);
    const theirs = await expectError(await previewRequest("/widget/v1/config", widget.id, { cookie }), 404, "not_found");
    const missing = await expectError(await previewRequest("/widget/v1/config", randomUUID(), { cookie }), 404, "not_found");
    expect(theirs.message).toBe(missing.message);
    await expectError(
      await previewRequest("/widget/v1/chat", widget.id, { cookie, json: { visitorId: visitor(), message: "Hi" } }),
      404,
      "not_found",
    );
    for (const id of ["", "not-a-uuid", "ü".repeat(50), "1".repeat(5_000), `${widget.id}x`]) {
      await expectError(await previewRequest("/widget/v1/config", id, { cookie }), 404, "not_found");
    }
    // A NUL is refused before anything (the input guard), as on every route.
    await expectError(await previewRequest("/widget/v1/config", "\u0000", { cookie }), 400, "validation_failed");
  });

  it("gives a session no power over the token's path: a token request from another origin stays refused", async () => {
    const ws = await createWorkspace();
    const widget = await createWidget(ws);
    const cookie = await signedIn(ws);
    const res = await widgetRequest("/widget/v1/config", { token: widget.token, origin: "https://evil.example", headers: { cookie } });
    await expectError(res, 403, "origin_not_allowed");
    // …and from the dashboard's own origin too: the dashboard is not one of its allowed origins.
    await expectError(
      await widgetRequest("/widget/v1/config", { token: widget.token, origin: OWN, headers: { cookie } }),
      403,
      "origin_not_allowed",
    );
  });
});
