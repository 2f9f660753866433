import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { listApiKeys } from "../../../api-keys/service";
import type { AppEnv } from "../../../context";
import { pageQuery } from "../../../db/pagination";
import { errorResponses, jsonResponse } from "../../../lib/openapi";
import { pageQuerySchema, pageSchema } from "../../../lib/pagination";
import { redisFor } from "../../../lib/redis";
import { apiKeySchema, BASE, security } from "./shared";

export const listApiKeysRoute = createRoute({
  method: "get",
  path: BASE,
  tags: ["Dashboard"],
  operationId: "dashboardListApiKeys",
  summary: "List the workspace's API keys (masked)",
  security,
  request: { query: pageQuerySchema },
  responses: { 200: jsonResponse(pageSchema(apiKeySchema, "ApiKeyPage"), "A page of keys."), ...errorResponses(400, 403) },
});

export const registerListApiKeys = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(listApiKeysRoute, async (c) => {
    const page = await listApiKeys({ ctx: { ...c.var.ctx, redis: redisFor(c.var.config) }, input: pageQuery(c.req.valid("query")) });
    return c.json(page, 200);
  });
