import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { errorResponses, idParam } from "../../../lib/openapi";
import { deleteEndpoint } from "../../../webhooks/endpoints";
import { common, type Mount, opId } from "./shared";

export const deleteEndpointRoute = (m: Mount) =>
  createRoute({
    ...common(m),
    method: "delete",
    path: `${m.base}/{id}`,
    operationId: opId(m, "deleteWebhookEndpoint"),
    summary: "Delete a webhook endpoint and its delivery log",
    request: { params: idParam("Webhook endpoint") },
    responses: { 204: { description: "Deleted." }, ...errorResponses(400, 403, 404) },
  });

export const registerDeleteEndpoint = (app: OpenAPIHono<AppEnv>, m: Mount) =>
  app.openapi(deleteEndpointRoute(m), async (c) => {
    await deleteEndpoint({ ctx: c.var.ctx, input: { id: c.req.valid("param").id } });
    return c.body(null, 204);
  });
