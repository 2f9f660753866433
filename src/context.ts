// The typed Hono environment shared by every route (unkey's pkg/hono/env.ts pattern).
import { OpenAPIHono, z } from "@hono/zod-openapi";
import type { Db } from "./db/client";
import type { Role } from "./db/schema";
import type { AppConfig, Bindings } from "./env";
import { invalidInput } from "./lib/errors";
import { type RouteProperties, takeRouteProperties } from "./lib/route-properties";
import type { RequestContext, Services } from "./services";
import "./lib/zod-messages";

export type Permission = "settings:read" | "settings:write";

export interface AuthContext {
  type: "api_key" | "session";
  organizationId: string;
  role: Role;
  permissions: Permission[];
  user: { id: string; email: string } | null;
  apiKeyId?: string;
  sessionId?: string;
  /** Session auth only: every organization the user belongs to (oldest first), with its name. */
  memberships?: Array<{ organizationId: string; organizationName: string; role: Role }>;
}

export interface AppEnv {
  Bindings: Bindings;
  Variables: {
    requestId: string;
    config: AppConfig;
    /** Opened on first use in a request and closed after the response (ctx.waitUntil). */
    db: Db;
    /** Work to finish after the response (before the request's pool closes). */
    defer: (work: Promise<unknown>) => void;
    auth: AuthContext;
    /**
     * The authenticated request's context (src/services.ts), set with `auth`: what the resource
     * services take as `{ ctx, input }`.
     */
    ctx: RequestContext;
    /** What services need from the request (webhook deps, the public origin): src/services.ts. */
    services: Services;
  };
}

export const permissionsFor = (role: Role): Permission[] => (role === "admin" ? ["settings:read", "settings:write"] : []);

/**
 * A router whose validation failures leave through the one error body, and whose routes may
 * declare their properties on their definition (src/lib/route-properties.ts).
 */
export function createRouter(): OpenAPIHono<AppEnv> {
  const router = new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) throw invalidInput(result.target, result.error.issues);
    },
  });
  const register = router.openapi;
  router.openapi = ((route: RouteConfig & RouteProperties, handler: object, ...rest: unknown[]) =>
    (register as (...args: unknown[]) => unknown)(takeRouteProperties(route, handler), handler, ...rest)) as typeof router.openapi;
  return router;
}

type RouteConfig = Parameters<OpenAPIHono<AppEnv>["openapi"]>[0];

/**
 * The one rule for query parameters on the API: an operation refuses any it does not define,
 * as a strict JSON body refuses an unknown field (docs/errors.md). A route that declares no
 * `request.query` takes none (an empty strict object); a declared `z.object` is made strict.
 * Either way an unknown parameter fails the route's query validation, before its body is read or
 * its handler runs: `400 validation_failed`, `Invalid query: (root): unknown field: zzz`.
 */
function withStrictQuery(route: RouteConfig): RouteConfig {
  const query = route.request?.query;
  if (query !== undefined && !(query instanceof z.ZodObject)) {
    throw new Error(`${route.method.toUpperCase()} ${route.path}: an API operation's query must be a z.object (or z.strictObject)`);
  }
  const strict = query === undefined ? z.strictObject({}) : query.def.catchall instanceof z.ZodNever ? query : query.strict();
  return { ...route, request: { ...route.request, query: strict } };
}

/**
 * The router of the public API (/v1, and the spec's delivery log under /webhooks): createRouter,
 * with every operation registered on it refusing query parameters it does not define
 * (withStrictQuery), so a new route cannot forget the rule. Other surfaces (telephony, channels,
 * widget, dashboard) use createRouter: providers and browsers add parameters of their own.
 */
export function createApiRouter(): OpenAPIHono<AppEnv> {
  const router = createRouter();
  const register = router.openapi;
  router.openapi = ((route: RouteConfig, ...rest: unknown[]) =>
    (register as (...args: unknown[]) => unknown)(withStrictQuery(route), ...rest)) as typeof router.openapi;
  return router;
}
