// API key management for workspace admins (spec: Authentication 5), one file per operation.
// Session only: keys are managed in the dashboard, never with another key.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { authenticate, requireSettingsAccess } from "../../../middleware/auth";
import { rateLimit } from "../../../middleware/ratelimit";
import { registerCreateApiKey } from "./create";
import { registerListApiKeys } from "./list";
import { registerRevokeApiKey } from "./revoke";
import { BASE } from "./shared";

export function registerDashboardApiKeys(app: OpenAPIHono<AppEnv>): void {
  for (const path of [BASE, `${BASE}/*`]) app.use(path, authenticate({ sessionOnly: true }), rateLimit, requireSettingsAccess);
  registerListApiKeys(app);
  registerCreateApiKey(app);
  registerRevokeApiKey(app);
}
