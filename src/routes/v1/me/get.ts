import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, jsonResponse } from "../../../lib/openapi";
import { authenticate } from "../../../middleware/auth";
import { rateLimit } from "../../../middleware/ratelimit";

export const identitySchema = z
  .object({
    authenticated: z.literal(true),
    authType: z.enum(["api_key", "session"]),
    organizationId: z.string(),
    user: z.object({ id: z.string(), email: z.string() }).nullable(),
    role: z.enum(["admin", "member"]).openapi({ description: "Our addition: an API key always acts as admin." }),
  })
  .openapi("Identity");

export const getMeRoute = createRoute({
  method: "get",
  path: "/me",
  tags: ["Identity"],
  operationId: "getMe",
  summary: "Introspect the credential",
  description: "Accepts an API key, or the dashboard's session cookie (the organization may then be chosen with x-organization-id).",
  security: bearerSecurity,
  // A signed-in user who has chosen no organization yet may ask who they are.
  middleware: [authenticate({ orgOptional: true }), rateLimit] as const,
  responses: { 200: jsonResponse(identitySchema, "The identity the credential resolves to."), ...errorResponses() },
});

export const registerGetMe = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(getMeRoute, (c) => {
    const { auth } = c.var;
    return c.json(
      { authenticated: true as const, authType: auth.type, organizationId: auth.organizationId, user: auth.user, role: auth.role },
      200,
    );
  });
