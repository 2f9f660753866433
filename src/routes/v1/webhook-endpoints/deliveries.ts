// The delivery log of one endpoint: every delivery with its attempts, newest first. Mounted at the
// spec's `/webhooks/<endpoint_id>/deliveries` (src/routes/webhooks) and under the dashboard's API.
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { pageQuery } from "../../../db/pagination";
import { errorResponses, idParam, jsonResponse } from "../../../lib/openapi";
import { pageQuerySchema, pageSchema } from "../../../lib/pagination";
import { listDeliveries } from "../../../webhooks/log";
import { deliveryFiltersSchema, deliverySchema } from "./schema";
import { type Mount, opId } from "./shared";

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
      const page = await listDeliveries({
        ctx: c.var.ctx,
        input: { endpointId: c.req.valid("param").id, page: pageQuery(query), filters: { status: query.status, event: query.event } },
      });
      return c.json(page, 200);
    },
  );
}
