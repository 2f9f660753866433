// What a middleware can answer, for the OpenAPI document. Each guard (the input guard, the
// content-type and CSRF checks, authentication, the rate limit, permissions) states here, next to
// its code, the statuses it refuses with; the document adds them to every operation the guard
// runs on, found through the app's own router (src/routes/public/openapi.ts), so the document follows the
// mounting and the guard's own policy, and cannot drift from either.

/** One refusal a guard can give: its status and why, in words for the document. */
export interface GuardAnswer {
  status: number;
  why: string;
}

/** The refusals a guard can give to `method` on `path` (the route's path, `/v1/agents/:id`). */
export type GuardAnswers = (method: string, path: string) => GuardAnswer[];

// biome-ignore lint/complexity/noBannedTypes: keyed by the middleware function's identity, whatever its signature
const registry = new WeakMap<Function, GuardAnswers>();

/** Registers what `guard` can answer; returns it unchanged. */
// biome-ignore lint/complexity/noBannedTypes: any middleware function
export function answers<G extends Function>(guard: G, describe: GuardAnswers): G {
  registry.set(guard, describe);
  return guard;
}

/** What a handler of the router can answer, when it is a registered guard. */
// biome-ignore lint/complexity/noBannedTypes: any handler function
export const guardAnswersOf = (handler: Function): GuardAnswers | undefined => registry.get(handler);

/** Methods whose body a route reads and whose Content-Type the content-type guards check. */
export const CONTENT_METHODS = new Set(["POST", "PUT", "PATCH"]);
export const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
