// Resolves the credential to its organization before any work (spec: Authentication 2).
// Two paths: `Authorization: Bearer sk-live-…` (an organization API key, acting as admin),
// or a dashboard session (cookie, or `Bearer sess_…`) with `x-organization-id`.
import type { Context } from "hono";
import { getCookie } from "hono/cookie";
import { createMiddleware } from "hono/factory";
import {
  checkApiKey,
  isApiKeyShaped,
  type KeyCheck,
  type ResolvedKey,
  rememberKey,
  resolveApiKeyByHash,
  touchApiKey,
} from "../api-keys/service";
import { type AppEnv, type AuthContext, type Permission, permissionsFor } from "../context";
import { sha256Hex } from "../lib/crypto";
import { ApiError } from "../lib/errors";
import { answers } from "../lib/guard-answers";
import { isUuid } from "../lib/ids";
import { redisFor } from "../lib/redis";
import { readsAlongsideTheKeyCheck } from "../lib/route-properties";
import { applyLimit, defaultPolicy, warnUnavailable } from "../ratelimit/http";
import { requestContext } from "../services";
import { isSessionShaped, type ResolvedSession, resolveSession, SESSION_COOKIE } from "../sessions/service";

const unauthorized = (message: string) => new ApiError("unauthorized", message);

export const authenticate = (opts: { orgOptional?: boolean; sessionOnly?: boolean } = {}) =>
  answers(authenticateWith(opts), () => [
    { status: 400, why: "a session request whose `x-organization-id` is missing or not a UUID" },
    { status: 401, why: "missing, malformed, unknown or revoked credentials (unauthorized)" },
    { status: 403, why: "a session naming an organization the user is not a member of (forbidden)" },
    ...(opts.sessionOnly ? [] : [{ status: 429, why: "too many requests for this API key; wait `Retry-After` seconds (rate_limited)" }]),
    { status: 503, why: "the database cannot be reached to check the credential (service_unavailable)" },
  ]);

const authenticateWith = (opts: { orgOptional?: boolean; sessionOnly?: boolean }) =>
  createMiddleware<AppEnv>(async (c, next) => {
    const header = c.req.header("authorization");
    let bearer: string | undefined;
    if (header !== undefined) {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
      if (!match?.[1]) throw unauthorized("The Authorization header must be `Bearer <API_KEY>`.");
      bearer = match[1];
    }
    if (bearer !== undefined && !isSessionShaped(bearer)) {
      if (opts.sessionOnly) throw unauthorized("This route is for the signed-in dashboard; API keys are not accepted here.");
      if (!isApiKeyShaped(bearer)) throw unauthorized("The API key is malformed. Keys look like `sk-live-…`.");
      const hash = await sha256Hex(bearer);
      const seen = readsAlongsideTheKeyCheck(c) ? seenKeys.get(hash) : undefined;
      if (seen) {
        // The route's read runs while the key is checked; the answer waits for the check, and a
        // refusal (revoked, rate limited) replaces it, as it would have come before it.
        const checked = verifyApiKey(c, hash);
        checked.catch(() => undefined); // awaited below, after the route
        setAuth(c, apiKeyAuth(seen));
        await next();
        const key = await checked;
        if (key.keyId !== seen.keyId || key.organizationId !== seen.organizationId) {
          throw new ApiError("service_unavailable", "The API key changed while it was checked. Send the request again.");
        }
        return;
      }
      setAuth(c, apiKeyAuth(await verifyApiKey(c, hash)));
      return next();
    }

    const token = bearer ?? getCookie(c, SESSION_COOKIE);
    if (!token) throw unauthorized("Missing credentials: send `Authorization: Bearer <API_KEY>`.");
    if (!isSessionShaped(token)) throw unauthorized("The session is invalid or has expired. Sign in again.");
    const session = await resolveSession({ ctx: { db: c.var.db }, input: { token } });
    if (!session) throw unauthorized("The session is invalid or has expired. Sign in again.");

    const requested = c.req.header("x-organization-id");
    let membership = session.memberships[0];
    if (requested !== undefined) {
      if (!isUuid(requested)) throw new ApiError("bad_request", "x-organization-id must be an organization id (UUID).");
      membership = session.memberships.find((m) => m.organizationId === requested);
      if (!membership) throw new ApiError("forbidden", "You are not a member of that organization.");
    } else if (!opts.orgOptional) {
      throw new ApiError("bad_request", "Session requests must name the organization in the x-organization-id header.");
    }
    if (!membership) throw new ApiError("forbidden", "This user belongs to no organization.");
    setAuth(c, sessionAuth(session, membership));
    return next();
  });

const KEY_CHECK_TIMEOUT_MS = 1000;

/**
 * An API key, verified in one Redis round trip in the steady state (the cached key, the rate
 * limit and last-used together), from Postgres on a cache miss, and from Postgres alone when
 * Redis cannot be reached: then the limiter fails open, authentication never does.
 */
async function verifyApiKey(c: Context<AppEnv>, hash: string): Promise<ResolvedKey> {
  try {
    const key = await checkKey(c, hash);
    seeKey(hash, key);
    return key;
  } catch (err) {
    if (err instanceof ApiError && err.code === "unauthorized") seenKeys.delete(hash);
    throw err;
  }
}

async function checkKey(c: Context<AppEnv>, hash: string): Promise<ResolvedKey> {
  const { config, db } = c.var;
  const policy = defaultPolicy(config);
  const redis = redisFor(config, { retry: false, timeoutMs: KEY_CHECK_TIMEOUT_MS, autoPipelining: false });
  let check: KeyCheck | null = null;
  try {
    check = await checkApiKey({ ctx: { redis }, input: { hash, policy: { limit: policy.limit, windowMs: policy.seconds * 1000 } } });
  } catch (err) {
    warnUnavailable(c, err);
  }
  if (!check) {
    const key = await resolveApiKeyByHash({ ctx: { db }, input: { hash } });
    if (!key) throw unauthorized(INVALID_KEY);
    applyLimit(c, policy, null);
    c.var.defer(touchApiKey({ ctx: { db }, input: { keyId: key.keyId } }));
    return key;
  }
  if (check.status === "invalid") throw unauthorized(INVALID_KEY);
  let key: ResolvedKey | null;
  if (check.status === "miss") {
    key = await resolveApiKeyByHash({ ctx: { db }, input: { hash } });
    c.var.defer(rememberKey({ ctx: { redis }, input: { hash, key } }));
  } else {
    key = check.key;
  }
  if (!key) throw unauthorized(INVALID_KEY);
  applyLimit(c, policy, check.limit);
  return key;
}

const INVALID_KEY = "The API key is invalid or has been revoked.";

const apiKeyAuth = (key: ResolvedKey): AuthContext => ({
  type: "api_key",
  organizationId: key.organizationId,
  role: "admin",
  permissions: permissionsFor("admin"),
  user: key.user,
  apiKeyId: key.keyId,
});

/**
 * Keys this isolate has verified (by the secret's hash), so that a read below can start before
 * the check of the next request with the same key ends. Only where a key belongs, never whether
 * it is still valid: every request is still checked, and a refused key is forgotten. Bounded.
 */
const seenKeys = new Map<string, ResolvedKey>();
const SEEN_KEYS_MAX = 10_000;

function seeKey(hash: string, key: ResolvedKey): void {
  seenKeys.delete(hash);
  seenKeys.set(hash, key);
  if (seenKeys.size > SEEN_KEYS_MAX) seenKeys.delete(seenKeys.keys().next().value as string);
}

/**
 * Sets the request's auth context and, built from it, its request context (`c.var.ctx`, what the
 * resource services take): every authentication path sets both, with no I/O.
 */
export function setAuth(c: Context<AppEnv>, auth: AuthContext): void {
  c.set("auth", auth);
  c.set("ctx", requestContext(c.var.services, auth));
}

/** The auth context of a dashboard session acting in one of its organizations. */
export const sessionAuth = (session: ResolvedSession, membership: ResolvedSession["memberships"][number]): AuthContext => ({
  type: "session",
  organizationId: membership.organizationId,
  role: membership.role,
  permissions: permissionsFor(membership.role),
  user: session.user,
  sessionId: session.sessionId,
  memberships: session.memberships,
});

/** Guards a route with a permission; members lack the settings permissions. */
export const requirePermission = (permission: Permission) =>
  answers(
    createMiddleware<AppEnv>(async (c, next) => {
      if (!c.var.auth.permissions.includes(permission)) {
        throw new ApiError("forbidden", `Admin access required: this needs the \`${permission}\` permission.`);
      }
      return next();
    }),
    () => [{ status: 403, why: `a role without the \`${permission}\` permission (forbidden)` }],
  );

/** Admin-only areas: reading needs `settings:read`, changing needs `settings:write`. */
const settingsPermission = (method: string): Permission => (method === "GET" || method === "HEAD" ? "settings:read" : "settings:write");
export const requireSettingsAccess = answers(
  createMiddleware<AppEnv>(async (c, next) => requirePermission(settingsPermission(c.req.method))(c, next)),
  (method) => [{ status: 403, why: `a role without the \`${settingsPermission(method)}\` permission (forbidden)` }],
);
