// A log of attempts per key: a Redis sorted set of attempts by time, at most `limit` of them in any
// window. Sign-in counts its failures in two (per account, per address; src/middleware/sign-in-limit.ts).
// An attempt takes its place in every log before the work it guards, in one script, so attempts in
// flight together cannot overrun a limit; an attempt that should not count gives its places back.
import type { Redis } from "@upstash/redis/cloudflare";
import { luaScript, type ScriptRunner } from "../lib/redis-script";
import type { LimitResult } from "./sliding-window";

// KEYS: the logs; ARGV: now (ms), window (ms), this attempt's id, then each log's limit. Returns
// {0, remaining} when the attempt took its places, else {which log is full (1-based), when the
// attempt could go (ms)}: when the entry that must leave the window first has left it.
const RESERVE = luaScript<[number, number]>(`
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local blocked, retryAt, remaining = 0, 0, nil
for i = 1, #KEYS do
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now - window)
  local n = redis.call('ZCARD', KEYS[i])
  local limit = tonumber(ARGV[3 + i])
  if n >= limit then
    local leaving = redis.call('ZRANGE', KEYS[i], n - limit, n - limit, 'WITHSCORES')
    local at = tonumber(leaving[2]) + window
    if at > retryAt then blocked, retryAt = i, at end
  elseif remaining == nil or limit - n - 1 < remaining then
    remaining = limit - n - 1
  end
end
if blocked > 0 then return {blocked, retryAt} end
for i = 1, #KEYS do
  redis.call('ZADD', KEYS[i], now, ARGV[3])
  redis.call('PEXPIRE', KEYS[i], window)
end
return {0, remaining}`);

export interface FailureLog {
  key: string;
  limit: number;
}

/** The check's result; `refusedBy`: the index in `logs` of the full log that refused it (the one that frees up last). */
export type Reservation = LimitResult & { refusedBy: number | null };

/**
 * Takes a place for `attemptId` in every log, or in none when one is full. `remaining` is the
 * smallest room left; `reset` is when the attempt's own places leave the window, or, refused,
 * when it could go. Throws when Redis fails.
 */
export async function reserveAttempt(
  redis: ScriptRunner,
  logs: FailureLog[],
  windowMs: number,
  attemptId: string,
  now = Date.now(),
): Promise<Reservation> {
  if (logs.length === 0) throw new Error("reserveAttempt needs at least one log");
  const [blocked, value] = await RESERVE.run(
    redis,
    logs.map((log) => log.key),
    [String(now), String(windowMs), attemptId, ...logs.map((log) => String(log.limit))],
  );
  if (blocked === 0) return { success: true, remaining: Number(value), reset: now + windowMs, refusedBy: null };
  return { success: false, remaining: 0, reset: Number(value), refusedBy: blocked - 1 };
}

/** Gives an attempt's places back (it was not a failure), in one request. */
export async function releaseAttempt(redis: Pick<Redis, "pipeline">, keys: string[], attemptId: string): Promise<void> {
  const p = redis.pipeline();
  for (const key of keys) p.zrem(key, attemptId);
  await p.exec();
}
