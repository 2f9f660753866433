import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { errorResponses, idParam, jsonResponse } from "../../../lib/openapi";
import { getEndpoint, toEndpointView } from "../../../webhooks/endpoints";
import { openEndpoint } from "../../../webhooks/secret-store";
import { endpointSchema } from "./schema";
import { common, type Mount, opId } from "./shared";

export const getEndpointRoute = (m: Mount) =>
  createRoute({
    ...common(m),
    method: "get",
    path: `${m.base}/{id}`,
    operationId: opId(m, "getWebhookEndpoint"),
    summary: "Fetch a webhook endpoint (secret masked)",
    request: { params: idParam("Webhook endpoint") },
    responses: { 200: jsonResponse(endpointSchema, "The endpoint."), ...errorResponses(400, 403, 404) },
  });

export const registerGetEndpoint = (app: OpenAPIHono<AppEnv>, m: Mount) =>
  app.openapi(getEndpointRoute(m), async (c) => {
    const row = await getEndpoint({ ctx: c.var.ctx, input: { id: c.req.valid("param").id } });
    return c.json(toEndpointView(await openEndpoint(c.var.config, row), c.var.services.publicOrigin), 200);
  });
