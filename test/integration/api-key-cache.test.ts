// The API key hot path (docs/authentication.md): a key is verified from Redis in one round trip,
// Postgres is read on a miss only, revocation reaches every worker before it returns, last-used
// is kept in Redis and flushed to Postgres by the scheduled handler, and with Redis unreachable
// keys are verified from Postgres (never accepted when revoked).
import { Redis } from "@upstash/redis/cloudflare";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, startWorker } from "../../dev/stack";
import { createApiKey, LAST_USED_KEY, rememberKey, revokeApiKey } from "../../src/api-keys/service";
import { agents, apiKeys } from "../../src/db/schema";
import { sha256Hex } from "../../src/lib/crypto";
import { createAgent } from "../support/calls";
import { createWorkspace, expectError, json, signIn, stack, testDb, testRedis, type Workspace } from "../support/harness";
import { PostgresCounter } from "../support/postgres-counter";

type Worker = Awaited<ReturnType<typeof startWorker>>;

const counter = new PostgresCounter();
let a: Worker;
let b: Worker;
let noRedis: Worker;
let deadRedisUrl: string;

beforeAll(async () => {
  const { vars } = stack();
  await counter.start({ httpEndpoint: vars.DATABASE_HTTP_ENDPOINT as string, wsProxy: vars.DATABASE_WS_PROXY as string });
  deadRedisUrl = `http://127.0.0.1:${await freePort()}`; // nothing listens there
  [a, b, noRedis] = await Promise.all([
    startWorker({ ...vars, ...counter.vars }),
    startWorker({ ...vars }),
    startWorker({ ...vars, UPSTASH_REDIS_REST_URL: deadRedisUrl }),
  ]);
}, 120_000);

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop(), noRedis?.stop()]);
  await counter.stop();
});

const me = (worker: Worker, key: string) => fetch(`${worker.baseUrl}/v1/me`, { headers: { authorization: `Bearer ${key}` } });

describe("the steady state touches no Postgres", () => {
  it("reads Postgres on the first request of a key only; GET /v1/me then opens nothing", async () => {
    const ws = await createWorkspace();
    counter.reset();
    expect((await me(a, ws.apiKey)).status).toBe(200);
    expect(counter.sqlRequests).toBeGreaterThanOrEqual(1); // the miss
    // The cache fill runs after the response: wait until it is in Redis.
    const hash = await sha256Hex(ws.apiKey);
    for (let i = 0; i < 50 && !(await testRedis().exists(`ak:${hash}`)); i++) await new Promise((r) => setTimeout(r, 20));
    counter.reset();
    for (let i = 0; i < 20; i++) {
      const res = await me(a, ws.apiKey);
      expect(res.status).toBe(200);
      expect(await json<{ organizationId: string }>(res)).toMatchObject({ organizationId: ws.organizationId });
    }
    expect(counter.sqlRequests).toBe(0);
    expect(counter.connections).toBe(0);
  });

  it("answers an unknown key 401 and remembers it: the second try reads no Postgres", async () => {
    const unknown = `sk-live-${"Z".repeat(20)}${Date.now()}`;
    counter.reset();
    await expectError(await me(a, unknown), 401, "unauthorized");
    const first = counter.sqlRequests;
    expect(first).toBeGreaterThanOrEqual(1);
    const hash = await sha256Hex(unknown);
    for (let i = 0; i < 50 && !(await testRedis().exists(`ak:${hash}`)); i++) await new Promise((r) => setTimeout(r, 20));
    const again = await me(a, unknown);
    await expectError(again, 401, "unauthorized");
    expect(counter.sqlRequests).toBe(first);
  });

  it("a list route reads its rows over HTTP and opens no WebSocket connection", async () => {
    const ws = await createWorkspace();
    await me(a, ws.apiKey);
    counter.reset();
    const res = await fetch(`${a.baseUrl}/v1/agents`, { headers: { authorization: `Bearer ${ws.apiKey}` } });
    expect(res.status).toBe(200);
    expect(counter.connections).toBe(0);
  });
});

describe("revocation is immediate on every worker", () => {
  const cachedOnBoth = async (ws: Workspace) => {
    expect((await me(a, ws.apiKey)).status).toBe(200);
    expect((await me(b, ws.apiKey)).status).toBe(200);
    const hash = await sha256Hex(ws.apiKey);
    for (let i = 0; i < 50 && !(await testRedis().exists(`ak:${hash}`)); i++) await new Promise((r) => setTimeout(r, 20));
    expect(await testRedis().get(`ak:${hash}`)).not.toBeNull();
  };

  it("a key revoked through worker A's dashboard API is refused by worker B on its next request", async () => {
    const ws = await createWorkspace();
    await cachedOnBoth(ws);
    const { cookie } = await signIn(ws.admin.email, ws.admin.password);
    const revoked = await fetch(`${a.baseUrl}/dashboard/api/api-keys/${ws.apiKeyId}/revoke`, {
      method: "POST",
      headers: { cookie, origin: a.baseUrl, "content-type": "application/json", "x-organization-id": ws.organizationId },
      body: "{}",
    });
    expect(revoked.status).toBe(200);
    await expectError(await me(b, ws.apiKey), 401, "unauthorized");
    await expectError(await me(a, ws.apiKey), 401, "unauthorized");
  });

  it("a cache fill that raced the revocation never overwrites its tombstone", async () => {
    const ws = await createWorkspace();
    await cachedOnBoth(ws);
    await revokeApiKey({ ctx: { db: testDb(), redis: testRedis(), organizationId: ws.organizationId }, input: { id: ws.apiKeyId } });
    // A request that read Postgres just before the revocation now fills the cache (SET NX).
    const hash = await sha256Hex(ws.apiKey);
    await rememberKey({
      ctx: { redis: testRedis() },
      input: { hash, key: { keyId: ws.apiKeyId, organizationId: ws.organizationId, user: null } },
    });
    await expectError(await me(b, ws.apiKey), 401, "unauthorized");
  });

  it("with Redis unreachable, revoking answers 503 cache_unavailable; the key is refused from Postgres, and a retry completes it", async () => {
    const ws = await createWorkspace();
    await cachedOnBoth(ws);
    const dead = new Redis({ url: deadRedisUrl, token: "x", retry: false });
    await expect(
      revokeApiKey({ ctx: { db: testDb(), redis: dead, organizationId: ws.organizationId }, input: { id: ws.apiKeyId } }),
    ).rejects.toMatchObject({ code: "cache_unavailable" });
    // Postgres has it: a worker that cannot reach Redis verifies from Postgres and refuses it.
    await expectError(await me(noRedis, ws.apiKey), 401, "unauthorized");
    // The retry (Redis reachable again) tells the cache, then says it was already revoked.
    await expect(
      revokeApiKey({ ctx: { db: testDb(), redis: testRedis(), organizationId: ws.organizationId }, input: { id: ws.apiKeyId } }),
    ).rejects.toMatchObject({ code: "conflict" });
    await expectError(await me(b, ws.apiKey), 401, "unauthorized");
  });
});

describe("a read alongside the check (a key this isolate has seen)", () => {
  const get = (worker: Worker, path: string, key: string) =>
    fetch(`${worker.baseUrl}${path}`, { headers: { authorization: `Bearer ${key}` } });

  it("a key revoked since: its read ran, and the answer is the 401 any refused key gets, with none of the rows", async () => {
    const ws = await createWorkspace();
    const agent = await createAgent(ws, { name: "Agent only the workspace may see" });
    const seen = await get(a, "/v1/agents", ws.apiKey);
    expect(await seen.text()).toContain("Agent only the workspace may see");
    await revokeApiKey({ ctx: { db: testDb(), redis: testRedis(), organizationId: ws.organizationId }, input: { id: ws.apiKeyId } });

    counter.reset();
    const refused = await get(a, "/v1/agents", ws.apiKey);
    const text = await refused.text();
    expect(refused.status).toBe(401);
    expect(text).not.toContain("Agent only the workspace may see");
    // The read went out alongside the check (that is the point), and its result was thrown away.
    expect(counter.sqlRequests).toBeGreaterThanOrEqual(1);
    const unknown = await get(a, "/v1/agents", `sk-live-${"Z".repeat(40)}`);
    const strip = (body: string) => ({ ...JSON.parse(body), requestId: "" });
    expect(strip(text)).toEqual(strip(await unknown.text()));
    expect(refused.headers.get("content-type")).toBe(unknown.headers.get("content-type"));
    expect(refused.headers.get("ratelimit")).toBeNull();

    // One agent by id: 401, not 200 (nor 404 for another's).
    await expectError(await get(a, `/v1/agents/${agent.id}`, ws.apiKey), 401, "unauthorized");
    // Refused once, the key is forgotten: no read goes out for it any more.
    counter.reset();
    await expectError(await get(a, "/v1/agents", ws.apiKey), 401, "unauthorized");
    expect(counter.sqlRequests).toBe(0);
  });

  it("writes wait for the check: a revoked key's POST creates nothing", async () => {
    const ws = await createWorkspace();
    expect((await get(a, "/v1/agents", ws.apiKey)).status).toBe(200);
    await revokeApiKey({ ctx: { db: testDb(), redis: testRedis(), organizationId: ws.organizationId }, input: { id: ws.apiKeyId } });
    const res = await fetch(`${a.baseUrl}/v1/agents`, {
      method: "POST",
      headers: { authorization: `Bearer ${ws.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Never", personaId: "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77", llmModel: "sandbox-chat" }),
    });
    await expectError(res, 401, "unauthorized");
    expect(await testDb().select().from(agents).where(eq(agents.organizationId, ws.organizationId))).toEqual([]);
  });
});

describe("Redis unreachable", () => {
  it("a valid key keeps working from Postgres; the limiter says it is unavailable", async () => {
    const ws = await createWorkspace();
    const res = await me(noRedis, ws.apiKey);
    expect(res.status).toBe(200);
    expect(res.headers.get("ratelimit-status")).toBe("unavailable");
    const agents = await fetch(`${noRedis.baseUrl}/v1/agents`, { headers: { authorization: `Bearer ${ws.apiKey}` } });
    expect(agents.status).toBe(200);
  });

  it("a revoked key and an unknown key are refused", async () => {
    const ws = await createWorkspace();
    const { key, secret } = await createApiKey({
      ctx: { db: testDb(), organizationId: ws.organizationId },
      input: { name: "x", createdByUserId: null },
    });
    await revokeApiKey({ ctx: { db: testDb(), redis: testRedis(), organizationId: ws.organizationId }, input: { id: key.id } });
    await expectError(await me(noRedis, secret), 401, "unauthorized");
    await expectError(await me(noRedis, `sk-live-${"Q".repeat(40)}`), 401, "unauthorized");
  });

  it("last-used is written to Postgres directly", async () => {
    const ws = await createWorkspace();
    expect((await me(noRedis, ws.apiKey)).status).toBe(200);
    let row: { lastUsedAt: Date | null } | undefined;
    for (let i = 0; i < 50; i++) {
      [row] = await testDb().select({ lastUsedAt: apiKeys.lastUsedAt }).from(apiKeys).where(eq(apiKeys.id, ws.apiKeyId));
      if (row?.lastUsedAt) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(row?.lastUsedAt).toBeInstanceOf(Date);
  });
});

describe("last used", () => {
  it("is shown fresh at once, and reaches Postgres when the scheduled handler runs", async () => {
    const ws = await createWorkspace();
    const before = Date.now();
    expect((await me(b, ws.apiKey)).status).toBe(200); // a miss: recorded by the fill
    expect((await me(b, ws.apiKey)).status).toBe(200); // a hit: recorded by the script
    const { cookie } = await signIn(ws.admin.email, ws.admin.password);
    let shown: string | null = null;
    for (let i = 0; i < 50 && !shown; i++) {
      const list = await fetch(`${b.baseUrl}/dashboard/api/api-keys`, { headers: { cookie, "x-organization-id": ws.organizationId } });
      shown = (await json<{ data: Array<{ id: string; lastUsedAt: string | null }> }>(list)).data.find((k) => k.id === ws.apiKeyId)
        ?.lastUsedAt as string | null;
      if (!shown) await new Promise((r) => setTimeout(r, 20));
    }
    expect(Date.parse(shown as string)).toBeGreaterThanOrEqual(before - 1000);
    const hash = await sha256Hex(ws.apiKey);
    expect(await testRedis().hget(LAST_USED_KEY, hash)).not.toBeNull();

    const flushed = await fetch(`${b.baseUrl}/__scheduled?cron=${encodeURIComponent("* * * * *")}`);
    expect(flushed.status).toBe(200);
    let row: { lastUsedAt: Date | null } | undefined;
    for (let i = 0; i < 100; i++) {
      [row] = await testDb().select({ lastUsedAt: apiKeys.lastUsedAt }).from(apiKeys).where(eq(apiKeys.id, ws.apiKeyId));
      if (row?.lastUsedAt) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(row?.lastUsedAt?.getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(row?.lastUsedAt?.getTime()).toBeLessThanOrEqual(Date.now());
    // Flushed: Redis no longer holds it, and the list still shows the same time (now from Postgres).
    expect(await testRedis().hget(LAST_USED_KEY, hash)).toBeNull();
  });
});
