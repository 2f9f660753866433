// The request limit of a dashboard session: RATE_LIMIT_REQUESTS per RATE_LIMIT_WINDOW, per user
// and organization. The limiter itself, its headers and its fail-open choice are src/ratelimit/
// (docs/rate-limits.md); an API key's request is counted by the key check, in its one round trip.
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../context";
import { answers } from "../lib/guard-answers";
import { defaultPolicy, enforce } from "../ratelimit/http";

// For src/middleware/auth.ts, which imports them from here; new code imports src/ratelimit/http.

/**
 * After authentication: per user and organization for a session. An API key's request was counted
 * by `authenticate` already, in the same Redis round trip that verified the key.
 */
export const rateLimit = answers(
  createMiddleware<AppEnv>(async (c, next) => {
    const { config, auth } = c.var;
    if (auth.type === "api_key") return next();
    await enforce(c, defaultPolicy(config), `user:${auth.user?.id}:org:${auth.organizationId}`);
    return next();
  }),
  () => [{ status: 429, why: "too many requests for this credential; wait `Retry-After` seconds (rate_limited)" }],
);
