// What a limit looks like on a response (docs/rate-limits.md), for every limiter here.
// Headers (IETF draft-ietf-httpapi-ratelimit-headers): `RateLimit-Policy: "<name>";q=N;w=S` and
// `RateLimit: "<name>";r=R;t=S`; a 429 `rate_limited` adds `Retry-After`.
// Redis unreachable or slow (over 1 s): we FAIL OPEN. The request goes on, a warning is logged with
// the request id, and the response says so with `RateLimit-Status: unavailable`.
import type { Context } from "hono";
import type { AppEnv } from "../context";
import { durationSeconds } from "../env";
import { ApiError } from "../lib/errors";
import { redisFor } from "../lib/redis";
import { type LimitResult, type RateLimitPolicy, slidingWindow } from "./sliding-window";

/** How long a limiter waits for Redis before the request goes on without it. */
export const LIMITER_TIMEOUT_MS = 1000;

/** The default policy (RATE_LIMIT_REQUESTS per RATE_LIMIT_WINDOW): API keys (`rl:key:<hash>`) and dashboard sessions. */
export const defaultPolicy = (config: AppEnv["Variables"]["config"]): RateLimitPolicy => ({
  name: "default",
  limit: config.RATE_LIMIT_REQUESTS,
  seconds: durationSeconds(config.RATE_LIMIT_WINDOW),
  prefix: "rl",
});

/**
 * Checks and counts one request of `identifier` against `policy` (the sliding window, one Redis
 * round trip), sets the headers and throws 429 when over. Fails open after `LIMITER_TIMEOUT_MS`.
 */
export async function enforce(c: Context<AppEnv>, policy: RateLimitPolicy, identifier: string): Promise<void> {
  const redis = redisFor(c.var.config, { retry: false, timeoutMs: LIMITER_TIMEOUT_MS, autoPipelining: false });
  let result: LimitResult | null = null;
  try {
    result = await slidingWindow(redis, policy, identifier);
  } catch (err) {
    warnUnavailable(c, err);
  }
  applyLimit(c, policy, result);
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

const defaultRefusal = (policy: Pick<RateLimitPolicy, "limit" | "seconds">) => (retryAfter: number) =>
  `Rate limit of ${policy.limit} requests per ${policy.seconds} s exceeded. Retry after ${retryAfter} s.`;

/**
 * Sets the RateLimit headers of one policy and throws 429 `rate_limited` when over, with
 * `refusal(retryAfter)` as its message. `result` null: the limiter could not be asked, so the
 * request goes on with `RateLimit-Status: unavailable` (fail open; the caller logged why).
 */
export function applyLimit(
  c: Context<AppEnv>,
  policy: Pick<RateLimitPolicy, "name" | "limit" | "seconds">,
  result: LimitResult | null,
  refusal: (retryAfter: number) => string = defaultRefusal(policy),
): void {
  c.header("RateLimit-Policy", `"${policy.name}";q=${policy.limit};w=${policy.seconds}`);
  if (!result) {
    c.header("RateLimit-Status", "unavailable");
    return;
  }
  const resetIn = Math.max(0, Math.ceil((result.reset - Date.now()) / 1000));
  if (result.success) {
    c.header("RateLimit", `"${policy.name}";r=${Math.max(0, result.remaining)};t=${resetIn}`);
    return;
  }
  const retryAfter = Math.max(1, resetIn);
  c.header("RateLimit", `"${policy.name}";r=0;t=${retryAfter}`);
  throw new ApiError("rate_limited", refusal(retryAfter), { headers: { "Retry-After": String(retryAfter) } });
}
