// Send Test, rotate secret, the built-in test receiver's captures, the delivery log and resend.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { pageQuery } from "../../../db/pagination";
import { errorResponses, idParam, jsonResponse } from "../../../lib/openapi";
import { pageQuerySchema, pageSchema } from "../../../lib/pagination";
import { redisFor } from "../../../lib/redis";
import { CAPTURE_KEEP, endpointCaptures } from "../../../webhooks/capture";
import { rotateSecret, toEndpointView } from "../../../webhooks/endpoints";
import { listDeliveries, resendDelivery } from "../../../webhooks/log";
import { sendTestEvent } from "../../../webhooks/test-event";
import { type Mount, opId } from "./deps";
import { capturedSchema, deliveryFiltersSchema, deliverySchema, endpointSchema } from "./schema";

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
      const row = await rotateSecret(c.var.db, c.var.auth.organizationId, c.req.valid("param").id, c.var.config);
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

/** The delivery log. The spec's path is `/webhooks/<endpoint_id>/deliveries` (no /v1). */
export function registerDeliveryLog(app: OpenAPIHono<AppEnv>, path: string, m: Pick<Mount, "security" | "prefix" | "tag">): void {
  app.openapi(
    createRoute({
      tags: [m.tag],
      security: m.security,
      method: "get",
      path,
      operationId: opId({ ...m, base: "" }, "listWebhookDeliveries"),
      summary: "The delivery log of one endpoint: every delivery with its attempts, newest first",
      request: { params: idParam("Webhook endpoint"), query: pageQuerySchema.extend(deliveryFiltersSchema.shape) },
      responses: {
        200: jsonResponse(pageSchema(deliverySchema, "WebhookDeliveryPage"), "A page of deliveries."),
        ...errorResponses(400, 403, 404),
      },
    }),
    async (c) => {
      const query = c.req.valid("query");
      const page = await listDeliveries(c.var.db, c.var.auth.organizationId, c.req.valid("param").id, pageQuery(query), {
        status: query.status,
        event: query.event,
      });
      return c.json(page, 200);
    },
  );
}
