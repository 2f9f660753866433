// What a route declares about itself besides its OpenAPI description, on its definition:
//
//   createRoute({ method: "get", path: "/agents", …, readsAlongsideTheKeyCheck: true })
//
// The routers (src/context.ts) take these properties off the route before it is registered, so
// they never reach the OpenAPI document, and mark the route's handler; the middleware asks the
// request's matched handler. No list of paths to keep in step with the routes.
import type { Context } from "hono";
import { matchedRoutes } from "hono/route";

export interface RouteProperties {
  /**
   * A GET whose handler only reads the workspace's rows (no write, no provider, no storage, no
   * other side effect): for an API key this isolate has seen, it runs while the key is checked,
   * and its answer waits for the check (docs/authentication.md). Declare it on nothing else: a
   * side effect here would happen before a revoked key is refused.
   */
  readsAlongsideTheKeyCheck?: true;
}

const alongside = new WeakSet<object>();

/** Splits a route definition into what is registered and what it declares; marks the handler. */
export function takeRouteProperties<R extends { method: string; path: string }>(route: R & RouteProperties, handler: object): R {
  const { readsAlongsideTheKeyCheck, ...registered } = route;
  if (readsAlongsideTheKeyCheck) {
    if (route.method !== "get") throw new Error(`${route.method.toUpperCase()} ${route.path}: only a GET may read alongside the key check`);
    alongside.add(handler);
  }
  return registered as unknown as R;
}

/** Hono keeps a mounted router's handler under this key when it wraps it (hono/dist/utils/constants). */
const COMPOSED_HANDLER = "__COMPOSED_HANDLER";

/** Whether a matched route's handler was declared `readsAlongsideTheKeyCheck`. */
export function handlerReadsAlongside(handler: unknown): boolean {
  if (typeof handler !== "function") return false;
  const inner = (handler as unknown as Record<string, unknown>)[COMPOSED_HANDLER];
  return alongside.has(handler) || (typeof inner === "function" && alongside.has(inner));
}

/** Whether the request's route (the last handler it matched) reads alongside the key check. */
export const readsAlongsideTheKeyCheck = (c: Context): boolean =>
  c.req.method === "GET" && handlerReadsAlongside(matchedRoutes(c).at(-1)?.handler);
