/** @jsxImportSource hono/jsx */
// What every page response gets, signed in or not, errors and redirects included: the nonce-based
// Content-Security-Policy, no-store, and errors rendered as pages (same status, what to do next).
// It wraps the app-wide input guard, so that its refusals (400, 413) on pages are pages too.
import type { Context, MiddlewareHandler, Next } from "hono";
import { NONCE, secureHeaders } from "hono/secure-headers";
import type { AppEnv } from "../context";
import { ApiError } from "../lib/errors";
import { SIGN_IN_PATH } from "./session";
import { AdminRequired, Document, Layout, nonceOf, shellOf } from "./ui";

const TITLES: Record<string, string> = { "api-keys": "API Keys", webhooks: "Webhooks", members: "Members" };
const titleOf = (path: string) => TITLES[path.split("/")[2] ?? ""] ?? "Dashboard";

/** Errors on pages render as pages (same status), with what to do next. */
async function htmlErrors(c: Context<AppEnv>, next: Next) {
  await next();
  const err = c.error;
  if (!(err instanceof ApiError) || c.res.headers.get("content-type")?.includes("text/html")) return;
  const status = err.status;
  if (err.code === "forbidden" && err.message.startsWith("Admin access required") && c.var.auth) {
    const shell = await shellOf(c, "Admin access required", "");
    c.res = await c.html(
      <Layout shell={{ ...shell, title: titleOf(c.req.path) }}>
        <AdminRequired permission={err.message.includes("settings:write") ? "settings:write" : "settings:read"} />
      </Layout>,
      403,
    );
    return;
  }
  c.res = await c.html(
    <Document title={`${status}`} nonce={nonceOf(c)}>
      <main class="error-page" id="main">
        <h1>{status === 404 ? "Not found" : "Something is not right"}</h1>
        <p role="alert">{err.message}</p>
        <p>
          {/* Signed out, the dashboard would only send them to sign in: say so. */}
          {c.var.auth ? <a href="/dashboard">Back to the dashboard</a> : <a href={SIGN_IN_PATH}>Go to sign in</a>}
        </p>
      </main>
    </Document>,
    status,
  );
}

/**
 * The pages' policy: scripts and styles only inline with this response's nonce (a fresh one per
 * response, `c.get("secureHeadersNonce")`), everything else from this origin, no plugins, no
 * framing, forms post only here. The other security headers come from the app-wide
 * secureHeaders (app.ts), so they are all off here.
 */
const pagePolicy = secureHeaders({
  contentSecurityPolicy: {
    defaultSrc: ["'self'"],
    scriptSrc: [NONCE],
    styleSrc: [NONCE],
    imgSrc: ["'self'", "data:"],
    objectSrc: ["'none'"],
    baseUri: ["'none'"],
    formAction: ["'self'"],
    frameAncestors: ["'none'"],
  },
  crossOriginResourcePolicy: false,
  crossOriginOpenerPolicy: false,
  originAgentCluster: false,
  referrerPolicy: false,
  strictTransportSecurity: false,
  xContentTypeOptions: false,
  xDnsPrefetchControl: false,
  xDownloadOptions: false,
  xFrameOptions: false,
  xPermittedCrossDomainPolicies: false,
  xXssProtection: false,
  removePoweredBy: false,
});

/** Pages show workspace data (and secrets once): no browser or proxy keeps a copy. */
async function noStore(c: Context<AppEnv>, next: Next) {
  await next();
  c.res.headers.set("Cache-Control", "no-store");
}

/** The frame, for a router that holds only pages (and runs the input guard after it). */
export const pageFrame: MiddlewareHandler<AppEnv>[] = [pagePolicy, noStore, htmlErrors];

const isPage = (path: string) => path.startsWith("/dashboard") && !path.startsWith("/dashboard/api/");

/**
 * The frame as src/app.ts mounts it today: on `/dashboard/*`, before the app-wide input guard.
 * That prefix also holds the JSON routes (`/dashboard/api/*`), hence the one path test left in the
 * dashboard; once the pages are a sub-router with the input guard of their own, mount `pageFrame`
 * first on it instead.
 */
export const dashboardPageFrame: MiddlewareHandler<AppEnv>[] = pageFrame.map(
  (mw): MiddlewareHandler<AppEnv> =>
    (c, next) =>
      isPage(c.req.path) ? mw(c, next) : next(),
);
