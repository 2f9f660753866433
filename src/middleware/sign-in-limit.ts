// Sign-in attempts: at most SIGN_IN_LIMIT_PER_EMAIL failed ones per account and
// SIGN_IN_LIMIT_PER_ADDRESS per client address in any 15 minutes. Failures count, successes do not,
// so signing in often never locks anyone out, and guessing a password stays bounded both ways.
// Each attempt takes a place in both logs (src/ratelimit/failure-log.ts) before the password is
// checked, in one script, so a burst of guesses in flight together cannot overrun the limit; a
// success gives its places back. Over the limit: 429 before the password is checked, saying in
// words when to try again (when the failure that must leave the window first leaves it).
// Redis unreachable: FAIL OPEN, as every limiter here (docs/rate-limits.md).
import type { Context } from "hono";
import type { AppEnv } from "../context";
import { redisFor } from "../lib/redis";
import { type Reservation, releaseAttempt, reserveAttempt } from "../ratelimit/failure-log";
import { applyLimit, LIMITER_TIMEOUT_MS, warnUnavailable } from "../ratelimit/http";

export const SIGN_IN_WINDOW_SECONDS = 15 * 60;

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
  const logs = [
    { key: `rl:signin:email:${email.trim().toLowerCase()}`, limit: config.SIGN_IN_LIMIT_PER_EMAIL },
    { key: `rl:signin:ip:${c.req.header("cf-connecting-ip") ?? "unknown"}`, limit: config.SIGN_IN_LIMIT_PER_ADDRESS },
  ];
  const attemptId = crypto.randomUUID();
  const redis = redisFor(config, { retry: false, timeoutMs: LIMITER_TIMEOUT_MS });

  let reservation: Reservation | null = null;
  try {
    reservation = await reserveAttempt(redis, logs, SIGN_IN_WINDOW_SECONDS * 1000, attemptId);
  } catch (err) {
    warnUnavailable(c, err);
  }
  // The headers name the account's limit, unless the address's log is the one that refused.
  const byAddress = reservation?.refusedBy === 1;
  const limit = byAddress ? config.SIGN_IN_LIMIT_PER_ADDRESS : config.SIGN_IN_LIMIT_PER_EMAIL;
  const whose = byAddress ? "from your network" : "for this email address";
  applyLimit(
    c,
    { name: "sign-in", limit, seconds: SIGN_IN_WINDOW_SECONDS },
    reservation,
    (retryAfter) => `Too many failed sign-in attempts ${whose}. Try again in ${inWords(retryAfter)}.`,
  );

  let failed = false;
  try {
    const result = await check();
    failed = result === null;
    return result;
  } finally {
    if (reservation && !failed) {
      // Not a wrong password: the attempt gives its places back.
      await releaseAttempt(
        redis,
        logs.map((log) => log.key),
        attemptId,
      ).catch((err) => warnUnavailable(c, err));
    }
  }
}
