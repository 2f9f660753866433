import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { errorResponses, idParam, jsonBody, jsonResponse } from "../../../lib/openapi";
import { toEndpointView, updateEndpoint } from "../../../webhooks/endpoints";
import { savedEndpointSchema, updateEndpointSchema } from "./schema";
import { common, type Mount, opId } from "./shared";

export const updateEndpointRoute = (m: Mount) =>
  createRoute({
    ...common(m),
    method: "patch",
    path: `${m.base}/{id}`,
    operationId: opId(m, "updateWebhookEndpoint"),
    summary: "Update a webhook endpoint (toggle active, test mode, channels, events, payload mode…)",
    request: { params: idParam("Webhook endpoint"), ...jsonBody(updateEndpointSchema) },
    responses: { 200: jsonResponse(savedEndpointSchema, "Updated."), ...errorResponses(400, 403, 404) },
  });

export const registerUpdateEndpoint = (app: OpenAPIHono<AppEnv>, m: Mount) =>
  app.openapi(updateEndpointRoute(m), async (c) => {
    const row = await updateEndpoint({ ctx: c.var.ctx, input: { id: c.req.valid("param").id, patch: c.req.valid("json") } });
    return c.json({ ...toEndpointView(row, c.var.services.publicOrigin), warnings: row.warnings }, 200);
  });
