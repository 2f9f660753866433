// The one sliding window of every request limit (API keys, dashboard sessions, the widget), in Redis.
//
// It is @upstash/ratelimit's `slidingWindow` (2.x, single region), line for line: windows aligned to
// the epoch, a counter per window at `<prefix>:<identifier>:<window index>`, and the previous
// window's count weighed by the part of it still inside the sliding window, rounded down. A request
// is admitted while weighted previous + current < limit, and then counted; the counter lives for two
// windows and a second. Why it is ours and not the library: docs/rate-limits.md.
//
// One Lua source, two scripts: the API key check composes `SLIDING_WINDOW_LUA` into its one round
// trip (src/api-keys/service.ts); `slidingWindow` below runs it alone for everything else.
import { luaScript, type ScriptRunner } from "../lib/redis-script";

/** A named limit as the headers publish it (`RateLimit-Policy: "<name>";q=<limit>;w=<seconds>`), and where its counters live. */
export interface RateLimitPolicy {
  name: string;
  /** Requests admitted per window. */
  limit: number;
  /** The window, in whole seconds. */
  seconds: number;
  /** The counters' key prefix: `<prefix>:<identifier>:<window index>`. */
  prefix: string;
}

/** What one check answers. */
export interface LimitResult {
  success: boolean;
  /** Requests left in the window after this one (0 when refused). */
  remaining: number;
  /** Epoch ms when the current window ends (a refused client may try again then at the latest). */
  reset: number;
}

/**
 * Defines `slidingWindow(currentKey, previousKey, limit, windowMs, nowMs)`, which checks and counts
 * one request and returns `allowed` (1 or 0) and `remaining`. A script composes it by putting it
 * first and calling it with `windowCall`'s keys and args.
 */
export const SLIDING_WINDOW_LUA = `
local function slidingWindow(currentKey, previousKey, limit, window, now)
  local current = tonumber(redis.call("GET", currentKey) or "0")
  local previous = tonumber(redis.call("GET", previousKey) or "0")
  previous = math.floor((1 - (now % window) / window) * previous)
  if previous + current >= limit then return 0, 0 end
  local count = redis.call("INCR", currentKey)
  if count == 1 then redis.call("PEXPIRE", currentKey, window * 2 + 1000) end
  return 1, limit - (count + previous)
end
`;

/**
 * The keys (this window's counter, the previous one's) and args (limit, window ms, now ms) of one
 * call of `slidingWindow`, for the counters of `base` (`<prefix>:<identifier>`), and when the window ends.
 */
export function windowCall(base: string, limit: number, windowMs: number, now: number) {
  const index = Math.floor(now / windowMs);
  return {
    keys: [`${base}:${index}`, `${base}:${index - 1}`] as [string, string],
    args: [String(limit), String(windowMs), String(now)] as [string, string, string],
    reset: (index + 1) * windowMs,
  };
}

const STANDALONE = luaScript<[number, number]>(`${SLIDING_WINDOW_LUA}
local allowed, remaining = slidingWindow(KEYS[1], KEYS[2], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]))
return {allowed, remaining}
`);

// Identifiers refused in this isolate, until their window ends (as @upstash/ratelimit's
// `ephemeralCache`): a client over its limit is answered without asking Redis again. Plain data,
// safe across requests; bounded, the oldest entry going first.
const refusedUntil = new Map<string, number>();
const REFUSED_MAX = 10_000;

/** Forgets what this isolate remembers of refused identifiers (tests). */
export const forgetRefusals = () => refusedUntil.clear();

/**
 * Checks and counts one request of `identifier` against `policy`: one round trip (EVALSHA), none
 * when this isolate refused the identifier earlier in the same window. Throws when Redis fails.
 */
export async function slidingWindow(
  redis: ScriptRunner,
  policy: Pick<RateLimitPolicy, "limit" | "seconds" | "prefix">,
  identifier: string,
  now = Date.now(),
): Promise<LimitResult> {
  const base = `${policy.prefix}:${identifier}`;
  const until = refusedUntil.get(base);
  if (until !== undefined) {
    if (until > now) return { success: false, remaining: 0, reset: until };
    refusedUntil.delete(base);
  }
  const call = windowCall(base, policy.limit, policy.seconds * 1000, now);
  const [allowed, remaining] = await STANDALONE.run(redis, call.keys, call.args);
  const result = { success: allowed === 1, remaining: Math.max(0, remaining), reset: call.reset };
  if (!result.success) {
    refusedUntil.set(base, call.reset);
    if (refusedUntil.size > REFUSED_MAX) refusedUntil.delete(refusedUntil.keys().next().value as string);
  }
  return result;
}
