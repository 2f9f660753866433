// Per-credential rate limit with @upstash/ratelimit (sliding window) on Upstash Redis.
// Identifier: the API key id, or user+organization for a dashboard session.
// Headers (IETF draft-ietf-httpapi-ratelimit-headers): `RateLimit-Policy: "default";q=N;w=S`
// and `RateLimit: "default";r=R;t=S`; a 429 adds `Retry-After`.
// Redis unreachable or slow (over 1 s): we FAIL OPEN. The API stays available and the
// response says so with `RateLimit-Status: unavailable`; see docs/rate-limits.md.
import { Ratelimit } from "@upstash/ratelimit";
import { Redis } from "@upstash/redis/cloudflare";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../context";
import { ApiError } from "../lib/errors";

// Ratelimit's in-isolate cache of blocked identifiers: plain data, safe across requests.
const ephemeralCache = new Map<string, number>();

const windowSeconds = (window: string): number => {
  const m = /^(\d+)\s?(ms|s|m|h|d)$/.exec(window);
  const n = Number(m?.[1] ?? 60);
  const unit = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86400 }[m?.[2] ?? "s"] ?? 1;
  return Math.max(1, Math.ceil(n * unit));
};

export const rateLimit = createMiddleware<AppEnv>(async (c, next) => {
  const { config, auth } = c.var;
  const limit = config.RATE_LIMIT_REQUESTS;
  const window = windowSeconds(config.RATE_LIMIT_WINDOW);
  const redis = new Redis({ url: config.UPSTASH_REDIS_REST_URL, token: config.UPSTASH_REDIS_REST_TOKEN, retry: false });
  const limiter = new Ratelimit({
    redis,
    limiter: Ratelimit.slidingWindow(limit, config.RATE_LIMIT_WINDOW),
    prefix: "rl",
    ephemeralCache,
    timeout: 1000,
    analytics: false,
  });
  const identifier = auth.apiKeyId ? `key:${auth.apiKeyId}` : `user:${auth.user?.id}:org:${auth.organizationId}`;
  c.header("RateLimit-Policy", `"default";q=${limit};w=${window}`);

  let result: Awaited<ReturnType<Ratelimit["limit"]>> | undefined;
  try {
    result = await limiter.limit(identifier);
    c.executionCtx.waitUntil(result.pending);
  } catch (err) {
    console.warn(
      JSON.stringify({
        level: "warn",
        requestId: c.var.requestId,
        msg: "rate limiter unavailable, failing open",
        error: (err as Error).message,
      }),
    );
  }
  if (!result || result.reason === "timeout") {
    c.header("RateLimit-Status", "unavailable");
    return next();
  }
  const resetIn = Math.max(0, Math.ceil((result.reset - Date.now()) / 1000));
  c.header("RateLimit", `"default";r=${Math.max(0, result.remaining)};t=${resetIn}`);
  if (!result.success) {
    throw new ApiError("rate_limited", `Rate limit of ${limit} requests per ${window} s exceeded. Retry after ${Math.max(1, resetIn)} s.`, {
      headers: { "Retry-After": String(Math.max(1, resetIn)) },
    });
  }
  return next();
});
