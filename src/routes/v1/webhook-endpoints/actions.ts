// Send Test, rotate secret, the built-in test receiver's captures and resend.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { errorResponses, idParam, jsonResponse } from "../../../lib/openapi";
import { redisFor } from "../../../lib/redis";
import { CAPTURE_KEEP, endpointCaptures } from "../../../webhooks/capture";
import { rotateSecret, toEndpointView } from "../../../webhooks/endpoints";
import { resendDelivery } from "../../../webhooks/log";
import { sendTestEvent } from "../../../webhooks/test-event";
import { type Mount, opId } from "./deps";
import { capturedSchema, deliverySchema, endpointSchema } from "./schema";

const deliveryParams = z.object({
  id: z.uuid({ message: "Webhook endpoint id must be a UUID" }).openapi({ param: { name: "id", in: "path" } }),
  deliveryId: z.uuid({ message: "Delivery id must be a UUID" }).openapi({ param: { name: "deliveryId", in: "path" } }),
});

export function registerEndpointActions(app: OpenAPIHono<AppEnv>, m: Mount): void {
  const common = { tags: [m.tag], security: m.security };

  app.openapi(
    createRoute({
      ...common,
      method: "post",
      path: `${m.base}/{id}/test`,
      operationId: opId(m, "sendTestWebhook"),
      summary: "Send Test: post a synthetic call.completed payload to this endpoint now",
      request: { params: idParam("Webhook endpoint") },
      responses: {
        200: jsonResponse(deliverySchema, "The test delivery and its attempt (in QStash mode the attempt follows shortly)."),
        ...errorResponses(400, 403, 404),
      },
    }),
    async (c) => c.json(await sendTestEvent(c.var.services.webhooks, c.var.auth.organizationId, c.req.valid("param").id), 200),
  );

  app.openapi(
    createRoute({
      ...common,
      method: "post",
      path: `${m.base}/{id}/rotate-secret`,
      operationId: opId(m, "rotateWebhookSecret"),
      summary: "Rotate the signing secret: the old one stops signing at once; the new one is shown once",
      request: { params: idParam("Webhook endpoint") },
      responses: { 200: jsonResponse(endpointSchema, "Rotated; `secret` is the new secret, in full."), ...errorResponses(400, 403, 404) },
    }),
    async (c) => {
      const row = await rotateSecret({ ctx: c.var.ctx, input: { id: c.req.valid("param").id } });
      return c.json(toEndpointView(row, c.var.services.publicOrigin, true), 200);
    },
  );

  app.openapi(
    createRoute({
      ...common,
      method: "get",
      path: `${m.base}/{id}/test-receiver`,
      operationId: opId(m, "listTestReceiverCaptures"),
      summary: `The built-in test receiver's captured requests (the most recent ${CAPTURE_KEEP})`,
      request: { params: idParam("Webhook endpoint") },
      responses: { 200: jsonResponse(capturedSchema, "Captured requests, newest first."), ...errorResponses(400, 403, 404) },
    }),
    async (c) =>
      c.json(
        await endpointCaptures(
          c.var.db,
          redisFor(c.var.config),
          c.var.auth.organizationId,
          c.req.valid("param").id,
          c.var.services.publicOrigin,
        ),
        200,
      ),
  );

  app.openapi(
    createRoute({
      ...common,
      method: "post",
      path: `${m.base}/{id}/deliveries/{deliveryId}/resend`,
      operationId: opId(m, "resendWebhookDelivery"),
      summary: "Resend a delivery: a new attempt under the same delivery id, signed afresh (409 while the endpoint is inactive)",
      request: { params: deliveryParams },
      responses: {
        200: jsonResponse(deliverySchema, "The delivery with its attempts (in QStash mode the new attempt follows shortly)."),
        ...errorResponses(400, 403, 404, 409),
      },
    }),
    async (c) => {
      const { id, deliveryId } = c.req.valid("param");
      return c.json(await resendDelivery(c.var.services.webhooks, c.var.auth.organizationId, id, deliveryId), 200);
    },
  );
}
