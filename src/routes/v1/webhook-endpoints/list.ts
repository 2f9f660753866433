import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { pageQuery } from "../../../db/pagination";
import { errorResponses, jsonResponse } from "../../../lib/openapi";
import { pageQuerySchema, pageSchema } from "../../../lib/pagination";
import { listEndpoints } from "../../../webhooks/endpoints";
import { endpointSchema } from "./schema";
import { common, type Mount, opId } from "./shared";

export const listEndpointsRoute = (m: Mount) =>
  createRoute({
    ...common(m),
    method: "get",
    path: m.base,
    operationId: opId(m, "listWebhookEndpoints"),
    summary: "List webhook endpoints",
    request: { query: pageQuerySchema },
    responses: {
      200: jsonResponse(pageSchema(endpointSchema, "WebhookEndpointPage"), "A page of endpoints."),
      ...errorResponses(400, 403),
    },
  });

export const registerListEndpoints = (app: OpenAPIHono<AppEnv>, m: Mount) =>
  app.openapi(listEndpointsRoute(m), async (c) =>
    c.json(await listEndpoints({ ctx: c.var.ctx, input: pageQuery(c.req.valid("query")) }), 200),
  );
