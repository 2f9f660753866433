// The spec's delivery log has no /v1 prefix: `/webhooks/<endpoint_id>/deliveries`, with /v1's
// credentials, rate limit and query rule (createApiRouter). Mounted at /webhooks (src/app.ts).
import { createApiRouter } from "../../context";
import { authenticate, requireSettingsAccess } from "../../middleware/auth";
import { rateLimit } from "../../middleware/ratelimit";
import { registerDeliveryLog } from "../v1/webhook-endpoints/deliveries";

export function deliveryLogRoutes() {
  const router = createApiRouter();
  router.use("/:id/deliveries", authenticate(), rateLimit, requireSettingsAccess);
  registerDeliveryLog(router, "/{id}/deliveries", { security: [{ apiKey: [] }], prefix: "", tag: "Webhooks" });
  return router;
}
