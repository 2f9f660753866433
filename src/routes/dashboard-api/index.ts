// The dashboard's JSON routes: one router mounted at /dashboard/api (src/app.ts), its paths
// relative to it, session only (API keys are refused), used by the dashboard's pages. A folder per
// resource, one file per operation: auth/ (sign-in, sign-out, session), api-keys/; the webhook
// endpoints and usage are /v1's own operations (src/routes/v1), registered here at the dashboard's
// mount. Its own middleware: the cookie-CSRF origin check and JSON bodies; each group authenticates itself.
import { createRouter } from "../../context";
import { authenticate, requireSettingsAccess } from "../../middleware/auth";
import { requireContentType, sameOriginForCookies } from "../../middleware/guards";
import { rateLimit } from "../../middleware/ratelimit";
import { registerUsage } from "../v1/usage/get";
import { DASHBOARD_MOUNT, registerWebhookEndpoints } from "../v1/webhook-endpoints";
import { registerDeliveryLog } from "../v1/webhook-endpoints/deliveries";
import { registerDashboardApiKeys } from "./api-keys";
import { registerDashboardAuth } from "./auth";

export function dashboardApi() {
  const app = createRouter();
  app.use("*", sameOriginForCookies, requireContentType());
  registerDashboardAuth(app);
  registerDashboardApiKeys(app);

  // Webhook management: admins only (settings:read / settings:write), session only.
  const base = DASHBOARD_MOUNT.base;
  for (const path of [base, `${base}/*`]) app.use(path, authenticate({ sessionOnly: true }), rateLimit, requireSettingsAccess);
  registerWebhookEndpoints(app, DASHBOARD_MOUNT);
  registerDeliveryLog(app, `${base}/{id}/deliveries`, DASHBOARD_MOUNT);

  // Usage: every member may see it.
  app.use("/usage", authenticate({ sessionOnly: true }), rateLimit);
  registerUsage(app, "/usage", [{ session: [] }], "dashboardUsage", "Dashboard");
  return app;
}
