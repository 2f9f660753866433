// Sign-in / sign-out / current session for the dashboard (session cookie, HttpOnly).
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { getCookie } from "hono/cookie";
import type { AppEnv } from "../../context";
import { clearCookies, setSessionCookie } from "../../dashboard/cookies";
import { ApiError } from "../../lib/errors";
import { errorResponses, errorSchema, jsonBody, jsonResponse, publicSecurity } from "../../lib/openapi";
import { authenticate } from "../../middleware/auth";
import { rateLimit } from "../../middleware/ratelimit";
import { limitedSignIn } from "../../middleware/sign-in-limit";
import { resolveSession, SESSION_COOKIE, type SessionMembership, signIn, signOut } from "../../sessions/service";

const signInSchema = z
  .strictObject({
    // HTML5 pattern: accepts the local first-run admin, admin@localhost (no dot in the domain).
    email: z.email({ pattern: z.regexes.html5Email }).max(320).openapi({ example: "admin@example.com" }),
    password: z.string().min(1).max(1024),
  })
  .openapi("SignIn");

const sessionSchema = z
  .object({
    user: z.object({ id: z.string(), email: z.string() }),
    organizations: z.array(z.object({ id: z.string(), name: z.string(), role: z.enum(["admin", "member"]) })),
    expiresAt: z.string().optional(),
  })
  .openapi("DashboardSession");

const signInRoute = createRoute({
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

const signOutRoute = createRoute({
  method: "post",
  path: "/sign-out",
  tags: ["Dashboard"],
  operationId: "dashboardSignOut",
  summary: "End the session",
  security: [{ session: [] }],
  responses: { 204: { description: "Signed out." }, ...errorResponses() },
});

const sessionRoute = createRoute({
  method: "get",
  path: "/session",
  tags: ["Dashboard"],
  operationId: "dashboardSession",
  summary: "The signed-in user and their organizations",
  security: [{ session: [] }],
  responses: { 200: jsonResponse(sessionSchema, "The current session."), ...errorResponses() },
});

const organizationsOf = (memberships: SessionMembership[]) =>
  memberships.map((m) => ({ id: m.organizationId, name: m.organizationName, role: m.role }));

export function registerDashboardAuth(app: OpenAPIHono<AppEnv>): void {
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

  app.use(signOutRoute.path, authenticate({ orgOptional: true, sessionOnly: true }), rateLimit);
  app.openapi(signOutRoute, async (c) => {
    const token = c.req.header("authorization")?.replace(/^Bearer\s+/i, "") ?? getCookie(c, SESSION_COOKIE);
    if (token) await signOut({ ctx: { db: c.var.db }, input: { token } });
    clearCookies(c, false);
    return c.body(null, 204);
  });

  app.use(sessionRoute.path, authenticate({ orgOptional: true, sessionOnly: true }), rateLimit);
  app.openapi(sessionRoute, async (c) => {
    const { user, memberships = [] } = c.var.auth;
    if (!user) throw new ApiError("unauthorized", "No signed-in user.");
    return c.json({ user, organizations: organizationsOf(memberships) }, 200);
  });
}
