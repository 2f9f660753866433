// The one Hono app: middleware, the /v1 API, the dashboard's JSON routes, docs.
import { requestId } from "hono/request-id";
import { secureHeaders } from "hono/secure-headers";
import { createRouter } from "./context";
import { registerDashboardApi } from "./dashboard/api";
import { dashboardPageFrame, registerDashboardPages } from "./dashboard/pages";
import { ApiError, handleError } from "./lib/errors";
import { newId } from "./lib/ids";
import { authenticate, requireSettingsAccess } from "./middleware/auth";
import { guardInput, requireContentType, sameOriginForCookies, v1BodyPolicy } from "./middleware/guards";
import { init } from "./middleware/init";
import { rateLimit } from "./middleware/ratelimit";
import { registerDocs } from "./routes/docs";
import { registerTelephonyRoutes } from "./routes/telephony";
import { registerV1 } from "./routes/v1";
import { registerModels } from "./routes/v1/models";
import { registerWebhookEndpoints } from "./routes/v1/webhook-endpoints";
import { registerDeliveryLog } from "./routes/v1/webhook-endpoints/actions";
import { registerQstashRoutes } from "./routes/webhooks/qstash";
import { registerTestReceiver } from "./routes/webhooks/test-receiver";
import { registerWidgetRoutes } from "./widgets";

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
  // (src/middleware/guards.ts). Dashboard pages show its refusals as pages.
  app.use("/dashboard/*", ...dashboardPageFrame);
  app.use("*", guardInput);

  // Public: /health (no auth, no I/O: the benchmark's baseline), /v1/openapi.json and /docs.
  // Registered before the /v1 middleware below, so they answer without a credential.
  registerDocs(app);
  // Public too: the built-in test receiver (capture token in the URL) and QStash's callbacks
  // (verified by Upstash-Signature). Registered before the /webhooks/* auth below.
  registerTestReceiver(app);
  registerQstashRoutes(app);

  // Public too: the live-call routes (Twilio's signed callbacks and media stream, the browser's
  // web-call socket with its one-time token).
  registerTelephonyRoutes(app);

  // The embeddable widget: its public routes check the widget token and the page's origin.
  registerWidgetRoutes(app);

  app.use("/v1/*", sameOriginForCookies, v1BodyPolicy);
  app.use("/v1/*", (c, next) => authenticate({ orgOptional: c.req.path === "/v1/me" })(c, next));
  app.use("/v1/*", rateLimit);
  registerV1(app);
  registerModels(app);
  for (const path of ["/v1/webhook-endpoints", "/v1/webhook-endpoints/*"]) app.use(path, requireSettingsAccess);
  registerWebhookEndpoints(app);

  // The spec's delivery log path has no /v1 prefix: same credentials, same limits.
  app.use("/webhooks/:id/deliveries", authenticate(), rateLimit, requireSettingsAccess);
  registerDeliveryLog(app, "/webhooks/{id}/deliveries", { security: [{ apiKey: [] }], prefix: "", tag: "Webhooks" });

  app.use("/dashboard/api/*", sameOriginForCookies, requireContentType());
  registerDashboardApi(app);
  registerDashboardPages(app);

  return app;
}

export type App = ReturnType<typeof createApp>;
