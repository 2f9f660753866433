import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { setSessionCookie } from "../../../dashboard/cookies";
import { ApiError } from "../../../lib/errors";
import { errorResponses, errorSchema, jsonBody, jsonResponse, publicSecurity } from "../../../lib/openapi";
import { limitedSignIn } from "../../../middleware/sign-in-limit";
import { resolveSession, signIn } from "../../../sessions/service";
import { organizationsOf, sessionSchema } from "./shared";

const signInSchema = z
  .strictObject({
    // HTML5 pattern: accepts the local first-run admin, admin@localhost (no dot in the domain).
    email: z.email({ pattern: z.regexes.html5Email }).max(320).openapi({ example: "admin@example.com" }),
    password: z.string().min(1).max(1024),
  })
  .openapi("SignIn");

export const signInRoute = createRoute({
  method: "post",
  path: "/sign-in",
  tags: ["Dashboard"],
  operationId: "dashboardSignIn",
  security: publicSecurity,
  summary: "Sign in with email and password; sets the HttpOnly session cookie",
  request: jsonBody(signInSchema),
  responses: {
    200: jsonResponse(sessionSchema, "Signed in."),
    ...errorResponses(400),
    429: {
      description:
        "Too many failed sign-in attempts for the email or from the address in 15 minutes; the message says when to try again, as does `Retry-After`.",
      content: { "application/json": { schema: errorSchema } },
    },
  },
});

export const registerSignIn = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(signInRoute, async (c) => {
    const { email, password } = c.req.valid("json");
    const ttlHours = c.var.config.SESSION_TTL_HOURS;
    const result = await limitedSignIn(c, email, () => signIn({ ctx: { db: c.var.db }, input: { email, password, ttlHours } }));
    if (!result) throw new ApiError("unauthorized", "Email or password is incorrect.");
    setSessionCookie(c, result.token, result.expiresAt);
    const session = await resolveSession({ ctx: { db: c.var.db }, input: { token: result.token } });
    if (!session) throw new Error("session vanished after sign-in");
    return c.json(
      {
        user: session.user,
        organizations: organizationsOf(session.memberships),
        expiresAt: result.expiresAt.toISOString(),
      },
      200,
    );
  });
