// Sign-in attempts: at most SIGN_IN_LIMIT_PER_EMAIL failed ones per account and
// SIGN_IN_LIMIT_PER_ADDRESS per client address in any 15 minutes. Failures count, successes do not,
// so signing in often never locks anyone out, and guessing a password stays bounded both ways.
// Each attempt takes a place in both logs (Redis sorted sets of attempts by time) before the
// password is checked, in one script, so a burst of guesses in flight together cannot overrun the
// limit; a success gives its places back. Over the limit: 429 before the password is checked, saying
// in words when to try again (when the failure that must leave the window first leaves it).
// Redis unreachable: FAIL OPEN, as every limiter here (docs/rate-limits.md).
import type { Context } from "hono";
import type { AppEnv } from "../context";
import { ApiError } from "../lib/errors";
import { redisFor } from "../lib/redis";
import { warnUnavailable } from "./ratelimit";

export const SIGN_IN_WINDOW_SECONDS = 15 * 60;

// KEYS: the account's log, the address's; ARGV: now (ms), window (ms), the account's limit, the
// address's, this attempt's id. Returns {0, remaining} when the attempt took its places, else
// {which log is full (1 account, 2 address), when the attempt could go (ms)}.
const RESERVE_SCRIPT = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local blocked, retryAt, remaining = 0, 0, nil
for i = 1, 2 do
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now - window)
  local n = redis.call('ZCARD', KEYS[i])
  local limit = tonumber(ARGV[2 + i])
  if n >= limit then
    local leaving = redis.call('ZRANGE', KEYS[i], n - limit, n - limit, 'WITHSCORES')
    local at = tonumber(leaving[2]) + window
    if at > retryAt then blocked, retryAt = i, at end
  elseif remaining == nil or limit - n - 1 < remaining then
    remaining = limit - n - 1
  end
end
if blocked > 0 then return {blocked, retryAt} end
for i = 1, 2 do
  redis.call('ZADD', KEYS[i], now, ARGV[5])
  redis.call('PEXPIRE', KEYS[i], window)
end
return {0, remaining}`;

/** "12 minutes", "1 minute", "45 seconds": how long to wait, rounded up. */
export function inWords(seconds: number): string {
  const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? "" : "s"}`;
  if (seconds < 60) return plural(Math.max(1, Math.ceil(seconds)), "second");
  const minutes = Math.ceil(seconds / 60);
  return minutes < 60 ? plural(minutes, "minute") : plural(Math.ceil(minutes / 60), "hour");
}

/**
 * Runs `check` (the password check: a result, or null for wrong credentials) inside the limit. A
 * refused attempt throws 429 `rate_limited` before `check` runs; a successful one (or one that
 * failed on our side) is not counted.
 */
export async function limitedSignIn<T>(c: Context<AppEnv>, email: string, check: () => Promise<T | null>): Promise<T | null> {
  const { config } = c.var;
  const limits = { account: config.SIGN_IN_LIMIT_PER_EMAIL, address: config.SIGN_IN_LIMIT_PER_ADDRESS };
  const keys = [`rl:signin:email:${email.trim().toLowerCase()}`, `rl:signin:ip:${c.req.header("cf-connecting-ip") ?? "unknown"}`];
  const attemptId = crypto.randomUUID();
  const redis = redisFor(config, { retry: false, timeoutMs: 1000 });
  const policy = (limit: number) => c.header("RateLimit-Policy", `"sign-in";q=${limit};w=${SIGN_IN_WINDOW_SECONDS}`);

  let reserved = false;
  try {
    const now = Date.now();
    const [blocked, value] = (await redis.eval(
      RESERVE_SCRIPT,
      keys,
      [now, SIGN_IN_WINDOW_SECONDS * 1000, limits.account, limits.address, attemptId].map(String),
    )) as [number, number];
    if (blocked === 0) {
      reserved = true;
      policy(limits.account);
      c.header("RateLimit", `"sign-in";r=${value};t=${SIGN_IN_WINDOW_SECONDS}`);
    } else {
      const retryAfter = Math.max(1, Math.ceil((Number(value) - now) / 1000));
      policy(blocked === 1 ? limits.account : limits.address);
      c.header("RateLimit", `"sign-in";r=0;t=${retryAfter}`);
      const whose = blocked === 1 ? "for this email address" : "from your network";
      throw new ApiError("rate_limited", `Too many failed sign-in attempts ${whose}. Try again in ${inWords(retryAfter)}.`, {
        headers: { "Retry-After": String(retryAfter) },
      });
    }
  } catch (err) {
    if (err instanceof ApiError) throw err;
    warnUnavailable(c, err);
    policy(limits.account);
    c.header("RateLimit-Status", "unavailable");
  }

  let failed = false;
  try {
    const result = await check();
    failed = result === null;
    return result;
  } finally {
    if (reserved && !failed) {
      // Not a wrong password: the attempt gives its places back.
      await Promise.all(keys.map((key) => redis.zrem(key, attemptId))).catch((err) => warnUnavailable(c, err));
    }
  }
}
