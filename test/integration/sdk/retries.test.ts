// The SDK's retries against the real worker: a 429 of its rate limiter, its 503 with Retry-After
// while its database is out of reach, 5xx without Retry-After, connections cut, and a call creation
// whose answer is lost after the worker placed the call: the retry carries the same
// Idempotency-Key and the telephony sandbox is dialled exactly once. The other 503s and the cut
// connections come from a gateway in front of the worker (test/support/gateway.ts), as a load balancer
// gives them while a worker restarts; the database goes out of reach behind another gateway, in
// front of the stack's SQL-over-HTTP endpoint.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startWorker } from "../../../dev/stack";
import { APIConnectionError, InternalServerError } from "../../../packages/sdk/src/index";
import { BUSY } from "../../support/callees";
import { addCallerId, sandboxCallsFrom } from "../../support/calls";
import { type Gateway, type GatewayAction, startGateway } from "../../support/gateway";
import { createWorkspace, stack, until } from "../../support/harness";
import { PERSONA, sdkFor } from "../../support/sdk";

let limited: Awaited<ReturnType<typeof startWorker>>;
const gateways: Gateway[] = [];
/** While true, the limited worker's database queries (SQL over HTTP) have their connection cut. */
let databaseDown = false;
let database: Gateway;

beforeAll(async () => {
  const sql = new URL(stack().vars.DATABASE_HTTP_ENDPOINT as string);
  database = await startGateway(sql.origin, () => (databaseDown ? { kind: "drop" } : { kind: "forward" }));
  limited = await startWorker({
    ...stack().vars,
    RATE_LIMIT_REQUESTS: "2",
    RATE_LIMIT_WINDOW: "3 s",
    DATABASE_HTTP_ENDPOINT: `${database.url}${sql.pathname}`,
  });
}, 120_000);

afterAll(async () => {
  await Promise.all([limited?.stop(), database?.stop()]);
});

afterEach(async () => {
  await Promise.all(gateways.splice(0).map((g) => g.stop()));
});

async function gateway(script: (n: number, req: { method: string; path: string }) => GatewayAction) {
  const g = await startGateway(stack().baseUrl, script);
  gateways.push(g);
  return g;
}

const unavailable = (headers: Record<string, string> = {}): GatewayAction => ({
  kind: "answer",
  status: 503,
  headers,
  body: JSON.stringify({
    statusCode: 503,
    error: "Service Unavailable",
    code: "service_unavailable",
    message: "Restarting.",
    requestId: "00000000-0000-7000-8000-000000000000",
  }),
});

describe("SDK retries", () => {
  it("waits out a real 429's Retry-After, then succeeds", async () => {
    const ws = await createWorkspace();
    const client = sdkFor(ws, { baseURL: limited.baseUrl, maxRetries: 3 });
    // Two requests fit the window; the next one meets the limiter (on a slow machine, a later one).
    for (let i = 0; i < 6 && !client.attempts.some((a) => a.status === 429); i++) {
      expect((await client.me.retrieve()).organizationId).toBe(ws.organizationId);
    }
    const statuses = client.attempts.map((a) => a.status);
    expect(statuses).toContain(429);
    expect(statuses.at(-1)).toBe(200);
    // Every retry came no sooner than the Retry-After of the 429 before it.
    client.attempts.forEach((a, i) => {
      const next = client.attempts[i + 1];
      if (a.status !== 429 || !next) return;
      const retryAfter = Number(a.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(next.at - a.at).toBeGreaterThanOrEqual(retryAfter * 1000 - 5);
    });
  });

  it("waits out the worker's own 503 and its Retry-After while the database is out of reach, then gets the answer", async () => {
    const ws = await createWorkspace(); // its key is in no cache yet: the worker reads it from the database
    databaseDown = true;
    const client = sdkFor(ws, {
      baseURL: limited.baseUrl,
      // The database is back once the first answer has arrived.
      fetch: async (input, init) => {
        const res = await fetch(input, init);
        databaseDown = false;
        return res;
      },
    });
    const started = Date.now();
    expect((await client.me.retrieve()).organizationId).toBe(ws.organizationId);
    const [first, second] = client.attempts;
    expect(client.attempts.map((a) => a.status)).toEqual([503, 200]);
    expect(first?.headers.get("retry-after")).toBe("2");
    expect(database.exchanges.some((e) => e.action === "drop")).toBe(true);
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(1_995);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_000);
  });

  it("waits out a gateway's 503 and its Retry-After, then gets the worker's answer", async () => {
    const ws = await createWorkspace();
    const g = await gateway((n) => (n === 1 ? unavailable({ "retry-after": "1" }) : { kind: "forward" }));
    const client = sdkFor(ws, { baseURL: g.url });
    const started = Date.now();
    expect((await client.me.retrieve()).organizationId).toBe(ws.organizationId);
    expect(client.attempts.map((a) => a.status)).toEqual([503, 200]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
    expect((client.attempts[1]?.at ?? 0) - (client.attempts[0]?.at ?? 0)).toBeGreaterThanOrEqual(995);
  });

  it("backs off exponentially with jitter on a 503 without Retry-After, and gives up after maxRetries", async () => {
    const ws = await createWorkspace();
    const g = await gateway(() => unavailable());
    const client = sdkFor(ws, { baseURL: g.url, maxRetries: 2 });
    const err = await client.agents.list().then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(InternalServerError);
    expect(g.exchanges).toHaveLength(3);
    const [a, b, c] = client.attempts.map((x) => x.at);
    // 0.5 s then 1 s, each shortened by up to a quarter.
    expect((b ?? 0) - (a ?? 0)).toBeGreaterThanOrEqual(370);
    expect((b ?? 0) - (a ?? 0)).toBeLessThan(1_000);
    expect((c ?? 0) - (b ?? 0)).toBeGreaterThanOrEqual(745);
    expect((c ?? 0) - (b ?? 0)).toBeLessThan(2_000);
  });

  it("retries a real 5xx of the Models API, then throws InternalServerError", async () => {
    const client = sdkFor(await createWorkspace(), { maxRetries: 1 });
    const err = await client.chat.create({ model: "fault-500", messages: [{ role: "user", content: "hi" }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InternalServerError);
    expect(client.attempts.map((a) => a.status)).toEqual([502, 502]);
  });

  it("retries a read whose connection was cut; never a creation, which may have been done", async () => {
    const ws = await createWorkspace();
    const g = await gateway((n) => (n === 1 || n === 3 ? { kind: "drop" } : { kind: "forward" }));
    const client = sdkFor(ws, { baseURL: g.url });
    expect((await client.agents.list()).data).toEqual([]);
    expect(g.exchanges.map((e) => e.action)).toEqual(["drop", "forward"]);

    const err = await client.agents.create({ name: "Once", personaId: PERSONA }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(APIConnectionError);
    expect(g.exchanges.map((e) => e.action)).toEqual(["drop", "forward", "drop"]);
  });

  it("a call creation whose answer is lost is retried with the same Idempotency-Key: one call, dialled once", async () => {
    const ws = await createWorkspace();
    const from = await addCallerId(ws);
    const agent = await sdkFor(ws).agents.create({ name: "Caller", personaId: PERSONA, llmModel: "sandbox-chat" });
    // The first attempt reaches the worker, which places the call; its answer never comes back.
    const g = await gateway((n) => (n === 1 ? { kind: "forward-then-hold" } : { kind: "forward" }));
    const client = sdkFor(ws, { baseURL: g.url, timeout: 3_000 });

    const call = await client.calls.create(agent.id, { phoneNumber: BUSY, phoneNumberId: from.id });

    expect(g.exchanges).toHaveLength(2);
    const [first, second] = g.exchanges;
    const key = first?.headers["idempotency-key"];
    expect(key).toMatch(/^sdk-[0-9a-f-]{36}$/);
    expect(second?.headers["idempotency-key"]).toBe(key);
    await until(
      async () => first?.upstream,
      (u) => u !== undefined,
    );
    expect(first?.upstream?.status).toBe(201);
    expect(JSON.parse(first?.upstream?.body ?? "{}").id).toBe(call.id);
    expect(second?.upstream?.status).toBe(201);

    const dialled = await until(
      () => sandboxCallsFrom(from.number),
      (calls) => calls.length > 1,
      1_500,
    );
    expect(dialled).toHaveLength(1);
    expect(dialled[0]?.to).toBe(BUSY);
    expect((await sdkFor(ws).calls.list({ agentId: agent.id })).data.map((c) => c.id)).toEqual([call.id]);
  });

  it("sends the caller's own Idempotency-Key unchanged, and a new one for each new creation", async () => {
    const ws = await createWorkspace();
    const agent = await sdkFor(ws).agents.create({ name: "Caller", personaId: PERSONA, llmModel: "sandbox-chat" });
    const g = await gateway(() => ({ kind: "forward" }));
    const client = sdkFor(ws, { baseURL: g.url });
    const a = await client.calls.create(agent.id, { phoneNumber: BUSY }, { idempotencyKey: "order-1042-reminder" });
    const again = await client.calls.create(agent.id, { phoneNumber: BUSY }, { idempotencyKey: "order-1042-reminder" });
    expect(again.id).toBe(a.id);
    expect(g.exchanges[1]?.upstream?.headers.get("idempotent-replayed")).toBe("true");
    const b = await client.calls.create(agent.id, { phoneNumber: BUSY });
    const c = await client.calls.create(agent.id, { phoneNumber: BUSY });
    expect(new Set([a.id, b.id, c.id]).size).toBe(3);
    const keys = g.exchanges.map((e) => e.headers["idempotency-key"]);
    expect(keys.slice(0, 2)).toEqual(["order-1042-reminder", "order-1042-reminder"]);
    expect(keys[2]).not.toBe(keys[3]);
  });
});
