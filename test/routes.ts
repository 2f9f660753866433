// THE table of every route of the app. The security suite (test/integration/security.test.ts)
// iterates it: no credential, malformed / unknown / revoked keys, another workspace's id,
// member vs admin. test/unit/routes-complete.test.ts fails when the app has a route that is
// missing here or from the OpenAPI document, so a new route cannot skip these checks.
import type { Workspace } from "./harness";

export interface RouteCase {
  method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
  /** Hono path syntax, as registered: `/v1/agents/:id`. */
  path: string;
  /**
   * api_key: /v1 routes (API key, or session + x-organization-id);
   * session: dashboard routes (session only, API keys refused);
   * public: no credential, with `why` saying what it may reach.
   */
  auth: "api_key" | "session" | "public";
  /** Session routes only members lack: admins need it (settings:read / settings:write). */
  permission?: "settings:read" | "settings:write";
  /** Routes with :id: makes the resource in `ws` and returns its id, for the tenancy check. */
  resource?: (ws: Workspace) => Promise<string>;
  /** A valid body, so the request would pass validation and reach auth and tenancy. */
  body?: unknown;
  /** public routes: what they may and may not reach. */
  why?: string;
}

export const ROUTES: RouteCase[] = [
  { method: "GET", path: "/health", auth: "public", why: "liveness; touches no data" },
  { method: "GET", path: "/v1/openapi.json", auth: "public", why: "the API's description; no data" },
  { method: "GET", path: "/docs", auth: "public", why: "reference page; no data" },
  {
    method: "POST",
    path: "/dashboard/api/sign-in",
    auth: "public",
    why: "exchanges email+password for a session; reveals nothing on failure",
  },

  { method: "GET", path: "/v1/me", auth: "api_key" },

  { method: "POST", path: "/dashboard/api/sign-out", auth: "session" },
  { method: "GET", path: "/dashboard/api/session", auth: "session" },
  { method: "GET", path: "/dashboard/api/api-keys", auth: "session", permission: "settings:read" },
  { method: "POST", path: "/dashboard/api/api-keys", auth: "session", permission: "settings:write", body: { name: "k" } },
  {
    method: "POST",
    path: "/dashboard/api/api-keys/:id/revoke",
    auth: "session",
    permission: "settings:write",
    resource: async (ws) => ws.apiKeyId,
  },
];
