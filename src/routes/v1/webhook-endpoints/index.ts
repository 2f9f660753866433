import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { registerEndpointActions } from "./actions";
import { registerEndpointCrud } from "./crud";
import type { Mount } from "./deps";

/** Our addition for integrators: the dashboard's webhook operations under /v1 (admin keys only). */
export const API_MOUNT: Mount = { base: "/webhook-endpoints", security: [{ apiKey: [] }], prefix: "", tag: "Webhooks" };
export const DASHBOARD_MOUNT: Mount = {
  base: "/webhook-endpoints",
  security: [{ session: [] }],
  prefix: "dashboard",
  tag: "Dashboard",
};

export function registerWebhookEndpoints(app: OpenAPIHono<AppEnv>, mount: Mount = API_MOUNT): void {
  registerEndpointCrud(app, mount);
  registerEndpointActions(app, mount);
}
