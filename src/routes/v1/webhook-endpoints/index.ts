// The webhook endpoints' operations, one file per operation, registered at a mount: /v1's (admin
// keys) or the dashboard's JSON copy (/dashboard/api, session). The delivery log (deliveries.ts)
// is registered by the surfaces that serve it (src/routes/webhooks, src/routes/dashboard-api).
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { registerCreateEndpoint } from "./create";
import { registerDeleteEndpoint } from "./delete";
import { registerGetEndpoint } from "./get";
import { registerListEndpoints } from "./list";
import { registerResendDelivery } from "./resend";
import { registerRotateSecret } from "./rotate-secret";
import { registerSendTest } from "./send-test";
import type { Mount } from "./shared";
import { registerTestReceiverCaptures } from "./test-receiver";
import { registerUpdateEndpoint } from "./update";

/** Our addition for integrators: the dashboard's webhook operations under /v1 (admin keys only). */
export const API_MOUNT: Mount = { base: "/webhook-endpoints", security: [{ apiKey: [] }], prefix: "", tag: "Webhooks" };
export const DASHBOARD_MOUNT: Mount = {
  base: "/webhook-endpoints",
  security: [{ session: [] }],
  prefix: "dashboard",
  tag: "Dashboard",
};

export function registerWebhookEndpoints(app: OpenAPIHono<AppEnv>, mount: Mount = API_MOUNT): void {
  registerCreateEndpoint(app, mount);
  registerListEndpoints(app, mount);
  registerGetEndpoint(app, mount);
  registerUpdateEndpoint(app, mount);
  registerDeleteEndpoint(app, mount);
  registerSendTest(app, mount);
  registerRotateSecret(app, mount);
  registerTestReceiverCaptures(app, mount);
  registerResendDelivery(app, mount);
}
