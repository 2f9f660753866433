// Rate limits with @upstash/ratelimit (sliding window) on Upstash Redis.
// - Every authenticated API and dashboard request, per API key, or per user+organization for
//   a dashboard session (RATE_LIMIT_REQUESTS per RATE_LIMIT_WINDOW).
// - Sign-in attempts: failed ones, per email and per client address (src/middleware/sign-in-limit.ts).
// Headers (IETF draft-ietf-httpapi-ratelimit-headers): `RateLimit-Policy: "default";q=N;w=S`
// and `RateLimit: "default";r=R;t=S`; a 429 adds `Retry-After`.
// Redis unreachable or slow (over 1 s): we FAIL OPEN. The API stays available and the
// response says so with `RateLimit-Status: unavailable`; see docs/rate-limits.md.
import { Ratelimit } from "@upstash/ratelimit";
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../context";
import { durationSeconds } from "../env";
import { ApiError } from "../lib/errors";
import { answers } from "../lib/guard-answers";
import { redisFor } from "../lib/redis";

// Ratelimit's in-isolate cache of blocked identifiers: plain data, safe across requests.
const ephemeralCache = new Map<string, number>();

type Window = Parameters<typeof Ratelimit.slidingWindow>[1];

/** Checks one identifier against one policy; sets the headers; throws 429 when over (also used by the widget routes). */
export async function enforce(
  c: Context<AppEnv>,
  policy: { name: string; limit: number; window: Window; prefix: string },
  identifier: string,
) {
  const seconds = durationSeconds(policy.window);
  const limiter = new Ratelimit({
    redis: redisFor(c.var.config, { retry: false }),
    limiter: Ratelimit.slidingWindow(policy.limit, policy.window),
    prefix: policy.prefix,
    ephemeralCache,
    timeout: 1000,
    analytics: false,
  });
  let result: Awaited<ReturnType<Ratelimit["limit"]>> | undefined;
  try {
    result = await limiter.limit(identifier);
    c.executionCtx.waitUntil(result.pending);
  } catch (err) {
    warnUnavailable(c, err);
  }
  applyLimit(c, { name: policy.name, limit: policy.limit, seconds }, result && result.reason !== "timeout" ? result : null);
}

/** Logs that the limiter could not be asked (the request goes on: fail open). */
export function warnUnavailable(c: Context<AppEnv>, err: unknown): void {
  console.warn(
    JSON.stringify({
      level: "warn",
      requestId: c.var.requestId,
      msg: "rate limiter unavailable, failing open",
      error: (err as Error).message,
    }),
  );
}

/**
 * Sets the RateLimit headers of one policy and throws 429 when over. `result` null: the limiter
 * could not be asked, so the request goes on with `RateLimit-Status: unavailable` (fail open).
 */
export function applyLimit(
  c: Context<AppEnv>,
  policy: { name: string; limit: number; seconds: number },
  result: { success: boolean; remaining: number; reset: number } | null,
): void {
  c.header("RateLimit-Policy", `"${policy.name}";q=${policy.limit};w=${policy.seconds}`);
  if (!result) {
    c.header("RateLimit-Status", "unavailable");
    return;
  }
  const resetIn = Math.max(0, Math.ceil((result.reset - Date.now()) / 1000));
  c.header("RateLimit", `"${policy.name}";r=${Math.max(0, result.remaining)};t=${resetIn}`);
  if (!result.success) {
    const retryAfter = Math.max(1, resetIn);
    throw new ApiError(
      "rate_limited",
      `Rate limit of ${policy.limit} requests per ${policy.seconds} s exceeded. Retry after ${retryAfter} s.`,
      {
        headers: { "Retry-After": String(retryAfter) },
      },
    );
  }
}

/** The default policy (RATE_LIMIT_REQUESTS per RATE_LIMIT_WINDOW): API keys and dashboard sessions. */
export const defaultPolicy = (config: AppEnv["Variables"]["config"]) => ({
  name: "default",
  limit: config.RATE_LIMIT_REQUESTS,
  seconds: durationSeconds(config.RATE_LIMIT_WINDOW),
});

/**
 * After authentication: per user and organization for a session. An API key's request was counted
 * by `authenticate` already, in the same Redis round trip that verified the key.
 */
export const rateLimit = answers(
  createMiddleware<AppEnv>(async (c, next) => {
    const { config, auth } = c.var;
    if (auth.type === "api_key") return next();
    const identifier = `user:${auth.user?.id}:org:${auth.organizationId}`;
    await enforce(c, { name: "default", limit: config.RATE_LIMIT_REQUESTS, window: config.RATE_LIMIT_WINDOW, prefix: "rl" }, identifier);
    return next();
  }),
  () => [{ status: 429, why: "too many requests for this credential; wait `Retry-After` seconds (rate_limited)" }],
);
