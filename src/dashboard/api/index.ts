import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../context";
import { authenticate, requireSettingsAccess } from "../../middleware/auth";
import { rateLimit } from "../../middleware/ratelimit";
import { registerUsage } from "../../routes/v1/models/usage";
import { DASHBOARD_MOUNT, registerWebhookEndpoints } from "../../routes/v1/webhook-endpoints";
import { registerDeliveryLog } from "../../routes/v1/webhook-endpoints/actions";
import { registerDashboardApiKeys } from "./api-keys";
import { registerDashboardAuth } from "./auth";

/** The dashboard's JSON routes (outside /v1), used by the dashboard pages. */
export function registerDashboardApi(app: OpenAPIHono<AppEnv>): void {
  registerDashboardAuth(app);
  registerDashboardApiKeys(app);

  // Webhook management: admins only (settings:read / settings:write), session only.
  const base = DASHBOARD_MOUNT.base;
  for (const path of [base, `${base}/*`]) app.use(path, authenticate({ sessionOnly: true }), rateLimit, requireSettingsAccess);
  registerWebhookEndpoints(app, DASHBOARD_MOUNT);
  registerDeliveryLog(app, `${base}/{id}/deliveries`, DASHBOARD_MOUNT);

  // Usage: every member may see it.
  app.use("/dashboard/api/usage", authenticate({ sessionOnly: true }), rateLimit);
  registerUsage(app, "/dashboard/api/usage", [{ session: [] }], "dashboardUsage");
}
