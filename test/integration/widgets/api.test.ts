// /v1/widgets with an API key: create with defaults, validation, list, update, rotate, revoke,
// delete, and the tenancy of the agent a widget answers with. (Credentials and another
// workspace's widget ids: the shared security suite, test/routes.ts.)
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { widgetSessions } from "../../../src/db/schema";
import type { WidgetView } from "../../../src/widgets/schema";
import { createAgent } from "../../calls";
import { createWorkspace, expectError, json, testDb } from "../../harness";
import { chat, createWidget, visitor, widgetRequest } from "../../widgets";

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
    const [row] = await testDb().select().from(widgetSessions).where(eq(widgetSessions.id, sessionId));
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
