import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { webhookEndpoints } from "../../../src/db/schema";
import type { Page } from "../../../src/lib/pagination";
import type { EndpointView } from "../../../src/webhooks/endpoints";
import { addMemberTo, createWorkspace, expectError, json, request, signIn, testDb } from "../../harness";
import { createEndpoint, refused } from "../../webhooks";

describe("webhook endpoints", () => {
  it("creates with defaults: active, all events of the channels, full payload, secret shown once", async () => {
    const ws = await createWorkspace();
    const e = await createEndpoint(ws, { url: "https://hooks.example.com/voice", channels: ["voice", "widget"] });
    expect(e).toMatchObject({
      name: "hook",
      description: null,
      active: true,
      useTestReceiver: false,
      testMode: false,
      channels: ["voice", "widget"],
      events: ["call.started", "call.completed", "call.failed", "call.analyzed", "widget.started", "widget.completed"],
      payloadMode: "all",
      customFields: [],
      disabledReason: null,
    });
    expect(e.secret).toMatch(/^whs_[0-9A-Za-z]{40}$/);
    expect(e.testReceiverUrl).toMatch(/\/webhooks\/test-receiver\/[0-9A-Za-z]{32}$/);

    const fetched = await json<EndpointView>(await ws.api(`/v1/webhook-endpoints/${e.id}`));
    expect(fetched.secret).toBe(`whs_...${e.secret.slice(-6)}`);
    const list = await ws.api("/v1/webhook-endpoints");
    const text = await list.text();
    expect(text).not.toContain(e.secret);
    expect((JSON.parse(text) as Page<EndpointView>).data.map((x) => x.id)).toEqual([e.id]);
  });

  it("select all / deselect all, and events outside the channels are refused", async () => {
    const ws = await createWorkspace();
    const none = await createEndpoint(ws, { url: "https://hooks.example.com/a", events: [] });
    expect(none.events).toEqual([]);
    const all = await json<EndpointView>(await ws.api(`/v1/webhook-endpoints/${none.id}`, { method: "PATCH", json: { events: "all" } }));
    expect(all.events).toEqual(["call.started", "call.completed", "call.failed", "call.analyzed"]);
    await refused(ws, { url: "https://hooks.example.com/a", channels: ["voice"], events: ["widget.started"] }, "events");
    await expectError(
      await ws.api("/v1/webhook-endpoints", {
        method: "POST",
        json: { name: "x", url: "https://a.example.com", channels: ["voice"], events: ["call.exploded"] },
      }),
      400,
      "validation_failed",
    );
    await expectError(
      await ws.api("/v1/webhook-endpoints", { method: "POST", json: { name: "x", url: "https://a.example.com", channels: ["sms"] } }),
      400,
      "validation_failed",
    );
    await expectError(
      await ws.api("/v1/webhook-endpoints", { method: "POST", json: { name: "x", url: "https://a.example.com", channels: [] } }),
      400,
      "validation_failed",
    );
  });

  it("narrowing the channels drops the events no longer selectable", async () => {
    const ws = await createWorkspace();
    const e = await createEndpoint(ws, { url: "https://hooks.example.com/a", channels: ["voice", "widget"] });
    const narrowed = await json<EndpointView>(
      await ws.api(`/v1/webhook-endpoints/${e.id}`, { method: "PATCH", json: { channels: ["widget"] } }),
    );
    expect(narrowed.events).toEqual(["widget.started", "widget.completed"]);
  });

  it("stores channels and events without duplicates, so select all sends each event once", async () => {
    const ws = await createWorkspace();
    const e = await createEndpoint(ws, { url: "https://hooks.example.com/a", channels: ["voice", "voice"], events: "all" });
    expect(e.channels).toEqual(["voice"]);
    expect(e.events).toEqual(["call.started", "call.completed", "call.failed", "call.analyzed"]);
    const patched = await json<EndpointView>(
      await ws.api(`/v1/webhook-endpoints/${e.id}`, {
        method: "PATCH",
        json: { channels: ["widget", "voice", "widget"], events: ["widget.started", "widget.started"] },
      }),
    );
    expect(patched.channels).toEqual(["widget", "voice"]);
    expect(patched.events).toEqual(["widget.started"]);
    const all = await json<EndpointView>(await ws.api(`/v1/webhook-endpoints/${e.id}`, { method: "PATCH", json: { events: "all" } }));
    expect(all.events).toEqual(["widget.started", "widget.completed", "call.started", "call.completed", "call.failed", "call.analyzed"]);
  });

  it("refuses an empty PATCH", async () => {
    const ws = await createWorkspace();
    const e = await createEndpoint(ws, { url: "https://hooks.example.com/a" });
    const err = await expectError(await ws.api(`/v1/webhook-endpoints/${e.id}`, { method: "PATCH", json: {} }), 400, "validation_failed");
    expect(err.message).toMatch(/at least one field/);
  });

  it("concurrent updates do not lose each other (PATCH vs PATCH, PATCH vs the service turning it off)", async () => {
    const ws = await createWorkspace();
    const e = await createEndpoint(ws, { url: "https://hooks.example.com/a" });
    const patch = (body: Record<string, unknown>) => ws.api(`/v1/webhook-endpoints/${e.id}`, { method: "PATCH", json: body });
    for (let i = 0; i < 8; i++) {
      const [a, b] = await Promise.all([patch({ name: `name ${i}` }), patch({ description: `description ${i}` })]);
      expect([a.status, b.status]).toEqual([200, 200]);
      const now = await json<EndpointView>(await ws.api(`/v1/webhook-endpoints/${e.id}`));
      expect([now.name, now.description]).toEqual([`name ${i}`, `description ${i}`]);
    }
    // The service's 410 auto-disable is a plain UPDATE of active/disabledReason (src/webhooks/deliver.ts).
    for (let i = 0; i < 8; i++) {
      await testDb().update(webhookEndpoints).set({ active: true, disabledReason: null }).where(eq(webhookEndpoints.id, e.id));
      const [res] = await Promise.all([
        patch({ name: `again ${i}` }),
        testDb()
          .update(webhookEndpoints)
          .set({ active: false, disabledReason: "The receiver answered 410 Gone." })
          .where(eq(webhookEndpoints.id, e.id)),
      ]);
      expect(res.status).toBe(200);
      const now = await json<EndpointView>(await ws.api(`/v1/webhook-endpoints/${e.id}`));
      expect([now.name, now.active, now.disabledReason]).toEqual([`again ${i}`, false, "The receiver answered 410 Gone."]);
    }
  });

  it("custom payload mode needs known leaf paths", async () => {
    const ws = await createWorkspace();
    const e = await createEndpoint(ws, {
      url: "https://hooks.example.com/a",
      payloadMode: "custom",
      customFields: ["call.id", "transcript.fullText"],
    });
    expect(e.customFields).toEqual(["call.id", "transcript.fullText"]);
    await expectError(
      await ws.api("/v1/webhook-endpoints", {
        method: "POST",
        json: { name: "x", url: "https://a.example.com", channels: ["voice"], payloadMode: "custom", customFields: ["call.secretField"] },
      }),
      400,
      "validation_failed",
    );
    await refused(ws, { url: "https://a.example.com", payloadMode: "custom", customFields: [] }, "customFields");
  });

  it("needs a URL unless the test receiver is used, and a test URL in test mode", async () => {
    const ws = await createWorkspace();
    await refused(ws, {}, "url");
    await refused(ws, { url: "https://a.example.com", testMode: true }, "testUrl");
    const e = await createEndpoint(ws, { useTestReceiver: true });
    expect(e.url).toBeNull();
  });

  it("validates types, unknown fields, sizes and ids", async () => {
    const ws = await createWorkspace();
    const post = (body: unknown) => ws.api("/v1/webhook-endpoints", { method: "POST", json: body });
    await expectError(await post({ name: 5, url: "https://a.example.com", channels: ["voice"] }), 400, "validation_failed");
    await expectError(
      await post({ name: "x", url: "https://a.example.com", channels: ["voice"], secret: "whs_mine" }),
      400,
      "validation_failed",
    );
    await expectError(await post({ name: "x".repeat(101), url: "https://a.example.com", channels: ["voice"] }), 400, "validation_failed");
    await expectError(
      await post({ name: "x", url: `https://a.example.com/${"p".repeat(2100)}`, channels: ["voice"] }),
      400,
      "validation_failed",
    );
    await expectError(
      await post({ name: "x", url: "https://a.example.com", channels: ["voice"], active: "yes" }),
      400,
      "validation_failed",
    );
    await expectError(await ws.api("/v1/webhook-endpoints/not-a-uuid"), 400, "validation_failed");
    const named = await createEndpoint(ws, { name: "Продакшн 🚀 שלום", url: "https://a.example.com" });
    expect(named.name).toBe("Продакшн 🚀 שלום");
  });

  it("deletes (204) and then answers 404", async () => {
    const ws = await createWorkspace();
    const e = await createEndpoint(ws, { url: "https://a.example.com" });
    expect((await ws.api(`/v1/webhook-endpoints/${e.id}`, { method: "DELETE" })).status).toBe(204);
    await expectError(await ws.api(`/v1/webhook-endpoints/${e.id}`), 404, "not_found");
  });

  it("is the same in the dashboard for an admin, and refused to a member (admin access required)", async () => {
    const ws = await createWorkspace();
    const { cookie } = await signIn(ws.admin.email, ws.admin.password);
    const headers = { cookie, "x-organization-id": ws.organizationId };
    const created = await request("/dashboard/api/webhook-endpoints", {
      method: "POST",
      json: { name: "d", url: "https://a.example.com", channels: ["voice"] },
      headers,
    });
    expect(created.status).toBe(201);
    const e = await json<EndpointView>(created);
    expect((await json<Page<EndpointView>>(await ws.api("/v1/webhook-endpoints"))).data.map((x) => x.id)).toContain(e.id);

    const member = await addMemberTo(ws, "member");
    const m = await signIn(member.email, member.password);
    const mh = { cookie: m.cookie, "x-organization-id": ws.organizationId };
    const denied = await expectError(await request("/dashboard/api/webhook-endpoints", { headers: mh }), 403, "forbidden");
    expect(denied.message).toMatch(/Admin access required/);
    await expectError(await request("/v1/webhook-endpoints", { headers: mh }), 403, "forbidden");
    await expectError(await request(`/webhooks/${e.id}/deliveries`, { headers: mh }), 403, "forbidden");
  });
});
