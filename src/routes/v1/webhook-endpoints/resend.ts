import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { errorResponses, jsonResponse } from "../../../lib/openapi";
import { resendDelivery } from "../../../webhooks/log";
import { deliverySchema } from "./schema";
import { common, type Mount, opId } from "./shared";

const deliveryParams = z.object({
  id: z.uuid({ message: "Webhook endpoint id must be a UUID" }).openapi({ param: { name: "id", in: "path" } }),
  deliveryId: z.uuid({ message: "Delivery id must be a UUID" }).openapi({ param: { name: "deliveryId", in: "path" } }),
});

export const resendDeliveryRoute = (m: Mount) =>
  createRoute({
    ...common(m),
    method: "post",
    path: `${m.base}/{id}/deliveries/{deliveryId}/resend`,
    operationId: opId(m, "resendWebhookDelivery"),
    summary: "Resend a delivery: a new attempt under the same delivery id, signed afresh (409 while the endpoint is inactive)",
    request: { params: deliveryParams },
    responses: {
      200: jsonResponse(deliverySchema, "The delivery with its attempts (in QStash mode the new attempt follows shortly)."),
      ...errorResponses(400, 403, 404, 409),
    },
  });

export const registerResendDelivery = (app: OpenAPIHono<AppEnv>, m: Mount) =>
  app.openapi(resendDeliveryRoute(m), async (c) => {
    const { id, deliveryId } = c.req.valid("param");
    return c.json(await resendDelivery({ ctx: c.var.ctx, input: { endpointId: id, deliveryId } }), 200);
  });
