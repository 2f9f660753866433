import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { revokeApiKey } from "../../../api-keys/service";
import type { AppEnv } from "../../../context";
import { errorResponses, idParam, jsonResponse } from "../../../lib/openapi";
import { redisFor } from "../../../lib/redis";
import { apiKeySchema, BASE, security } from "./shared";

export const revokeApiKeyRoute = createRoute({
  method: "post",
  path: `${BASE}/{id}/revoke`,
  tags: ["Dashboard"],
  operationId: "dashboardRevokeApiKey",
  summary: "Revoke a key: soft, immediate and final",
  security,
  request: { params: idParam("API key") },
  responses: { 200: jsonResponse(apiKeySchema, "Revoked."), ...errorResponses(400, 403, 404, 409) },
});

export const registerRevokeApiKey = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(revokeApiKeyRoute, async (c) => {
    const { id } = c.req.valid("param");
    return c.json(await revokeApiKey({ ctx: { ...c.var.ctx, redis: redisFor(c.var.config) }, input: { id } }), 200);
  });
