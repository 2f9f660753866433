// The key check's one Redis script, against the local Upstash bridge on both engines (memory, and
// REDIS_URL when set): what a miss, a hit, a tombstone and a burst get. The worker-level behaviour
// (no Postgres in the steady state, revocation across workers) is in test/integration/api-key-cache.test.ts.
import { randomUUID } from "node:crypto";
import { Redis } from "@upstash/redis/cloudflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RedisBridge, startRedisBridge } from "../../../dev/redis-bridge";
import { checkApiKey, LAST_USED_KEY, rememberKey } from "../../../src/api-keys/service";
import { sha256Hex } from "../../../src/lib/crypto";
import { clearOfWindowEdge } from "../../support/windows";

const engines: Array<[string, string | undefined]> = [["memory", undefined]];
if (process.env.REDIS_URL) engines.push(["redis", process.env.REDIS_URL]);

const freshSecret = () => `sk-live-${randomUUID().replace(/-/g, "")}${randomUUID().replace(/-/g, "").slice(0, 8)}`;
const key = { keyId: randomUUID(), organizationId: randomUUID(), user: { id: randomUUID(), email: "a@example.test" } };

describe.each(engines)("API key check script (%s engine)", (_name, redisUrl) => {
  let bridge: RedisBridge;
  let redis: Redis;

  beforeAll(async () => {
    bridge = await startRedisBridge({ redisUrl, token: "test-token" });
    redis = new Redis({ url: bridge.url, token: bridge.token });
  });
  afterAll(() => bridge.stop());

  it("a miss is counted and says so; after the fill it is a hit that records last-used", async () => {
    const secret = freshSecret();
    const policy = { limit: 5, windowMs: 60_000 };
    await clearOfWindowEdge(policy.windowMs, 5_000); // the hit counts the miss only in the same window
    const miss = await checkApiKey({ ctx: { redis }, input: { hash: await sha256Hex(secret), policy } });
    expect(miss).toMatchObject({ status: "miss", limit: { success: true, remaining: 4 } });
    const hash = await sha256Hex(secret);
    await rememberKey({ ctx: { redis }, input: { hash, key } });
    expect(await redis.hget(LAST_USED_KEY, hash)).not.toBeNull();
    await redis.hdel(LAST_USED_KEY, hash);
    const hit = await checkApiKey({ ctx: { redis }, input: { hash: await sha256Hex(secret), policy } });
    expect(hit).toMatchObject({ status: "valid", key, limit: { success: true, remaining: 3 } });
    const used = Number(await redis.hget(LAST_USED_KEY, hash));
    expect(Math.abs(used - Date.now())).toBeLessThan(5_000);
  });

  it("an unknown key, once remembered, is refused without counting; a tombstone is never overwritten by a fill", async () => {
    const secret = freshSecret();
    const hash = await sha256Hex(secret);
    const policy = { limit: 3, windowMs: 60_000 };
    await checkApiKey({ ctx: { redis }, input: { hash: await sha256Hex(secret), policy } });
    await rememberKey({ ctx: { redis }, input: { hash, key: null } });
    for (let i = 0; i < 5; i++)
      expect(await checkApiKey({ ctx: { redis }, input: { hash: await sha256Hex(secret), policy } })).toEqual({
        status: "invalid",
        limit: null,
      });

    const revoked = freshSecret();
    const revokedHash = await sha256Hex(revoked);
    await redis.set(`ak:${revokedHash}`, "!revoked");
    await rememberKey({ ctx: { redis }, input: { hash: revokedHash, key } }); // a fill that read Postgres before the revocation
    expect((await checkApiKey({ ctx: { redis }, input: { hash: await sha256Hex(revoked), policy } })).status).toBe("invalid");
  });

  it("a burst of 50 at a limit of 20 admits exactly 20 (21 at most across a window edge)", async () => {
    const hash = await sha256Hex(freshSecret());
    await rememberKey({ ctx: { redis }, input: { hash, key } });
    const results = await Promise.all(
      Array.from({ length: 50 }, () => checkApiKey({ ctx: { redis }, input: { hash, policy: { limit: 20, windowMs: 10_000 } } })),
    );
    const admitted = results.filter((r) => r.limit?.success).length;
    expect(admitted).toBeGreaterThanOrEqual(20);
    expect(admitted).toBeLessThanOrEqual(21);
    expect(results.every((r) => r.status === "valid")).toBe(true);
  });

  it("over the limit: refused with the window's reset time", async () => {
    const secret = freshSecret();
    await rememberKey({ ctx: { redis }, input: { hash: await sha256Hex(secret), key } });
    const policy = { limit: 2, windowMs: 60_000 };
    await clearOfWindowEdge(policy.windowMs, 5_000);
    await checkApiKey({ ctx: { redis }, input: { hash: await sha256Hex(secret), policy } });
    await checkApiKey({ ctx: { redis }, input: { hash: await sha256Hex(secret), policy } });
    const third = await checkApiKey({ ctx: { redis }, input: { hash: await sha256Hex(secret), policy } });
    expect(third).toMatchObject({ status: "valid", limit: { success: false, remaining: 0 } });
    expect(third.limit?.reset).toBe((Math.floor(Date.now() / 60_000) + 1) * 60_000);
  });
});
