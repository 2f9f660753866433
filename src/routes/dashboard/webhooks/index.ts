// Webhooks (admins only: settings:read to look, settings:write to change; spec: Authentication 7),
// under /dashboard/webhooks, one file per page operation: the endpoint list, create and edit, the
// active toggle, Send Test, the signing secret shown once at creation and rotation, the built-in
// test receiver's captures, the delivery log with every attempt, and resend. Every operation is the
// API's own function (src/webhooks/*) validated by the API's own schemas
// (src/routes/v1/webhook-endpoints/schema.ts).
import { adminOnly, screenRouter } from "../../../dashboard/routers";
import { registerCreateEndpointPage } from "./create";
import { registerDeleteEndpointPage } from "./delete";
import { registerListEndpointsPage } from "./list";
import { registerNewEndpointPage } from "./new";
import { registerResendDeliveryPage } from "./resend";
import { registerRotateSecretPage } from "./rotate-secret";
import { registerSendTestPage } from "./send-test";
import { registerShowEndpointPage } from "./show";
import { registerToggleEndpointPage } from "./toggle";
import { registerUpdateEndpointPage } from "./update";

export function webhookPages() {
  const app = screenRouter(adminOnly);
  registerListEndpointsPage(app);
  registerNewEndpointPage(app);
  registerCreateEndpointPage(app);
  registerShowEndpointPage(app);
  registerUpdateEndpointPage(app);
  registerToggleEndpointPage(app);
  registerSendTestPage(app);
  registerRotateSecretPage(app);
  registerDeleteEndpointPage(app);
  registerResendDeliveryPage(app);
  return app;
}
