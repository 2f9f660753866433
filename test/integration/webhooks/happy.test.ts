// Webhooks that work. Endpoints through the API: defaults, the secret shown once, channels and
// events (select all, narrowing, no duplicates), concurrent updates, delete. Delivery in direct
// mode (the default of npm run dev): one signed attempt per delivery, recorded; only to active
// endpoints subscribed to the event; custom payloads, test mode, secret rotation, the delivery log
// and resend, a fan-out with mixed outcomes in one emit, one recorded while it still goes on, and
// the built-in test receiver. Refusals
// and failed deliveries: errors.test.ts; the QStash path: qstash.test.ts; secrets at rest:
// secrets.test.ts.
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { Redis } from "@upstash/redis";
import { eq, inArray, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { webhookAttempts, webhookDeliveries, webhookEndpoints } from "../../../src/db/schema";
import { parseEnv } from "../../../src/env";
import type { Page } from "../../../src/lib/pagination";
import type { EndpointView } from "../../../src/webhooks/endpoints";
import type { DeliveryView } from "../../../src/webhooks/log";
import { sealEndpointSecret } from "../../../src/webhooks/secret-store";
import { deliveries, receiversPerTest, sendTest } from "../../support/deliveries";
import { createWorkspace, expectError, json, stack, testDb, until } from "../../support/harness";
import { stripeAccepts } from "../../support/stripe";
import { createEndpoint, emitNow, refused } from "../../support/webhooks";

const { receiver } = receiversPerTest();

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
      events: [
        "call.started",
        "call.completed",
        "call.failed",
        "call.analyzed",
        "campaign.started",
        "campaign.completed",
        "widget.started",
        "widget.completed",
      ],
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
    expect(all.events).toEqual([
      "call.started",
      "call.completed",
      "call.failed",
      "call.analyzed",
      "campaign.started",
      "campaign.completed",
    ]);
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
    expect(e.events).toEqual(["call.started", "call.completed", "call.failed", "call.analyzed", "campaign.started", "campaign.completed"]);
    const patched = await json<EndpointView>(
      await ws.api(`/v1/webhook-endpoints/${e.id}`, {
        method: "PATCH",
        json: { channels: ["widget", "voice", "widget"], events: ["widget.started", "widget.started"] },
      }),
    );
    expect(patched.channels).toEqual(["widget", "voice"]);
    expect(patched.events).toEqual(["widget.started"]);
    const all = await json<EndpointView>(await ws.api(`/v1/webhook-endpoints/${e.id}`, { method: "PATCH", json: { events: "all" } }));
    expect(all.events).toEqual([
      "widget.started",
      "widget.completed",
      "call.started",
      "call.completed",
      "call.failed",
      "call.analyzed",
      "campaign.started",
      "campaign.completed",
    ]);
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
    // The service's 410 auto-disable is a plain UPDATE of active/disabledReason (src/webhooks/attempt.ts).
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

  it("deletes (204) and then answers 404, and its log goes with it", async () => {
    const ws = await createWorkspace();
    const r = await receiver(() => ({ status: 204 }));
    const e = await createEndpoint(ws, { url: r.url });
    const sent = await sendTest(ws, e.id);
    const logged = async () => [
      (await testDb().select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, e.id))).length,
      (await testDb().select().from(webhookAttempts).where(eq(webhookAttempts.deliveryId, sent.id))).length,
    ];
    expect(await logged()).toEqual([1, 1]);
    expect((await ws.api(`/v1/webhook-endpoints/${e.id}`, { method: "DELETE" })).status).toBe(204);
    await expectError(await ws.api(`/v1/webhook-endpoints/${e.id}`), 404, "not_found");
    expect(await logged()).toEqual([0, 0]);
  });
});

describe("webhook delivery (direct mode)", () => {
  it("Send Test posts a signed call.completed that Stripe's verifier accepts", async () => {
    const ws = await createWorkspace();
    const r = await receiver();
    const endpoint = await createEndpoint(ws, { url: r.url });
    expect(endpoint.secret).toMatch(/^whs_[0-9A-Za-z]{40}$/);

    const delivery = await sendTest(ws, endpoint.id);
    expect(delivery).toMatchObject({ event: "call.completed", status: "succeeded", attemptCount: 1, lastStatusCode: 200 });
    const [got] = await r.waitFor(1);
    if (!got) throw new Error("nothing received");
    expect(got.headers["content-type"]).toBe("application/json");
    expect(got.headers["user-agent"]).toBe("Service-Webhooks/1.0");
    expect(got.headers["x-service-event"]).toBe("call.completed");
    expect(got.headers["x-service-delivery-id"]).toBe(delivery.id);
    const signature = String(got.headers["x-service-signature"]);
    expect(signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(stripeAccepts(got.body, signature, endpoint.secret)).toBe(true);

    const body = JSON.parse(got.body);
    expect(body).toMatchObject({
      deliveryId: delivery.id,
      event: "call.completed",
      channel: "voice",
      recording: null,
      analysis: null,
      report: null,
    });
    expect(Object.keys(body.call).sort()).toEqual(
      [
        ...["agentId", "agentName", "direction", "durationSeconds", "endedAt", "fromNumber", "id", "startedAt", "status", "toNumber"],
        // how it ended (docs/webhooks.md): on every call.* event, as on the API's call
        ...["endedReason", "endedReasonCategory", "transfer", "analysisSkipped"],
        // the campaign and its row that placed it (docs/campaigns.md); null for any other call
        ...["campaignId", "campaignRecipientId"],
        // the agent's version it ran with (docs/agents.md, "Versions")
        "agentVersion",
      ].sort(),
    );
    expect(body.transcript.turns[0]).toEqual({
      role: "agent",
      text: expect.any(String),
      startMs: expect.any(Number),
      endMs: expect.any(Number),
    });
    expect(Date.parse(body.timestamp)).toBeGreaterThan(Date.now() - 60_000);
  });

  it("delivers emitted events only to active endpoints subscribed to them", async () => {
    const ws = await createWorkspace();
    const [a, b, c, d] = await Promise.all([receiver(), receiver(), receiver(), receiver()]);
    if (!a || !b || !c || !d) throw new Error("receivers");
    await createEndpoint(ws, { url: a.url, events: ["call.started"] });
    await createEndpoint(ws, { url: b.url, events: ["call.completed"] });
    await createEndpoint(ws, { url: c.url, events: "all", active: false });
    await createEndpoint(ws, { url: d.url, channels: ["widget"], events: "all" });
    const other = await createWorkspace();
    const e = await receiver();
    await createEndpoint(other, { url: e.url, events: "all" });

    const result = await emitNow({
      organizationId: ws.organizationId,
      event: "call.started",
      data: { call: { id: "c1", status: "in-progress", agentId: "a1" } },
      subjectId: "c1",
    });
    expect(result.deliveryIds).toHaveLength(1);
    const [got] = await a.waitFor(1);
    expect(JSON.parse(got?.body ?? "{}").call).toMatchObject({ id: "c1", status: "in-progress", agentId: "a1", durationSeconds: null });
    for (const silent of [b, c, d, e]) expect(silent.received).toHaveLength(0);
  });

  it("sends nothing for chat.started / chat.completed (selectable, never dispatched)", async () => {
    const ws = await createWorkspace();
    const r = await receiver();
    await createEndpoint(ws, { url: r.url, channels: ["chat"], events: ["chat.started", "chat.completed", "whatsapp.started"] });
    expect((await emitNow({ organizationId: ws.organizationId, event: "chat.started", data: { chat: { id: "x" } } })).deliveryIds).toEqual(
      [],
    );
    const wa = await emitNow({
      organizationId: ws.organizationId,
      event: "whatsapp.started",
      data: { chat: { id: "x", status: "in-progress" } },
    });
    expect(wa.deliveryIds).toHaveLength(1);
    const [got] = await r.waitFor(1);
    const body = JSON.parse(got?.body ?? "{}");
    expect(body).toMatchObject({ event: "whatsapp.started", channel: "whatsapp", chat: { id: "x", status: "in-progress" } });
    expect(body).not.toHaveProperty("call");
  });

  it("custom payload mode ships only the selected leaf paths (plus the envelope), and signs that body", async () => {
    const ws = await createWorkspace();
    const r = await receiver();
    const endpoint = await createEndpoint(ws, {
      url: r.url,
      payloadMode: "custom",
      customFields: ["call.id", "call.status", "transcript.fullText"],
    });
    await sendTest(ws, endpoint.id);
    const [got] = await r.waitFor(1);
    const body = JSON.parse(got?.body ?? "{}");
    expect(Object.keys(body).sort()).toEqual(["call", "deliveryId", "event", "timestamp", "transcript"]);
    expect(Object.keys(body.call).sort()).toEqual(["id", "status"]);
    expect(Object.keys(body.transcript)).toEqual(["fullText"]);
    expect(stripeAccepts(got?.body ?? "", String(got?.headers["x-service-signature"]), endpoint.secret)).toBe(true);
  });

  it("test mode diverts deliveries to the test URL", async () => {
    const ws = await createWorkspace();
    const [prod, test] = await Promise.all([receiver(), receiver()]);
    if (!prod || !test) throw new Error("receivers");
    const endpoint = await createEndpoint(ws, { url: prod.url, testUrl: test.url, testMode: true });
    const d = await sendTest(ws, endpoint.id);
    expect(d.attempts[0]).toMatchObject({ target: "test", url: test.url, statusCode: 200 });
    expect(test.received).toHaveLength(1);
    expect(prod.received).toHaveLength(0);
  });

  it("rotation: the next delivery is signed with the new secret and the old one no longer verifies", async () => {
    const ws = await createWorkspace();
    const r = await receiver();
    const endpoint = await createEndpoint(ws, { url: r.url });
    const rotated = await json<{ secret: string }>(await ws.api(`/v1/webhook-endpoints/${endpoint.id}/rotate-secret`, { method: "POST" }));
    expect(rotated.secret).toMatch(/^whs_/);
    expect(rotated.secret).not.toBe(endpoint.secret);
    const masked = await json<{ secret: string }>(await ws.api(`/v1/webhook-endpoints/${endpoint.id}`));
    expect(masked.secret).toBe(`whs_...${rotated.secret.slice(-6)}`);

    await sendTest(ws, endpoint.id);
    const [got] = await r.waitFor(1);
    const sig = String(got?.headers["x-service-signature"]);
    expect(stripeAccepts(got?.body ?? "", sig, rotated.secret)).toBe(true);
    expect(stripeAccepts(got?.body ?? "", sig, endpoint.secret)).toBe(false);
  });

  it("keeps the first 2,048 bytes of an answer that declares a short length but inflates to a megabyte", async () => {
    const ws = await createWorkspace();
    const inflated = "y".repeat(1024 * 1024);
    const gzipped = gzipSync(inflated);
    const r = await receiver(() => ({
      status: 200,
      body: gzipped,
      headers: { "content-encoding": "gzip", "content-length": String(gzipped.length) },
    }));
    const endpoint = await createEndpoint(ws, { url: r.url });
    const delivery = await sendTest(ws, endpoint.id);
    expect(delivery).toMatchObject({ status: "succeeded", lastStatusCode: 200 });
    expect(delivery.attempts[0]?.responseBody).toBe(inflated.slice(0, 2048));
  });

  it("logs every attempt with status, duration and a capped response body; failures are recorded and resend works", async () => {
    const ws = await createWorkspace();
    const big = "x".repeat(10_000);
    const r = await receiver((n) => (n === 1 ? { status: 500, body: big } : { status: 204 }));
    const endpoint = await createEndpoint(ws, { url: r.url });
    const failed = await sendTest(ws, endpoint.id);
    expect(failed).toMatchObject({ status: "failed", lastStatusCode: 500, attemptCount: 1 });
    expect(failed.attempts[0]?.responseBody).toHaveLength(2048);

    await new Promise((res) => setTimeout(res, 1100)); // so the resend's `t` differs
    const resent = await json<DeliveryView>(
      await ws.api(`/v1/webhook-endpoints/${endpoint.id}/deliveries/${failed.id}/resend`, { method: "POST" }),
    );
    expect(resent).toMatchObject({ id: failed.id, status: "succeeded", attemptCount: 2, lastStatusCode: 204 });
    expect(resent.attempts.map((a) => [a.attempt, a.trigger, a.statusCode])).toEqual([
      [1, "test", 500],
      [2, "resend", 204],
    ]);
    expect(resent.attempts[1]?.signedAt).toBeGreaterThan(resent.attempts[0]?.signedAt ?? Infinity);
    expect(r.received.map((x) => x.headers["x-service-delivery-id"])).toEqual([failed.id, failed.id]);

    const log = await deliveries(ws, endpoint.id);
    expect(log.data[0]).toMatchObject({ id: failed.id, status: "succeeded", attemptCount: 2 });
    expect(log.data[0]?.attempts).toHaveLength(2);
    expect((await deliveries(ws, endpoint.id, "?status=failed")).data).toHaveLength(0);
  });

  it("a fan-out that is still going has the attempts already answered on record within about a second", async () => {
    const ws = await createWorkspace();
    // Six calls in flight: the first six are answered at once, the next six are held until released.
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let arrived = 0;
    const held = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        arrived++;
        const answer = () => res.writeHead(200, { "content-type": "text/plain" }).end("ok");
        if (arrived > 6) void released.then(answer);
        else answer();
      });
    });
    await new Promise<void>((resolve) => held.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(held.address() as AddressInfo).port}/hook`;
    try {
      await Promise.all(Array.from({ length: 12 }, () => createEndpoint(ws, { url, events: "all" })));
      const recorded = async () =>
        (
          await testDb()
            .select({ id: webhookAttempts.id })
            .from(webhookAttempts)
            .innerJoin(webhookDeliveries, eq(webhookDeliveries.id, webhookAttempts.deliveryId))
            .where(eq(webhookDeliveries.organizationId, ws.organizationId))
        ).length;
      const emitting = emitNow({ organizationId: ws.organizationId, event: "call.completed", data: { call: { id: "slow" } } });
      // The other six are held until release(), so the fan-out is still going however long this takes.
      await until(recorded, (n) => n >= 6, 15_000);
      expect(await recorded()).toBe(6);
      expect(arrived).toBe(12);
      release();
      const { deliveryIds } = await emitting;
      expect(deliveryIds).toHaveLength(12);
      expect(await recorded()).toBe(12);
    } finally {
      release();
      held.closeAllConnections();
      await new Promise<void>((resolve) => held.close(() => resolve()));
    }
  });

  it("a fan-out with mixed outcomes logs every attempt and keeps each endpoint's count, in one emit", async () => {
    const ws = await createWorkspace();
    const ok = await receiver(() => ({ status: 200, body: "ok" }));
    const failing = await receiver(() => ({ status: 500, body: "no" }));
    const gone = await receiver(() => ({ status: 410 }));
    // 28 healthy endpoints, one that fails, one gone, and one healthy endpoint that had failed
    // before (its count must go back to 0).
    const healthy = await Promise.all(Array.from({ length: 28 }, () => createEndpoint(ws, { url: ok.url, events: "all" })));
    const bad = await createEndpoint(ws, { url: failing.url, events: "all" });
    const gon = await createEndpoint(ws, { url: gone.url, events: "all" });
    const recovering = await createEndpoint(ws, { url: ok.url, events: "all" });
    await testDb().update(webhookEndpoints).set({ consecutiveFailures: 19 }).where(eq(webhookEndpoints.id, bad.id));
    await testDb().update(webhookEndpoints).set({ consecutiveFailures: 5 }).where(eq(webhookEndpoints.id, recovering.id));

    const { deliveryIds } = await emitNow({ organizationId: ws.organizationId, event: "call.completed", data: { call: { id: "fan" } } });
    expect(deliveryIds).toHaveLength(31);
    expect(ok.received).toHaveLength(29);
    const rows = await testDb().select().from(webhookDeliveries).where(inArray(webhookDeliveries.id, deliveryIds));
    const attempts = await testDb().select().from(webhookAttempts).where(inArray(webhookAttempts.deliveryId, deliveryIds));
    expect(attempts).toHaveLength(31);
    expect(attempts.every((a) => a.attempt === 1 && a.trigger === "emit")).toBe(true);
    const byEndpoint = new Map(rows.map((r) => [r.endpointId, r]));
    for (const e of [...healthy, recovering])
      expect(byEndpoint.get(e.id)).toMatchObject({ status: "succeeded", attemptCount: 1, lastStatusCode: 200 });
    expect(byEndpoint.get(bad.id)).toMatchObject({ status: "failed", attemptCount: 1, lastStatusCode: 500 });
    expect(byEndpoint.get(gon.id)).toMatchObject({ status: "failed", lastStatusCode: 410 });

    const endpoints = new Map(
      (await testDb().select().from(webhookEndpoints).where(eq(webhookEndpoints.organizationId, ws.organizationId))).map((e) => [e.id, e]),
    );
    expect(endpoints.get(recovering.id)).toMatchObject({ consecutiveFailures: 0, active: true, disabledReason: null });
    expect(endpoints.get(bad.id)).toMatchObject({
      consecutiveFailures: 20,
      active: false,
      disabledReason: expect.stringContaining("20 failed deliveries"),
    });
    expect(endpoints.get(gon.id)).toMatchObject({ active: false, disabledReason: expect.stringContaining("410") });
    expect(endpoints.get(healthy[0]?.id ?? "")).toMatchObject({ consecutiveFailures: 0, active: true });
  });

  it("records each receiver's answer exactly, whatever its characters (the attempts go in as one array a column)", async () => {
    const ws = await createWorkspace();
    const answers = ["NULL", "", '{"a":"b,c"}', 'back\\slash "quote" {brace}', "ünïcödé 🎉\nsecond line", "'; drop table x; --"];
    const endpoints = await Promise.all(
      answers.map(async (body, i) => {
        const r = await receiver(() => ({ status: i % 2 === 0 ? 200 : 500, body }));
        return { body, status: i % 2 === 0 ? 200 : 500, endpoint: await createEndpoint(ws, { url: r.url, events: "all" }) };
      }),
    );
    const { deliveryIds } = await emitNow({ organizationId: ws.organizationId, event: "call.completed", data: { call: { id: "x" } } });
    expect(deliveryIds).toHaveLength(answers.length);
    const attempts = await testDb().select().from(webhookAttempts).where(inArray(webhookAttempts.deliveryId, deliveryIds));
    const rows = await testDb().select().from(webhookDeliveries).where(inArray(webhookDeliveries.id, deliveryIds));
    for (const { body, status, endpoint } of endpoints) {
      expect(attempts.find((a) => a.endpointId === endpoint.id)).toMatchObject({ responseBody: body, statusCode: status, error: null });
      const row = rows.find((d) => d.endpointId === endpoint.id);
      expect(row).toMatchObject({ status: status === 200 ? "succeeded" : "failed", lastStatusCode: status });
      // Updated when the attempt was recorded (the same transaction), not left at its creation.
      const recorded = attempts.find((a) => a.endpointId === endpoint.id)?.createdAt.getTime() ?? 0;
      expect(Math.abs((row?.updatedAt.getTime() ?? 0) - recorded)).toBeLessThanOrEqual(1);
    }
  });

  it("when the second statement fails, what the first wrote is still sent and the emit says it failed", async () => {
    const ws = await createWorkspace();
    const r = await receiver();
    const plain = await createEndpoint(ws, { url: r.url, events: "all" });
    const custom = await createEndpoint(ws, { url: r.url, events: "all", payloadMode: "custom", customFields: ["call.id"] });
    // Postgres refuses the custom endpoint's delivery (written by the second statement) and only it.
    const fn = `refuse_${custom.id.replace(/-/g, "")}`;
    await testDb().execute(
      sql.raw(`create function ${fn}() returns trigger language plpgsql as $$ begin
        if new.endpoint_id = '${custom.id}' then raise exception 'refused for the test'; end if; return new; end $$;
        create trigger ${fn} before insert on webhook_deliveries for each row execute function ${fn}();`),
    );
    try {
      await expect(
        emitNow({ organizationId: ws.organizationId, event: "call.completed", data: { call: { id: "half" } } }),
      ).rejects.toThrow();
    } finally {
      await testDb().execute(sql.raw(`drop trigger ${fn} on webhook_deliveries; drop function ${fn}();`));
    }
    const [got] = await r.waitFor(1);
    const rows = await testDb().select().from(webhookDeliveries).where(eq(webhookDeliveries.organizationId, ws.organizationId));
    expect(rows.map((d) => [d.endpointId, d.status])).toEqual([[plain.id, "succeeded"]]);
    expect(JSON.parse(got?.body ?? "{}").deliveryId).toBe(rows[0]?.id);
  });

  it("a fan-out past the ids its first statement brings, custom payloads among it, sends each endpoint one delivery with its own id", async () => {
    const ws = await createWorkspace();
    const r = await receiver();
    const template = await createEndpoint(ws, { url: r.url, events: "all" });
    const custom = await createEndpoint(ws, { url: r.url, events: "all", payloadMode: "custom", customFields: ["call.id"] });
    const [row] = await testDb().select().from(webhookEndpoints).where(eq(webhookEndpoints.id, template.id));
    if (!row) throw new Error("the endpoint's row");
    // 138 more like the first, each with the first's secret sealed for its own row.
    const keys = parseEnv(stack().vars);
    const copies = await Promise.all(
      Array.from({ length: 138 }, async () => {
        const id = randomUUID();
        return { ...row, id, captureToken: randomUUID(), secret: await sealEndpointSecret(keys, id, template.secret) };
      }),
    );
    await testDb().insert(webhookEndpoints).values(copies);

    const { deliveryIds } = await emitNow({ organizationId: ws.organizationId, event: "call.completed", data: { call: { id: "many" } } });
    expect(new Set(deliveryIds).size).toBe(140);
    const got = await r.waitFor(140);
    const sent = got.map((g) => ({ id: String(g.headers["x-service-delivery-id"]), body: JSON.parse(g.body), raw: g.body, g }));
    expect(sent.map((s) => s.body.deliveryId).sort()).toEqual([...deliveryIds].sort());
    for (const s of sent) expect(s.body.deliveryId).toBe(s.id);
    const shaped = sent.filter((s) => !("transcript" in s.body));
    expect(shaped.map((s) => s.body.call)).toEqual([{ id: "many" }]);
    for (const s of sent) {
      const secret = s.body.transcript === undefined ? custom.secret : template.secret;
      expect(stripeAccepts(s.raw, String(s.g.headers["x-service-signature"]), secret)).toBe(true);
    }
    // What each row holds is what its endpoint was sent, byte for byte; every one is attempt 1, succeeded.
    const rows = await testDb().select().from(webhookDeliveries).where(inArray(webhookDeliveries.id, deliveryIds));
    const bodies = new Map(sent.map((s) => [s.id, s.raw]));
    for (const d of rows) {
      expect(d.payload).toBe(bodies.get(d.id)); // the very text sent and signed
      expect(d).toMatchObject({ status: "succeeded", attemptCount: 1, event: "call.completed" });
    }
    expect(new Set(rows.map((d) => d.endpointId)).size).toBe(140);
  });

  it("the built-in test receiver keeps the most recent 20 requests", async () => {
    const ws = await createWorkspace();
    const endpoint = await createEndpoint(ws, { useTestReceiver: true });
    const d = await sendTest(ws, endpoint.id);
    expect(d.attempts[0]).toMatchObject({ target: "test_receiver", statusCode: 200 });
    type Captures = { url: string; keeps: number; requests: Array<{ body: string; headers: Record<string, string> }> };
    const first = await json<Captures>(await ws.api(`/v1/webhook-endpoints/${endpoint.id}/test-receiver`));
    expect(first.requests).toHaveLength(1);
    // Kept in Redis for at most 24 hours.
    const redis = new Redis({ url: stack().redisUrl, token: stack().redisToken });
    const ttl = await redis.ttl(`whcap:${first.url.split("/").pop()}`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(86_400);
    const captured = first.requests[0];
    expect(JSON.parse(captured?.body ?? "{}").deliveryId).toBe(d.id);
    expect(stripeAccepts(captured?.body ?? "", captured?.headers["x-service-signature"] ?? "", endpoint.secret)).toBe(true);

    for (let i = 0; i < 24; i++) {
      const res = await fetch(first.url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ i }) });
      expect(res.status).toBe(200);
    }
    const capped = await json<Captures>(await ws.api(`/v1/webhook-endpoints/${endpoint.id}/test-receiver`));
    expect(capped.keeps).toBe(20);
    expect(capped.requests).toHaveLength(20);
    expect(JSON.parse(capped.requests[0]?.body ?? "{}")).toEqual({ i: 23 });
    expect(JSON.parse(capped.requests[19]?.body ?? "{}")).toEqual({ i: 4 });
    expect((await fetch(first.url.replace(/[^/]+$/, "A".repeat(32)), { method: "POST", body: "{}" })).status).toBe(404);
  });
});
