// The one sliding window (src/ratelimit/sliding-window.ts), against the local Upstash bridge on both
// engines (memory, and REDIS_URL when set), at chosen instants: the remaining count, a refusal, the
// previous window's weight at and after a window edge (rounded down, as @upstash/ratelimit's), the
// isolate's memory of refusals, and the API key check counting the same counters.
import { randomUUID } from "node:crypto";
import { Redis } from "@upstash/redis/cloudflare";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type RedisBridge, startRedisBridge } from "../../../dev/redis-bridge";
import { checkApiKey, rememberKey } from "../../../src/api-keys/service";
import type { ScriptRunner } from "../../../src/lib/redis-script";
import { forgetRefusals, slidingWindow, windowCall } from "../../../src/ratelimit/sliding-window";

const engines: Array<[string, string | undefined]> = [["memory", undefined]];
if (process.env.REDIS_URL) engines.push(["redis", process.env.REDIS_URL]);

const WINDOW_MS = 10_000;
/** The start of a window well ahead of now: the test picks its instants, Redis expires keys by its own clock. */
const windowStart = () => (Math.floor(Date.now() / WINDOW_MS) + 1_000) * WINDOW_MS;

describe("windowCall: the key layout", () => {
  it("names this window's and the previous window's counter after `<prefix>:<identifier>`, and when the window ends", () => {
    expect(windowCall("rl:widget:addr:10.0.0.1", 5, 60_000, 120_000 * 1000 + 59_999)).toEqual({
      keys: ["rl:widget:addr:10.0.0.1:2000", "rl:widget:addr:10.0.0.1:1999"],
      args: ["5", "60000", String(120_000 * 1000 + 59_999)],
      reset: 2001 * 60_000,
    });
  });
});

describe.each(engines)("slidingWindow (%s engine)", (_name, redisUrl) => {
  let bridge: RedisBridge;
  let redis: Redis;
  const policy = (limit: number) => ({ limit, seconds: WINDOW_MS / 1000, prefix: `test:rl:${randomUUID()}` });

  beforeAll(async () => {
    bridge = await startRedisBridge({ redisUrl, token: "test-token" });
    redis = new Redis({ url: bridge.url, token: bridge.token });
  });
  afterAll(() => bridge.stop());
  beforeEach(() => forgetRefusals());

  it("counts down the remaining requests, then refuses without counting, until the window's end", async () => {
    const p = policy(3);
    const t = windowStart() + 4_000;
    const results = [];
    for (let i = 0; i < 5; i++) results.push(await slidingWindow(redis, p, "id", t + i));
    const reset = t - 4_000 + WINDOW_MS;
    expect(results).toEqual([
      { success: true, remaining: 2, reset },
      { success: true, remaining: 1, reset },
      { success: true, remaining: 0, reset },
      { success: false, remaining: 0, reset },
      { success: false, remaining: 0, reset },
    ]);
    // Refusals are not counted: the window's counter holds the three admitted. It lives two windows and a second.
    const counter = windowCall(`${p.prefix}:id`, 3, WINDOW_MS, t).keys[0];
    expect(Number(await redis.get(counter))).toBe(3);
    const ttl = await redis.pttl(counter);
    expect(ttl).toBeGreaterThan(2 * WINDOW_MS);
    expect(ttl).toBeLessThanOrEqual(2 * WINDOW_MS + 1_000);
    // Each identifier has its own budget.
    expect(await slidingWindow(redis, p, "other", t)).toEqual({ success: true, remaining: 2, reset });
  });

  it.each([
    // [ms into the next window, weight of the previous window's 10 requests (rounded down), admitted]
    [0, 10, 0],
    [1, 9, 1], // 9.999 rounds down: the one extra request a burst straddling an edge may get
    [2_500, 7, 3],
    [5_000, 5, 5],
    [9_999, 0, 10],
  ])("%i ms after a window edge, the previous window's 10 weigh %i: %i more admitted", async (offset, weight, admitted) => {
    const p = policy(10);
    const start = windowStart();
    for (let i = 0; i < 10; i++) expect((await slidingWindow(redis, p, "id", start + i)).success).toBe(true);
    const at = start + WINDOW_MS + offset;
    const results = [];
    for (let i = 0; i < 11; i++) results.push(await slidingWindow(redis, p, "id", at));
    expect(results.filter((r) => r.success)).toHaveLength(admitted);
    expect(results.slice(0, admitted).map((r) => r.remaining)).toEqual(Array.from({ length: admitted }, (_, i) => 10 - weight - i - 1));
    expect(results[admitted]).toEqual({ success: false, remaining: 0, reset: start + 2 * WINDOW_MS });
  });

  it("two windows on, the old window no longer counts", async () => {
    const p = policy(2);
    const start = windowStart();
    for (let i = 0; i < 2; i++) await slidingWindow(redis, p, "id", start + i);
    expect((await slidingWindow(redis, p, "id", start + 2 * WINDOW_MS)).remaining).toBe(1);
  });

  it("an identifier refused in this isolate is answered without Redis until its window ends", async () => {
    let calls = 0;
    const counting = {
      evalsha: (sha: string, keys: string[], args: unknown[]) => {
        calls++;
        return redis.evalsha(sha, keys, args);
      },
      eval: (script: string, keys: string[], args: unknown[]) => {
        calls++;
        return redis.eval(script, keys, args);
      },
    } as ScriptRunner;
    const p = policy(1);
    const t = windowStart();
    expect((await slidingWindow(counting, p, "id", t)).success).toBe(true);
    expect((await slidingWindow(counting, p, "id", t + 1)).success).toBe(false);
    const asked = calls;
    expect(await slidingWindow(counting, p, "id", t + 9_000)).toEqual({ success: false, remaining: 0, reset: t + WINDOW_MS });
    expect(calls).toBe(asked);
    // The next window asks Redis again (and the previous window's 1 still weighs 1 at its start).
    expect((await slidingWindow(counting, p, "id", t + WINDOW_MS)).success).toBe(false);
    expect(calls).toBeGreaterThan(asked);
  });

  it("the API key check counts the same window in the same counters (`rl:key:<hash>`) as the standalone script", async () => {
    const hash = randomUUID().replace(/-/g, "");
    await rememberKey({ ctx: { redis }, input: { hash, key: { keyId: randomUUID(), organizationId: randomUUID(), user: null } } });
    const p = { limit: 3, seconds: 60, prefix: "rl" };
    // Clear of a window edge, so that the two checks see the same window.
    const left = 60_000 - (Date.now() % 60_000);
    if (left < 5_000) await new Promise((resolve) => setTimeout(resolve, left + 50));
    expect(await slidingWindow(redis, p, `key:${hash}`)).toMatchObject({ success: true, remaining: 2 });
    const check = { ctx: { redis }, input: { hash, policy: { limit: 3, windowMs: 60_000 } } };
    expect((await checkApiKey(check)).limit).toMatchObject({ success: true, remaining: 1 });
    expect((await checkApiKey(check)).limit).toMatchObject({ success: true, remaining: 0 });
    expect(await slidingWindow(redis, p, `key:${hash}`)).toMatchObject({ success: false, remaining: 0 });
  });
});
