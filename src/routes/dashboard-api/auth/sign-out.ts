import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { getCookie } from "hono/cookie";
import type { AppEnv } from "../../../context";
import { clearCookies } from "../../../dashboard/cookies";
import { errorResponses } from "../../../lib/openapi";
import { authenticate } from "../../../middleware/auth";
import { rateLimit } from "../../../middleware/ratelimit";
import { SESSION_COOKIE, signOut } from "../../../sessions/service";

export const signOutRoute = createRoute({
  method: "post",
  path: "/sign-out",
  tags: ["Dashboard"],
  operationId: "dashboardSignOut",
  summary: "End the session",
  security: [{ session: [] }],
  responses: { 204: { description: "Signed out." }, ...errorResponses() },
});

/** Authenticates itself (route-level middleware: a session, the organization optional). */
export function registerSignOut(app: OpenAPIHono<AppEnv>): void {
  app.use(signOutRoute.path, authenticate({ orgOptional: true, sessionOnly: true }), rateLimit);
  app.openapi(signOutRoute, async (c) => {
    const token = c.req.header("authorization")?.replace(/^Bearer\s+/i, "") ?? getCookie(c, SESSION_COOKIE);
    if (token) await signOut({ ctx: { db: c.var.db }, input: { token } });
    clearCookies(c, false);
    return c.body(null, 204);
  });
}
