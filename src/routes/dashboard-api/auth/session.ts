import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { ApiError } from "../../../lib/errors";
import { errorResponses, jsonResponse } from "../../../lib/openapi";
import { authenticate } from "../../../middleware/auth";
import { rateLimit } from "../../../middleware/ratelimit";
import { organizationsOf, sessionSchema } from "./shared";

export const sessionRoute = createRoute({
  method: "get",
  path: "/session",
  tags: ["Dashboard"],
  operationId: "dashboardSession",
  summary: "The signed-in user and their organizations",
  security: [{ session: [] }],
  responses: { 200: jsonResponse(sessionSchema, "The current session."), ...errorResponses() },
});

/** Authenticates itself (route-level middleware: a session, the organization optional). */
export function registerSession(app: OpenAPIHono<AppEnv>): void {
  app.use(sessionRoute.path, authenticate({ orgOptional: true, sessionOnly: true }), rateLimit);
  app.openapi(sessionRoute, async (c) => {
    const { user, memberships = [] } = c.var.auth;
    if (!user) throw new ApiError("unauthorized", "No signed-in user.");
    return c.json({ user, organizations: organizationsOf(memberships) }, 200);
  });
}
