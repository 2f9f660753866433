// A limit on a response (src/ratelimit/http.ts) through a small Hono app: the headers of an admitted
// request, the 429 of a refused one (default and custom message), `enforce` against the local Upstash
// bridge, and failing open, with `RateLimit-Status: unavailable` and a warning, when Redis refuses
// the connection or does not answer within the limiter's timeout.
import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Hono } from "hono";
import { requestId } from "hono/request-id";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { type RedisBridge, startRedisBridge } from "../../../dev/redis-bridge";
import type { AppEnv } from "../../../src/context";
import { handleError } from "../../../src/lib/errors";
import { applyLimit, enforce, LIMITER_TIMEOUT_MS } from "../../../src/ratelimit/http";
import type { LimitResult, RateLimitPolicy } from "../../../src/ratelimit/sliding-window";

const policy = (limit: number): RateLimitPolicy => ({ name: "test", limit, seconds: 60, prefix: `test:rl:${randomUUID()}` });

/** An app whose one route runs `limit` with a configuration naming `redisUrl`. */
function appWith(redisUrl: string, limit: (c: Parameters<typeof enforce>[0]) => Promise<void> | void) {
  const app = new Hono<AppEnv>();
  app.use("*", requestId());
  app.use("*", async (c, next) => {
    c.set("config", {
      UPSTASH_REDIS_REST_URL: redisUrl,
      UPSTASH_REDIS_REST_TOKEN: "test-token",
    } as unknown as AppEnv["Variables"]["config"]);
    await next();
  });
  app.onError(handleError);
  app.get("/", async (c) => {
    await limit(c);
    return c.text("ok");
  });
  return app;
}

const withResult = (result: LimitResult | null, refusal?: (retryAfter: number) => string) =>
  appWith("http://127.0.0.1:1", (c) => applyLimit(c, { name: "default", limit: 600, seconds: 60 }, result, refusal));

afterEach(() => vi.restoreAllMocks());

describe("applyLimit", () => {
  it("an admitted request: the policy, the remaining count and the seconds until the window ends", async () => {
    const res = await withResult({ success: true, remaining: 599, reset: Date.now() + 41_500 }).request("/");
    expect(res.status).toBe(200);
    expect(res.headers.get("ratelimit-policy")).toBe('"default";q=600;w=60');
    expect(res.headers.get("ratelimit")).toBe('"default";r=599;t=42');
    expect(res.headers.get("retry-after")).toBeNull();
    expect(res.headers.get("ratelimit-status")).toBeNull();
  });

  it("a refused request: 429 rate_limited in the one body, Retry-After, and the default message", async () => {
    const res = await withResult({ success: false, remaining: 0, reset: Date.now() + 12_200 }).request("/");
    expect(res.status).toBe(429);
    const body = (await res.json()) as { code: string; error: string; message: string };
    expect(body).toMatchObject({
      code: "rate_limited",
      error: "Too Many Requests",
      message: "Rate limit of 600 requests per 60 s exceeded. Retry after 13 s.",
    });
    expect(res.headers.get("retry-after")).toBe("13");
    expect(res.headers.get("ratelimit")).toBe('"default";r=0;t=13');
    expect(res.headers.get("ratelimit-policy")).toBe('"default";q=600;w=60');
  });

  it("a refused request: Retry-After is at least 1 s, and the caller's message is used", async () => {
    const res = await withResult({ success: false, remaining: 0, reset: Date.now() - 5 }, (s) => `wait ${s}`).request("/");
    expect(res.status).toBe(429);
    expect(((await res.json()) as { message: string }).message).toBe("wait 1");
    expect(res.headers.get("retry-after")).toBe("1");
  });

  it("no result (the limiter could not be asked): the request goes on, saying so", async () => {
    const res = await withResult(null).request("/");
    expect(res.status).toBe(200);
    expect(res.headers.get("ratelimit-status")).toBe("unavailable");
    expect(res.headers.get("ratelimit")).toBeNull();
    expect(res.headers.get("ratelimit-policy")).toBe('"default";q=600;w=60');
  });
});

describe("enforce", () => {
  let bridge: RedisBridge;
  let silent: Server;
  let silentUrl: string;

  beforeAll(async () => {
    bridge = await startRedisBridge({ redisUrl: undefined, token: "test-token" });
    // Accepts requests and never answers them.
    silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    silent.closeAllConnections();
    await new Promise((resolve) => silent.close(resolve));
    await bridge.stop();
  });

  it("admits the limit, then answers 429 with the headers, per identifier", async () => {
    const p = policy(2);
    const app = appWith(bridge.url, (c) => enforce(c, p, c.req.query("id") ?? ""));
    // Clear of a window edge, so that the three requests fall in one window.
    const left = 60_000 - (Date.now() % 60_000);
    if (left < 3_000) await new Promise((resolve) => setTimeout(resolve, left + 50));
    const first = await app.request("/?id=a");
    expect(first.status).toBe(200);
    expect(first.headers.get("ratelimit")).toMatch(/^"test";r=1;t=\d+$/);
    expect((await app.request("/?id=a")).headers.get("ratelimit")).toMatch(/^"test";r=0;t=\d+$/);
    const refused = await app.request("/?id=a");
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers.get("ratelimit")).toBe(`"test";r=0;t=${retryAfter}`);
    expect(((await refused.json()) as { message: string }).message).toBe(
      `Rate limit of 2 requests per 60 s exceeded. Retry after ${retryAfter} s.`,
    );
    expect((await app.request("/?id=b")).status).toBe(200);
  });

  const failsOpen = async (redisUrl: string) => {
    const warnings: string[] = [];
    vi.spyOn(console, "warn").mockImplementation((line: string) => warnings.push(line));
    const started = Date.now();
    const res = await appWith(redisUrl, (c) => enforce(c, policy(1), "id")).request("/");
    const elapsed = Date.now() - started;
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("ok");
    expect(res.headers.get("ratelimit-status")).toBe("unavailable");
    expect(res.headers.get("ratelimit")).toBeNull();
    expect(res.headers.get("ratelimit-policy")).toBe('"test";q=1;w=60');
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0] ?? "{}")).toMatchObject({
      level: "warn",
      requestId: res.headers.get("x-request-id"),
      msg: "rate limiter unavailable, failing open",
    });
    return elapsed;
  };

  it("fails open when Redis refuses the connection", async () => {
    // A port that was free a moment ago: nothing listens there.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    await failsOpen(`http://127.0.0.1:${port}`);
  });

  it("fails open when Redis does not answer within the limiter's timeout", async () => {
    const elapsed = await failsOpen(silentUrl);
    expect(elapsed).toBeGreaterThanOrEqual(LIMITER_TIMEOUT_MS - 50);
    expect(elapsed).toBeLessThan(LIMITER_TIMEOUT_MS + 2_000);
  });
});
