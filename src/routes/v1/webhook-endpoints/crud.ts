// Create, list, get, update, delete of webhook endpoints, mounted for the API and the dashboard.
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { pageQuery } from "../../../db/pagination";
import { errorResponses, idParam, jsonBody, jsonResponse } from "../../../lib/openapi";
import { pageQuerySchema, pageSchema } from "../../../lib/pagination";
import { createEndpoint, deleteEndpoint, getEndpoint, listEndpoints, toEndpointView, updateEndpoint } from "../../../webhooks/endpoints";
import { openEndpoint } from "../../../webhooks/secret-store";
import { type Mount, opId } from "./deps";
import { createEndpointSchema, endpointSchema, savedEndpointSchema, updateEndpointSchema } from "./schema";

export function registerEndpointCrud(app: OpenAPIHono<AppEnv>, m: Mount): void {
  const common = { tags: [m.tag], security: m.security };

  app.openapi(
    createRoute({
      ...common,
      method: "post",
      path: m.base,
      operationId: opId(m, "createWebhookEndpoint"),
      summary: "Create a webhook endpoint; the signing secret is shown in full in this response only",
      request: jsonBody(createEndpointSchema),
      responses: { 201: jsonResponse(savedEndpointSchema, "Created."), ...errorResponses(400, 403) },
    }),
    async (c) => {
      const row = await createEndpoint({ ctx: c.var.ctx, input: c.req.valid("json") });
      return c.json({ ...toEndpointView(row, c.var.services.publicOrigin, true), warnings: row.warnings }, 201);
    },
  );

  app.openapi(
    createRoute({
      ...common,
      method: "get",
      path: m.base,
      operationId: opId(m, "listWebhookEndpoints"),
      summary: "List webhook endpoints",
      request: { query: pageQuerySchema },
      responses: {
        200: jsonResponse(pageSchema(endpointSchema, "WebhookEndpointPage"), "A page of endpoints."),
        ...errorResponses(400, 403),
      },
    }),
    async (c) => c.json(await listEndpoints({ ctx: c.var.ctx, input: pageQuery(c.req.valid("query")) }), 200),
  );

  app.openapi(
    createRoute({
      ...common,
      method: "get",
      path: `${m.base}/{id}`,
      operationId: opId(m, "getWebhookEndpoint"),
      summary: "Fetch a webhook endpoint (secret masked)",
      request: { params: idParam("Webhook endpoint") },
      responses: { 200: jsonResponse(endpointSchema, "The endpoint."), ...errorResponses(400, 403, 404) },
    }),
    async (c) => {
      const row = await getEndpoint({ ctx: c.var.ctx, input: { id: c.req.valid("param").id } });
      return c.json(toEndpointView(await openEndpoint(c.var.config, row), c.var.services.publicOrigin), 200);
    },
  );

  app.openapi(
    createRoute({
      ...common,
      method: "patch",
      path: `${m.base}/{id}`,
      operationId: opId(m, "updateWebhookEndpoint"),
      summary: "Update a webhook endpoint (toggle active, test mode, channels, events, payload mode…)",
      request: { params: idParam("Webhook endpoint"), ...jsonBody(updateEndpointSchema) },
      responses: { 200: jsonResponse(savedEndpointSchema, "Updated."), ...errorResponses(400, 403, 404) },
    }),
    async (c) => {
      const row = await updateEndpoint({ ctx: c.var.ctx, input: { id: c.req.valid("param").id, patch: c.req.valid("json") } });
      return c.json({ ...toEndpointView(row, c.var.services.publicOrigin), warnings: row.warnings }, 200);
    },
  );

  app.openapi(
    createRoute({
      ...common,
      method: "delete",
      path: `${m.base}/{id}`,
      operationId: opId(m, "deleteWebhookEndpoint"),
      summary: "Delete a webhook endpoint and its delivery log",
      request: { params: idParam("Webhook endpoint") },
      responses: { 204: { description: "Deleted." }, ...errorResponses(400, 403, 404) },
    }),
    async (c) => {
      await deleteEndpoint({ ctx: c.var.ctx, input: { id: c.req.valid("param").id } });
      return c.body(null, 204);
    },
  );
}
