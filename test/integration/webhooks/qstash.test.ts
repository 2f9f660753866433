// The production path end to end: the worker publishes through @upstash/qstash to a
// protocol-level QStash stand-in, which calls the worker back with Upstash-Signature JWTs
// that the real Receiver verifies, retrying non-2xx answers. A replayed call, or QStash calling
// again for an attempt already made, makes no attempt (src/webhooks/qstash-callbacks.ts).
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type QstashStandIn, startQstash } from "../../../dev/qstash";
import { freePort, startWorker } from "../../../dev/stack";
import { webhookDeliveries, webhookEndpoints } from "../../../src/db/schema";
import { newId } from "../../../src/lib/ids";
import type { EndpointView } from "../../../src/webhooks/endpoints";
import type { DeliveryView } from "../../../src/webhooks/log";
import { receiversPerTest } from "../../support/deliveries";
import { createWorkspace, expectError, json, stack, testDb, type Workspace } from "../../support/harness";
import { qstashHeaders, qstashJwt } from "../../support/qstash";
import { stripeAccepts } from "../../support/stripe";

let qstash: QstashStandIn;
let worker: Awaited<ReturnType<typeof startWorker>>;
/** PUBLIC_BASE_URL of the worker: the `sub` of QStash's JWTs is this plus the route's path. */
let publicBase = "";

beforeAll(async () => {
  // Retries 1.1 s apart, so every attempt's signature timestamp (whole seconds) is visibly fresh.
  qstash = await startQstash({ retryDelayMs: () => 1100 });
  const port = await freePort();
  publicBase = `http://127.0.0.1:${port}`;
  worker = await startWorker(
    {
      ...stack().vars,
      QSTASH_TOKEN: qstash.token,
      QSTASH_URL: qstash.url,
      QSTASH_CURRENT_SIGNING_KEY: qstash.currentSigningKey,
      QSTASH_NEXT_SIGNING_KEY: qstash.nextSigningKey,
      PUBLIC_BASE_URL: publicBase,
      WEBHOOK_MAX_RETRIES: "3",
    },
    { port },
  );
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await qstash?.stop();
});

const { receiver } = receiversPerTest();

const api = (ws: Workspace, path: string, init: RequestInit & { json?: unknown } = {}) =>
  fetch(worker.baseUrl + path, {
    ...init,
    headers: { authorization: `Bearer ${ws.apiKey}`, ...(init.json ? { "content-type": "application/json" } : {}) },
    body: init.json ? JSON.stringify(init.json) : init.body,
  });

async function endpointFor(ws: Workspace, url: string) {
  const res = await api(ws, "/v1/webhook-endpoints", { method: "POST", json: { name: "q", url, channels: ["voice"] } });
  expect(res.status).toBe(201);
  return json<EndpointView>(res);
}

const log = async (ws: Workspace, endpointId: string) =>
  (await json<{ data: DeliveryView[] }>(await api(ws, `/webhooks/${endpointId}/deliveries`))).data;

describe("webhook delivery through QStash", () => {
  it("a receiver that fails twice then succeeds gets exactly one success; three attempts under one delivery id, each freshly signed", async () => {
    const ws = await createWorkspace();
    const r = await receiver((n) => (n <= 2 ? { status: 503, body: "busy" } : { status: 200, body: "ok" }));
    const endpoint = await endpointFor(ws, r.url);
    const before = qstash.deliveries.length;
    const sent = await api(ws, `/v1/webhook-endpoints/${endpoint.id}/test`, { method: "POST" });
    expect(sent.status).toBe(200);
    const delivery = await json<DeliveryView>(sent);
    await r.waitFor(3, 20_000);
    await qstash.idle();

    const ids = r.received.map((x) => x.headers["x-service-delivery-id"]);
    expect(ids).toEqual([delivery.id, delivery.id, delivery.id]);
    const stamps = r.received.map((x) => Number(/t=(\d+)/.exec(String(x.headers["x-service-signature"]))?.[1]));
    expect(new Set(stamps).size).toBe(3); // a fresh t per attempt
    for (const x of r.received) {
      expect(stripeAccepts(x.body, String(x.headers["x-service-signature"]), endpoint.secret)).toBe(true);
    }
    // Every retry sends the bytes the delivery keeps (docs/webhooks.md), which the log shows.
    expect(r.received.map((x) => x.body)).toEqual([delivery.body, delivery.body, delivery.body]);
    const [logged] = await log(ws, endpoint.id);
    expect(logged).toMatchObject({ id: delivery.id, status: "succeeded", attemptCount: 3, lastStatusCode: 200 });
    expect(logged?.attempts.map((a) => [a.attempt, a.statusCode])).toEqual([
      [1, 503],
      [2, 503],
      [3, 200],
    ]);
    expect(logged?.attempts.map((a) => a.trigger)).toEqual(["test", "test", "test"]);
    // QStash saw our route answer 502 twice (retry), then 200.
    const calls = qstash.deliveries.slice(before).filter((d) => d.url.endsWith("/internal/qstash/deliver"));
    expect(calls.map((d) => [d.retried, d.status])).toEqual([
      [0, 502],
      [1, 502],
      [2, 200],
    ]);
  });

  it("a retry after rotation is signed with the new secret: the old one stops at once, even for queued retries", async () => {
    const ws = await createWorkspace();
    const r = await receiver((n) => (n === 1 ? { status: 500 } : { status: 200 }));
    const endpoint = await endpointFor(ws, r.url);
    await api(ws, `/v1/webhook-endpoints/${endpoint.id}/test`, { method: "POST" });
    await r.waitFor(1);
    const rotated = (
      await json<{ secret: string }>(await api(ws, `/v1/webhook-endpoints/${endpoint.id}/rotate-secret`, { method: "POST" }))
    ).secret;
    await r.waitFor(2, 20_000);
    const [first, second] = r.received;
    const verify = (x: typeof first, secret: string) => stripeAccepts(x?.body ?? "", String(x?.headers["x-service-signature"]), secret);
    expect(verify(first, endpoint.secret)).toBe(true);
    expect(verify(second, rotated)).toBe(true);
    expect(verify(second, endpoint.secret)).toBe(false);
  });

  it("when retries run out, the failure callback counts a final failure against the endpoint", async () => {
    const ws = await createWorkspace();
    const r = await receiver(() => ({ status: 500 }));
    const endpoint = await endpointFor(ws, r.url);
    await api(ws, `/v1/webhook-endpoints/${endpoint.id}/test`, { method: "POST" });
    await r.waitFor(4, 20_000); // 1 + 3 retries
    await qstash.idle();
    expect(r.received).toHaveLength(4);
    const callback = qstash.deliveries.filter((d) => d.url.endsWith("/internal/qstash/failed"));
    expect(callback.at(-1)?.status).toBe(200);
    const [row] = await testDb().select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpoint.id));
    expect(row?.consecutiveFailures).toBe(1);
    const [logged] = await log(ws, endpoint.id);
    expect(logged).toMatchObject({ status: "failed", attemptCount: 4 });
  });

  it("refuses a missing, forged, wrongly keyed, expired or misaddressed Upstash-Signature on both routes, and delivers nothing", async () => {
    const ws = await createWorkspace();
    const r = await receiver();
    const endpoint = await endpointFor(ws, r.url);
    const deliveryId = await pendingDelivery(ws, endpoint.id);
    const body = JSON.stringify({ deliveryId });
    const failureBody = JSON.stringify({ sourceBody: Buffer.from(body).toString("base64") });

    for (const [path, raw] of [
      ["/internal/qstash/deliver", body],
      ["/internal/qstash/failed", failureBody],
    ] as const) {
      const sub = publicBase + path;
      const post = (signature?: string) => callQstashRoute(path, raw, signature);
      const refused = async (signature?: string) => {
        const err = await expectError(await post(signature), 401, "unauthorized");
        expect(err.message).toMatch(/Upstash-Signature/);
      };
      await refused();
      await refused("not.a.jwt");
      await refused(await qstashJwt("some-other-key", { sub, body: raw }));
      // Right key, but the body hash is not this body's.
      await refused(await qstashJwt(qstash.currentSigningKey, { sub, body: raw, bodyHash: "AAAA" }));
      // Right key and body, but expired (well past the 5 s clock tolerance).
      await refused(await qstashJwt(qstash.currentSigningKey, { sub, body: raw, issuedAt: -600, expiresIn: -300 }));
      // Right key and body, but no jti, or no exp: such a signature cannot be told from its replay.
      await refused(await qstashJwt(qstash.currentSigningKey, { sub, body: raw, jti: null }));
      await refused(await qstashJwt(qstash.currentSigningKey, { sub, body: raw, expiresIn: null }));
      // Right key and body, but addressed to another URL.
      await refused(await qstashJwt(qstash.currentSigningKey, { sub: `https://evil.example.com${path}`, body: raw }));
      await refused(
        await qstashJwt(qstash.currentSigningKey, {
          sub: publicBase + (path.endsWith("deliver") ? "/internal/qstash/failed" : "/internal/qstash/deliver"),
          body: raw,
        }),
      );
    }

    expect(r.received).toHaveLength(0);
    const [row] = await testDb().select().from(webhookDeliveries).where(eq(webhookDeliveries.id, deliveryId));
    expect(row).toMatchObject({ status: "pending", attemptCount: 0 });
    const [ep] = await testDb().select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpoint.id));
    expect(ep?.consecutiveFailures).toBe(0);
  });

  it("accepts a JWT signed with the next signing key (key rollover)", async () => {
    const ws = await createWorkspace();
    const r = await receiver();
    const endpoint = await endpointFor(ws, r.url);
    const deliveryId = await pendingDelivery(ws, endpoint.id);
    const body = JSON.stringify({ deliveryId });
    const signature = await qstashJwt(qstash.nextSigningKey, { sub: `${publicBase}/internal/qstash/deliver`, body });
    const res = await callQstashRoute("/internal/qstash/deliver", body, signature);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, statusCode: 200, retry: false });
    expect(r.received.map((x) => x.headers["x-service-delivery-id"])).toEqual([deliveryId]);
    const [row] = await testDb().select().from(webhookDeliveries).where(eq(webhookDeliveries.id, deliveryId));
    expect(row).toMatchObject({ status: "succeeded", attemptCount: 1 });
  });

  it("a failed attempt answers QStash 502 receiver_failed in the one error body; an unreadable failure callback is a 400", async () => {
    const ws = await createWorkspace();
    const r = await receiver(() => ({ status: 500, body: "down" }));
    const endpoint = await endpointFor(ws, r.url);
    const deliveryId = await pendingDelivery(ws, endpoint.id);
    const body = JSON.stringify({ deliveryId });
    const path = "/internal/qstash/deliver";
    const res = await callQstashRoute(path, body, await qstashJwt(qstash.currentSigningKey, { sub: publicBase + path, body }));
    const err = await expectError(res, 502, "receiver_failed");
    expect(err.message).toContain("HTTP 500");
    expect(r.received).toHaveLength(1);

    const failed = "/internal/qstash/failed";
    const bad = JSON.stringify({ sourceBody: "%%% not base64 %%%" });
    await expectError(
      await callQstashRoute(failed, bad, await qstashJwt(qstash.currentSigningKey, { sub: publicBase + failed, body: bad })),
      400,
      "validation_failed",
    );
    const [ep] = await testDb().select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpoint.id));
    expect(ep?.consecutiveFailures).toBe(0);
  });
});

describe("a QStash call for an attempt already made makes no other", () => {
  const path = "/internal/qstash/deliver";
  const signed = (body: string) => qstashJwt(qstash.currentSigningKey, { sub: publicBase + path, body });
  const attemptsOf = async (deliveryId: string) => {
    const [row] = await testDb().select().from(webhookDeliveries).where(eq(webhookDeliveries.id, deliveryId));
    return row?.attemptCount;
  };

  it("a replayed call is refused (409) whatever headers it carries, and copies of one call sent at once make one attempt", async () => {
    const ws = await createWorkspace();
    const r = await receiver();
    const endpoint = await endpointFor(ws, r.url);
    const deliveryId = await pendingDelivery(ws, endpoint.id);
    const body = JSON.stringify({ deliveryId });
    const signature = await signed(body);
    const headers = qstashHeaders(`msg_${newId()}`, 0);
    expect((await callQstashRoute(path, body, signature, headers)).status).toBe(200);
    for (const replayHeaders of [headers, qstashHeaders(`msg_${newId()}`, 0), qstashHeaders(headers["upstash-message-id"], 3), {}]) {
      const err = await expectError(await callQstashRoute(path, body, signature, replayHeaders), 409, "conflict");
      expect(err.message).toMatch(/replayed/);
    }

    const second = await pendingDelivery(ws, endpoint.id);
    const secondBody = JSON.stringify({ deliveryId: second });
    const secondSignature = await signed(secondBody);
    const secondHeaders = qstashHeaders(`msg_${newId()}`, 0);
    const copies = await Promise.all(Array.from({ length: 6 }, () => callQstashRoute(path, secondBody, secondSignature, secondHeaders)));
    expect(copies.map((res) => res.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);

    expect(r.received.map((x) => x.headers["x-service-delivery-id"])).toEqual([deliveryId, second]);
    expect(await attemptsOf(deliveryId)).toBe(1);
    expect(await attemptsOf(second)).toBe(1);
  });

  it("QStash calling again: a retry of a failed attempt goes; a copy of an attempt made, or of a finished message, makes none", async () => {
    const ws = await createWorkspace();
    const r = await receiver((n) => (n === 1 ? { status: 503 } : { status: 200 }));
    const endpoint = await endpointFor(ws, r.url);
    const deliveryId = await pendingDelivery(ws, endpoint.id);
    const body = JSON.stringify({ deliveryId });
    const messageId = `msg_${newId()}`;
    // Each call freshly signed, as QStash signs every call it makes.
    const call = async (retried: number) => callQstashRoute(path, body, await signed(body), qstashHeaders(messageId, retried));

    await expectError(await call(0), 502, "receiver_failed");
    expect((await expectError(await call(0), 409, "conflict")).message).toMatch(/made already/);
    const retry = await call(1);
    expect(retry.status).toBe(200);
    expect(await retry.json()).toEqual({ ok: true, statusCode: 200, retry: false });
    for (const retried of [1, 2]) {
      const again = await call(retried);
      expect(again.status).toBe(200); // QStash stops: the message is done
      expect(await again.json()).toEqual({ ok: true, statusCode: 200, retry: false });
    }

    expect(r.received).toHaveLength(2);
    const [logged] = await log(ws, endpoint.id);
    expect(logged?.attempts.map((a) => [a.attempt, a.statusCode])).toEqual([
      [1, 503],
      [2, 200],
    ]);
  });

  it("the failure callback replayed or called again counts its final failure once", async () => {
    const ws = await createWorkspace();
    const endpoint = await endpointFor(ws, (await receiver()).url);
    const deliveryId = await pendingDelivery(ws, endpoint.id);
    const failed = "/internal/qstash/failed";
    const body = JSON.stringify({ sourceBody: Buffer.from(JSON.stringify({ deliveryId })).toString("base64") });
    const sign = () => qstashJwt(qstash.currentSigningKey, { sub: publicBase + failed, body });
    const headers = qstashHeaders(`msg_${newId()}_cb`, 0);
    const signature = await sign();
    expect((await callQstashRoute(failed, body, signature, headers)).status).toBe(200);
    await expectError(await callQstashRoute(failed, body, signature, headers), 409, "conflict");
    expect((await callQstashRoute(failed, body, await sign(), headers)).status).toBe(200);
    const [ep] = await testDb().select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpoint.id));
    expect(ep?.consecutiveFailures).toBe(1);
  });
});

/** A delivery written but never dispatched: what QStash would be asked to deliver. */
async function pendingDelivery(ws: Workspace, endpointId: string): Promise<string> {
  const id = newId();
  await testDb()
    .insert(webhookDeliveries)
    .values({
      id,
      organizationId: ws.organizationId,
      endpointId,
      eventId: newId(),
      event: "call.completed",
      payload: JSON.stringify({ deliveryId: id, event: "call.completed", channel: "voice", timestamp: new Date().toISOString() }),
    });
  return id;
}

const callQstashRoute = (path: string, body: string, signature?: string, headers: Record<string, string> = {}) =>
  fetch(worker.baseUrl + path, {
    method: "POST",
    headers: { "content-type": "application/json", ...(signature ? { "upstash-signature": signature } : {}), ...headers },
    body,
  });
