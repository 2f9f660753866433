// How a dashboard screen's routes are guarded: middleware on the screen's own router (every route
// under its prefix) or on a route, never a test of the request's path. A signed-in page passes the
// cookie-CSRF origin check, the page session (sign-in redirect, organization, the form's CSRF
// token) and the rate limit; a public page (sign-in) only the origin check.
import type { MiddlewareHandler } from "hono";
import { createMiddleware } from "hono/factory";
import { type AppEnv, createRouter } from "../context";
import { sameOriginForCookies } from "../middleware/guards";
import { rateLimit } from "../middleware/ratelimit";
import { pageSession, requireAdminPage } from "./session";

/** Route-level middleware of a signed-in page. */
export const signedIn: MiddlewareHandler<AppEnv>[] = [sameOriginForCookies, pageSession, rateLimit];

/** Route-level middleware of a public page (no session). */
export const publicPage: MiddlewareHandler<AppEnv>[] = [sameOriginForCookies];

/**
 * Admin screens and actions: looking needs `settings:read`, changing `settings:write`; members get
 * the "Admin access required" page (403).
 */
export const adminOnly = createMiddleware<AppEnv>(async (c, next) => {
  requireAdminPage(c, c.req.method !== "GET" && c.req.method !== "HEAD");
  return next();
});

/** A screen's router: every route under the prefix it is mounted at is a signed-in page, then `more`. */
export function screenRouter(...more: MiddlewareHandler<AppEnv>[]) {
  const router = createRouter();
  router.use(...signedIn, ...more);
  return router;
}
