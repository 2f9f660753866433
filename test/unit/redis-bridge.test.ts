// The local Upstash bridge must speak the protocol the real clients expect: the official
// @upstash/redis and @upstash/ratelimit clients run against it, on both engines.
import { createHash } from "node:crypto";
import { Ratelimit } from "@upstash/ratelimit";
import { Redis } from "@upstash/redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RedisBridge, startRedisBridge } from "../../dev/redis-bridge";

const engines: Array<[string, string | undefined]> = [["memory", undefined]];
if (process.env.REDIS_URL) engines.push(["redis", process.env.REDIS_URL]);

describe.each(engines)("Upstash REST bridge (%s engine)", (_name, redisUrl) => {
  let bridge: RedisBridge;
  let redis: Redis;
  const ns = `t:${Date.now()}:${Math.random()}`;

  beforeAll(async () => {
    bridge = await startRedisBridge({ redisUrl, token: "test-token" });
    redis = new Redis({ url: bridge.url, token: bridge.token });
  });
  afterAll(() => bridge.stop());

  it("runs commands with base64 response encoding, unicode intact", async () => {
    expect(await redis.set(`${ns}:a`, "héllo ✓ 你好")).toBe("OK");
    expect(await redis.get(`${ns}:a`)).toBe("héllo ✓ 你好");
    expect(await redis.incrby(`${ns}:n`, 5)).toBe(5);
    await redis.hset(`${ns}:h`, { f: "v", g: "w" });
    expect(await redis.hgetall(`${ns}:h`)).toEqual({ f: "v", g: "w" });
    expect(await redis.get(`${ns}:missing`)).toBeNull();
  });

  it("runs pipelines and transactions", async () => {
    const p = redis.pipeline();
    p.set(`${ns}:p`, "1");
    p.incr(`${ns}:p`);
    p.get(`${ns}:p`);
    expect(await p.exec()).toEqual(["OK", 2, 2]);
    const m = redis.multi();
    m.incr(`${ns}:m`);
    m.incr(`${ns}:m`);
    expect(await m.exec()).toEqual([1, 2]);
  });

  it("loads and runs scripts (EVALSHA falls back to EVAL on NOSCRIPT)", async () => {
    const script = redis.createScript<number>('#!lua flags=allow-key-locking\nreturn redis.call("INCR", KEYS[1])');
    expect(await script.exec([`${ns}:s`], [])).toBe(1);
    expect(await script.exec([`${ns}:s`], [])).toBe(2);
  });

  it("answers EVALSHA with the client's SHA of the original script once it was seen", async () => {
    const src = '#!lua flags=allow-key-locking\nreturn redis.call("INCRBY", KEYS[1], 10)';
    const sha = createHash("sha1").update(src).digest("hex");
    const raw = (cmd: unknown[]) =>
      fetch(bridge.url, { method: "POST", headers: { authorization: "Bearer test-token" }, body: JSON.stringify(cmd) });
    const miss = await raw(["EVALSHA", `${"0".repeat(39)}1`, "0"]);
    expect(((await miss.json()) as { error: string }).error).toMatch(/NOSCRIPT/);
    expect(((await (await raw(["SCRIPT", "LOAD", src])).json()) as { result: unknown }).result).toBe(sha);
    expect(((await (await raw(["EVALSHA", sha, "1", `${ns}:sha`])).json()) as { result: unknown }).result).toBe(10);
  });

  it("drives @upstash/ratelimit's sliding window", async () => {
    const rl = new Ratelimit({ redis, limiter: Ratelimit.slidingWindow(2, "10 s"), prefix: ns, ephemeralCache: false });
    const results = [await rl.limit("id"), await rl.limit("id"), await rl.limit("id")];
    expect(results.map((r) => r.success)).toEqual([true, true, false]);
    expect(results[2]?.remaining).toBe(0);
  });

  it("refuses a wrong token", async () => {
    const wrong = new Redis({ url: bridge.url, token: "wrong" });
    await expect(wrong.get("x")).rejects.toThrow(/Unauthorized/);
    const res = await fetch(bridge.url, { method: "POST", body: '["GET","x"]' });
    expect(res.status).toBe(401);
  });

  it("answers a malformed body with an error, not a crash", async () => {
    const res = await fetch(bridge.url, { method: "POST", headers: { authorization: "Bearer test-token" }, body: "{not json" });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toMatch(/^ERR/);
  });
});
