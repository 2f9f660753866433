// The dashboard pages' session: the HttpOnly session cookie (as for /dashboard/api), the
// organization chosen in the switcher (a cookie), and a CSRF token for every form, derived
// from the session token (HMAC), checked on every POST together with the Origin check.
import { getCookie } from "hono/cookie";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../context";
import { timingSafeEqual } from "../lib/crypto";
import { ApiError } from "../lib/errors";
import { sessionAuth, setAuth } from "../middleware/auth";
import { isSessionShaped, resolveSession, SESSION_COOKIE } from "../sessions/service";
import { ORG_COOKIE, setOrgCookie } from "./cookies";

export { ORG_COOKIE };
export const CSRF_FIELD = "_csrf";

const enc = new TextEncoder();

export async function csrfToken(sessionToken: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", enc.encode(sessionToken), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, enc.encode("dashboard-csrf-v1")));
  return btoa(String.fromCharCode(...mac))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

declare module "hono" {
  interface ContextVariableMap {
    csrf: string;
    /** Parsed form fields of a dashboard POST (read once, by the CSRF check). */
    form: Record<string, string[]>;
  }
}

export const SIGN_IN_PATH = "/dashboard/sign-in";

/** Signed-in pages: redirect to the sign-in page without a session; choose the organization. */
export const pageSession = createMiddleware<AppEnv>(async (c, next) => {
  const token = getCookie(c, SESSION_COOKIE);
  const session = token && isSessionShaped(token) ? await resolveSession({ ctx: { db: c.var.db }, input: { token } }) : null;
  if (!token || !session) {
    const back = c.req.method === "GET" ? `?next=${encodeURIComponent(new URL(c.req.url).pathname)}` : "";
    return c.redirect(`${SIGN_IN_PATH}${back}`, 303);
  }
  const wanted = getCookie(c, ORG_COOKIE);
  const membership = session.memberships.find((m) => m.organizationId === wanted) ?? session.memberships[0];
  if (!membership) throw new ApiError("forbidden", "This user belongs to no organization.");
  setAuth(c, sessionAuth(session, membership));
  c.set("csrf", await csrfToken(token));
  if (c.req.method === "POST") {
    const form = await readForm(c.req.raw);
    const given = form[CSRF_FIELD]?.[0] ?? "";
    if (!timingSafeEqual(enc.encode(given), enc.encode(c.var.csrf)))
      throw new ApiError("csrf_rejected", "The form's security token is missing or stale. Reload the page and try again.");
    c.set("form", form);
  }
  return next();
});

/** Switches the dashboard's organization (one the user belongs to). */
export function chooseOrganization(c: Parameters<Parameters<typeof createMiddleware<AppEnv>>[0]>[0], organizationId: string) {
  const auth = c.var.auth;
  if (!auth.memberships?.some((m) => m.organizationId === organizationId))
    throw new ApiError("forbidden", "You are not a member of that organization.");
  setOrgCookie(c, organizationId);
}

export async function readForm(req: Request): Promise<Record<string, string[]>> {
  const type = req.headers.get("content-type") ?? "";
  if (!type.startsWith("application/x-www-form-urlencoded") && !type.startsWith("multipart/form-data"))
    throw new ApiError("unsupported_media_type", "Dashboard forms post application/x-www-form-urlencoded.");
  let data: FormData;
  try {
    data = await req.formData();
  } catch {
    throw new ApiError("bad_request", "The form could not be read.");
  }
  const out: Record<string, string[]> = {};
  for (const [k, v] of data.entries()) if (typeof v === "string") out[k] = [...(out[k] ?? []), v];
  return out;
}

/** Admin screens: members get the admin-access-required page (403). */
export function requireAdminPage(c: { var: { auth: { permissions: string[] } } }, write: boolean): void {
  const permission = write ? "settings:write" : "settings:read";
  if (!c.var.auth.permissions.includes(permission))
    throw new ApiError("forbidden", `Admin access required: this needs the \`${permission}\` permission.`);
}
