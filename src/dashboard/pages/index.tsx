/** @jsxImportSource hono/jsx */
// The dashboard's server-rendered pages under /dashboard (Hono JSX). Signed-in pages go
// through `pageSession` (redirect to sign-in, organization, CSRF on every POST); admin screens
// answer members with the "admin access required" page; errors render as pages, not JSON.
// Every page has a nonce-based Content-Security-Policy and is never cached.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler, Next } from "hono";
import { NONCE, secureHeaders } from "hono/secure-headers";
import type { AppEnv } from "../../context";
import { ApiError } from "../../lib/errors";
import { sameOriginForCookies } from "../../middleware/guards";
import { rateLimit } from "../../middleware/ratelimit";
import { registerAgentPages } from "./agents";
import { registerApiKeyPages } from "./api-keys";
import { registerAuthPages, registerSessionActions } from "./auth";
import { registerCallPages } from "./calls";
import { registerMemberPages } from "./members";
import { pageSession, SIGN_IN_PATH } from "./session";
import { AdminRequired, Document, Layout, nonceOf, shellOf } from "./ui";
import { registerUsagePage } from "./usage";
import { registerVoicePages } from "./voices";
import { registerWebhookPages } from "./webhooks";
import { registerWidgetPages } from "./widgets";

const PUBLIC_PAGES = new Set([SIGN_IN_PATH]);

const isPage = (path: string) => path.startsWith("/dashboard") && !path.startsWith("/dashboard/api/");

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
          <a href="/dashboard">Back to the dashboard</a>
        </p>
      </main>
    </Document>,
    status,
  );
}

const TITLES: Record<string, string> = { "api-keys": "API Keys", webhooks: "Webhooks", members: "Members" };
const titleOf = (path: string) => TITLES[path.split("/")[2] ?? ""] ?? "Dashboard";

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

const onlyPages =
  (mw: MiddlewareHandler<AppEnv>): MiddlewareHandler<AppEnv> =>
  (c, next) =>
    isPage(c.req.path) ? mw(c, next) : next();

/**
 * What every page response gets: the policy, no-store, and errors rendered as pages. Mounted in
 * src/app.ts before the input guard, so that its refusals (400, 413) on pages are pages too.
 */
export const dashboardPageFrame: MiddlewareHandler<AppEnv>[] = [onlyPages(pagePolicy), onlyPages(noStore), onlyPages(htmlErrors)];

export function registerDashboardPages(app: OpenAPIHono<AppEnv>): void {
  app.use("/dashboard/*", onlyPages(sameOriginForCookies));
  registerAuthPages(app);
  app.use(
    "/dashboard/*",
    onlyPages((c, next) => (PUBLIC_PAGES.has(c.req.path) ? next() : pageSession(c, next))),
    onlyPages((c, next) => (PUBLIC_PAGES.has(c.req.path) ? next() : rateLimit(c, next))),
  );
  app.get("/dashboard", (c) => c.redirect("/dashboard/agents", 303));
  registerSessionActions(app);
  registerMemberPages(app);
  registerApiKeyPages(app);
  registerWebhookPages(app);
  registerAgentPages(app);
  registerVoicePages(app);
  registerCallPages(app);
  registerUsagePage(app);
  registerWidgetPages(app);
}
