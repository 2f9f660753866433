import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { errorResponses, jsonBody, jsonResponse } from "../../../lib/openapi";
import { createEndpoint, toEndpointView } from "../../../webhooks/endpoints";
import { createEndpointSchema, savedEndpointSchema } from "./schema";
import { common, type Mount, opId } from "./shared";

export const createEndpointRoute = (m: Mount) =>
  createRoute({
    ...common(m),
    method: "post",
    path: m.base,
    operationId: opId(m, "createWebhookEndpoint"),
    summary: "Create a webhook endpoint; the signing secret is shown in full in this response only",
    request: jsonBody(createEndpointSchema),
    responses: { 201: jsonResponse(savedEndpointSchema, "Created."), ...errorResponses(400, 403) },
  });

export const registerCreateEndpoint = (app: OpenAPIHono<AppEnv>, m: Mount) =>
  app.openapi(createEndpointRoute(m), async (c) => {
    const row = await createEndpoint({ ctx: c.var.ctx, input: c.req.valid("json") });
    return c.json({ ...toEndpointView(row, c.var.services.publicOrigin, true), warnings: row.warnings }, 201);
  });
