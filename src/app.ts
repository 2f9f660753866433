// The one Hono app: the middleware every request passes, then one router per surface, each with
// its own middleware, mounted with app.route() (openstatus' apps/server/src/routes/v1/index.ts
// pattern). Order: the public surfaces before the ones that authenticate, so a public path that
// shares a prefix with a guarded one (/v1/openapi.json) answers first.
import { requestId } from "hono/request-id";
import { secureHeaders } from "hono/secure-headers";
import { createRouter } from "./context";
import { dashboardPageFrame } from "./dashboard";
import { ApiError, handleError } from "./lib/errors";
import { newId } from "./lib/ids";
import { guardInput } from "./middleware/guards";
import { init } from "./middleware/init";
import { channelWebhookRoutes } from "./routes/channels";
import { dashboardPages } from "./routes/dashboard";
import { dashboardApi } from "./routes/dashboard-api";
import { publicRoutes } from "./routes/public";
import { telephonyRoutes } from "./routes/telephony";
import { v1Routes } from "./routes/v1";
import { deliveryLogRoutes } from "./routes/webhooks";
import { WIDGET_API_BASE, widgetRoutes } from "./routes/widget";

export function createApp() {
  const app = createRouter();
  app.onError(handleError);
  app.notFound((c) => {
    throw new ApiError("not_found", `No route for ${c.req.method} ${new URL(c.req.url).pathname}.`);
  });

  app.use("*", requestId({ generator: newId, headerName: "X-Request-Id" }));
  // Referrer-Policy same-origin, not the default no-referrer: with no-referrer Chromium sends
  // `Origin: null` on the dashboard's own form posts, which the CSRF origin check refuses.
  app.use("*", secureHeaders({ crossOriginResourcePolicy: false, referrerPolicy: "same-origin" }));
  app.use("*", init);
  // Every request, of every surface and method, before any route's middleware: the body's size
  // cap, strict UTF-8 and JSON, and no NUL or lone surrogate in the path, query, JSON or form
  // (src/middleware/guards.ts). Dashboard pages show its refusals as pages: their frame goes first.
  app.use("/dashboard/*", ...dashboardPageFrame);
  app.use("*", guardInput);

  app.route("/", publicRoutes(app));
  // Live calls: Twilio's signed callbacks and media stream, the browser's web-call socket with its one-time token.
  app.route("/", telephonyRoutes());
  app.route(WIDGET_API_BASE, widgetRoutes());
  // Messaging providers' webhooks: each delivery is checked against its channel's secret.
  app.route("/channels", channelWebhookRoutes());
  app.route("/v1", v1Routes());
  app.route("/webhooks", deliveryLogRoutes());

  app.route("/dashboard/api", dashboardApi());
  app.route("/dashboard", dashboardPages());

  return app;
}

export type App = ReturnType<typeof createApp>;
