// The log of attempts sign-in counts its failures in (src/ratelimit/failure-log.ts), against the
// local Upstash bridge on both engines, at chosen instants: places taken in every log or none, the
// smallest room left, which full log refuses and when the attempt could go, places given back.
import { randomUUID } from "node:crypto";
import { Redis } from "@upstash/redis/cloudflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RedisBridge, startRedisBridge } from "../../../dev/redis-bridge";
import { releaseAttempt, reserveAttempt } from "../../../src/ratelimit/failure-log";

const engines: Array<[string, string | undefined]> = [["memory", undefined]];
if (process.env.REDIS_URL) engines.push(["redis", process.env.REDIS_URL]);

const WINDOW_MS = 900_000;

describe.each(engines)("failure log (%s engine)", (_name, redisUrl) => {
  let bridge: RedisBridge;
  let redis: Redis;
  const logs = (account: number, address: number) => {
    const ns = `test:signin:${randomUUID()}`;
    return [
      { key: `${ns}:email`, limit: account },
      { key: `${ns}:ip`, limit: address },
    ];
  };

  beforeAll(async () => {
    bridge = await startRedisBridge({ redisUrl, token: "test-token" });
    redis = new Redis({ url: bridge.url, token: bridge.token });
  });
  afterAll(() => bridge.stop());

  it("takes a place in every log, says the smallest room left, and refuses the attempt over a limit until its oldest place leaves", async () => {
    const l = logs(2, 5);
    const t = Date.now();
    expect(await reserveAttempt(redis, l, WINDOW_MS, "a1", t)).toEqual({
      success: true,
      remaining: 1,
      reset: t + WINDOW_MS,
      refusedBy: null,
    });
    expect(await reserveAttempt(redis, l, WINDOW_MS, "a2", t + 1_000)).toMatchObject({ success: true, remaining: 0 });
    expect(await reserveAttempt(redis, l, WINDOW_MS, "a3", t + 2_000)).toEqual({
      success: false,
      remaining: 0,
      reset: t + WINDOW_MS, // when a1 leaves the window
      refusedBy: 0,
    });
    // The refused attempt took no place anywhere.
    expect(await redis.zcard(l[1]?.key as string)).toBe(2);
    // Once a1 has left the window, there is room for one.
    expect(await reserveAttempt(redis, l, WINDOW_MS, "a4", t + WINDOW_MS)).toMatchObject({ success: true, remaining: 0 });
  });

  it("of two full logs, the one that frees up last refuses", async () => {
    const l = logs(1, 1);
    const t = Date.now();
    await reserveAttempt(redis, [l[0] as (typeof l)[0]], WINDOW_MS, "account-only", t);
    await reserveAttempt(redis, [l[1] as (typeof l)[0]], WINDOW_MS, "address-only", t + 5_000);
    expect(await reserveAttempt(redis, l, WINDOW_MS, "both", t + 6_000)).toEqual({
      success: false,
      remaining: 0,
      reset: t + 5_000 + WINDOW_MS,
      refusedBy: 1,
    });
  });

  it("an attempt released gives its places back in every log", async () => {
    const l = logs(1, 3);
    const t = Date.now();
    await reserveAttempt(redis, l, WINDOW_MS, "ok", t);
    await releaseAttempt(
      redis,
      l.map((x) => x.key),
      "ok",
    );
    expect(await reserveAttempt(redis, l, WINDOW_MS, "next", t + 1)).toMatchObject({ success: true, remaining: 0 });
    expect(await redis.zcard(l[1]?.key as string)).toBe(1);
  });
});
