// The production path end to end: the worker publishes through @upstash/qstash to a
// protocol-level QStash stand-in, which calls the worker back with Upstash-Signature JWTs
// that the real Receiver verifies, retrying non-2xx answers.
import { eq } from "drizzle-orm";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type QstashStandIn, startQstash } from "../../../dev/qstash";
import { freePort, startWorker } from "../../../dev/stack";
import { webhookEndpoints } from "../../../src/db/schema";
import type { EndpointView } from "../../../src/webhooks/endpoints";
import type { DeliveryView } from "../../../src/webhooks/log";
import { createWorkspace, json, stack, testDb, type Workspace } from "../../harness";
import { startReceiver } from "../../receiver";
import { stripeAccepts } from "../../stripe";

let qstash: QstashStandIn;
let worker: Awaited<ReturnType<typeof startWorker>>;

beforeAll(async () => {
  // Retries 1.1 s apart, so every attempt's signature timestamp (whole seconds) is visibly fresh.
  qstash = await startQstash({ retryDelayMs: () => 1100 });
  const port = await freePort();
  worker = await startWorker(
    {
      ...stack().vars,
      QSTASH_TOKEN: qstash.token,
      QSTASH_URL: qstash.url,
      QSTASH_CURRENT_SIGNING_KEY: qstash.currentSigningKey,
      QSTASH_NEXT_SIGNING_KEY: qstash.nextSigningKey,
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      WEBHOOK_MAX_RETRIES: "3",
    },
    { port },
  );
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await qstash?.stop();
});

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
    const r = await startReceiver((n) => (n <= 2 ? { status: 503, body: "busy" } : { status: 200, body: "ok" }));
    try {
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
    } finally {
      await r.stop();
    }
  });

  it("a retry after rotation is signed with the new secret: the old one stops at once, even for queued retries", async () => {
    const ws = await createWorkspace();
    let rotated: string | undefined;
    const r = await startReceiver((n) => (n === 1 ? { status: 500 } : { status: 200 }));
    try {
      const endpoint = await endpointFor(ws, r.url);
      await api(ws, `/v1/webhook-endpoints/${endpoint.id}/test`, { method: "POST" });
      await r.waitFor(1);
      rotated = (await json<{ secret: string }>(await api(ws, `/v1/webhook-endpoints/${endpoint.id}/rotate-secret`, { method: "POST" })))
        .secret;
      await r.waitFor(2, 20_000);
      const [first, second] = r.received;
      const verify = (x: typeof first, secret: string) => stripeAccepts(x?.body ?? "", String(x?.headers["x-service-signature"]), secret);
      expect(verify(first, endpoint.secret)).toBe(true);
      expect(verify(second, rotated)).toBe(true);
      expect(verify(second, endpoint.secret)).toBe(false);
    } finally {
      await r.stop();
    }
  });

  it("when retries run out, the failure callback counts a final failure against the endpoint", async () => {
    const ws = await createWorkspace();
    const r = await startReceiver(() => ({ status: 500 }));
    try {
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
    } finally {
      await r.stop();
    }
  });

  it("refuses a missing, forged or wrongly keyed Upstash-Signature, and delivers nothing", async () => {
    const ws = await createWorkspace();
    const r = await startReceiver();
    try {
      const endpoint = await endpointFor(ws, r.url);
      const body = JSON.stringify({ deliveryId: "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77" });
      const url = `${worker.baseUrl}/internal/qstash/deliver`;
      const post = (headers: Record<string, string>) =>
        fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
      const jwt = (key: string, claims: Record<string, unknown> = {}) =>
        new SignJWT({ body: "", ...claims })
          .setProtectedHeader({ alg: "HS256", typ: "JWT" })
          .setIssuer("Upstash")
          .setSubject(url)
          .setIssuedAt()
          .setExpirationTime("5m")
          .sign(new TextEncoder().encode(key));

      expect((await post({})).status).toBe(401);
      expect((await post({ "upstash-signature": "not.a.jwt" })).status).toBe(401);
      expect((await post({ "upstash-signature": await jwt("some-other-key") })).status).toBe(401);
      // Right key, but the body hash does not match this body.
      expect((await post({ "upstash-signature": await jwt(qstash.currentSigningKey, { body: "AAAA" }) })).status).toBe(401);
      expect(r.received).toHaveLength(0);
      expect(endpoint.id).toBeTruthy();
    } finally {
      await r.stop();
    }
  });
});
