// The dashboard's cookies (the session, the chosen organization): HttpOnly, SameSite=Lax, and
// Secure whenever the browser reached us over HTTPS, also when TLS ends at a proxy in front of us.
import type { Context } from "hono";
import { deleteCookie, setCookie } from "hono/cookie";
import type { AppEnv } from "../context";
import { SESSION_COOKIE } from "../sessions/service";

export const ORG_COOKIE = "dashboard_org";

/**
 * Whether the browser's side of the connection is HTTPS: the request's own URL, the first
 * `X-Forwarded-Proto` of a TLS-terminating proxy, or a PUBLIC_BASE_URL on https. Each can only
 * add `Secure` (a client that claims https over plain http just loses its own cookie), never remove it.
 */
export function browserOnHttps(url: string, forwardedProto: string | undefined, publicBaseUrl: string | undefined): boolean {
  if (new URL(url).protocol === "https:") return true;
  if (forwardedProto?.split(",")[0]?.trim().toLowerCase() === "https") return true;
  return publicBaseUrl?.toLowerCase().startsWith("https:") ?? false;
}

const secure = (c: Context<AppEnv>) => browserOnHttps(c.req.url, c.req.header("x-forwarded-proto"), c.var.config.PUBLIC_BASE_URL);

export function setSessionCookie(c: Context<AppEnv>, token: string, expires: Date): void {
  setCookie(c, SESSION_COOKIE, token, { httpOnly: true, secure: secure(c), sameSite: "Lax", path: "/", expires });
}

export function setOrgCookie(c: Context<AppEnv>, organizationId: string): void {
  setCookie(c, ORG_COOKIE, organizationId, { httpOnly: true, secure: secure(c), sameSite: "Lax", path: "/dashboard" });
}

/** Signing out: the session cookie, and the organization cookie when `withOrg`. */
export function clearCookies(c: Context<AppEnv>, withOrg: boolean): void {
  deleteCookie(c, SESSION_COOKIE, { path: "/", secure: secure(c) });
  if (withOrg) deleteCookie(c, ORG_COOKIE, { path: "/dashboard", secure: secure(c) });
}
