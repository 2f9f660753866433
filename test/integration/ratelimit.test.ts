// Rate limiting through the real worker with a small limit, and the fail-open choice when
// Redis is unreachable (docs/rate-limits.md).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, startWorker } from "../../dev/stack";
import { createWorkspace, expectError, stack } from "../harness";

let limited: Awaited<ReturnType<typeof startWorker>>;
let noRedis: Awaited<ReturnType<typeof startWorker>>;

beforeAll(async () => {
  const vars = stack().vars;
  const closedPort = await freePort(); // nothing listens there
  [limited, noRedis] = await Promise.all([
    startWorker({ ...vars, RATE_LIMIT_REQUESTS: "3", RATE_LIMIT_WINDOW: "60 s" }),
    startWorker({ ...vars, UPSTASH_REDIS_REST_URL: `http://127.0.0.1:${closedPort}` }),
  ]);
}, 120_000);

afterAll(async () => {
  await Promise.all([limited?.stop(), noRedis?.stop()]);
});

const me = (base: string, key: string) => fetch(`${base}/v1/me`, { headers: { authorization: `Bearer ${key}` } });

describe("rate limit", () => {
  it("allows the limit, then answers 429 with Retry-After and RateLimit headers", async () => {
    const ws = await createWorkspace();
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await me(limited.baseUrl, ws.apiKey);
      expect(res.status).toBe(200);
      expect(res.headers.get("ratelimit-policy")).toBe('"default";q=3;w=60');
      remaining.push(res.headers.get("ratelimit") ?? "");
    }
    expect(remaining.map((h) => /r=(\d+)/.exec(h)?.[1])).toEqual(["2", "1", "0"]);

    const res = await me(limited.baseUrl, ws.apiKey);
    const body = await expectError(res, 429, "rate_limited");
    expect(body.error).toBe("Too Many Requests");
    const retryAfter = Number(res.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(res.headers.get("ratelimit")).toMatch(/^"default";r=0;t=\d+$/);
  });

  it("counts per key: another key, even of the same workspace, has its own budget", async () => {
    const a = await createWorkspace();
    for (let i = 0; i < 3; i++) expect((await me(limited.baseUrl, a.apiKey)).status).toBe(200);
    expect((await me(limited.baseUrl, a.apiKey)).status).toBe(429);
    const b = await createWorkspace();
    expect((await me(limited.baseUrl, b.apiKey)).status).toBe(200);
  });

  it("does not count requests refused for authentication", async () => {
    const ws = await createWorkspace();
    for (let i = 0; i < 5; i++) {
      expect((await me(limited.baseUrl, `sk-live-${"y".repeat(40)}`)).status).toBe(401);
    }
    expect((await me(limited.baseUrl, ws.apiKey)).status).toBe(200);
  });

  it("fails open when Redis is unreachable: the request succeeds and says the limiter is unavailable", async () => {
    const ws = await createWorkspace();
    for (let i = 0; i < 5; i++) {
      const res = await me(noRedis.baseUrl, ws.apiKey);
      expect(res.status).toBe(200);
      expect(res.headers.get("ratelimit-status")).toBe("unavailable");
      expect(res.headers.get("ratelimit")).toBeNull();
    }
  });
});
