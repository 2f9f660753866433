import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../context";
import { registerDashboardApiKeys } from "./api/api-keys";
import { registerDashboardAuth } from "./api/auth";

/** The dashboard's JSON routes (outside /v1), used by the dashboard pages. */
export function registerDashboardApi(app: OpenAPIHono<AppEnv>): void {
  registerDashboardAuth(app);
  registerDashboardApiKeys(app);
}
