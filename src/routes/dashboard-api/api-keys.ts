// API key management for workspace admins (spec: Authentication 5). Session only: keys are
// managed in the dashboard, never with another key.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { createApiKey, listApiKeys, revokeApiKey } from "../../api-keys/service";
import type { AppEnv } from "../../context";
import { pageQuery } from "../../db/pagination";
import { text } from "../../lib/fields";
import { errorResponses, idParam, jsonBody, jsonResponse } from "../../lib/openapi";
import { pageQuerySchema, pageSchema } from "../../lib/pagination";
import { redisFor } from "../../lib/redis";
import { authenticate, requireSettingsAccess } from "../../middleware/auth";
import { rateLimit } from "../../middleware/ratelimit";

export const apiKeySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    prefix: z.string().openapi({ example: "sk-live-AbCdEfGh…" }),
    active: z.boolean(),
    createdAt: z.string(),
    lastUsedAt: z.string().nullable(),
    revokedAt: z.string().nullable(),
  })
  .openapi("ApiKey");

export const createApiKeySchema = z
  .strictObject({ name: text({ min: 1, max: 100, trim: true, singleLine: true }).openapi({ example: "Production backend" }) })
  .openapi("CreateApiKey");

const security = [{ session: [] }];
const BASE = "/api-keys";

const listRoute = createRoute({
  method: "get",
  path: BASE,
  tags: ["Dashboard"],
  operationId: "dashboardListApiKeys",
  summary: "List the workspace's API keys (masked)",
  security,
  request: { query: pageQuerySchema },
  responses: { 200: jsonResponse(pageSchema(apiKeySchema, "ApiKeyPage"), "A page of keys."), ...errorResponses(400, 403) },
});

const createKeyRoute = createRoute({
  method: "post",
  path: BASE,
  tags: ["Dashboard"],
  operationId: "dashboardCreateApiKey",
  summary: "Create a key; the full secret is in this response only",
  security,
  request: jsonBody(createApiKeySchema),
  responses: {
    201: jsonResponse(
      z.object({ key: apiKeySchema, secret: z.string().openapi({ example: "sk-live-…" }) }).openapi("CreatedApiKey"),
      "Created; store the secret now.",
    ),
    ...errorResponses(400, 403),
  },
});

const revokeRoute = createRoute({
  method: "post",
  path: `${BASE}/{id}/revoke`,
  tags: ["Dashboard"],
  operationId: "dashboardRevokeApiKey",
  summary: "Revoke a key: soft, immediate and final",
  security,
  request: { params: idParam("API key") },
  responses: { 200: jsonResponse(apiKeySchema, "Revoked."), ...errorResponses(400, 403, 404, 409) },
});

export function registerDashboardApiKeys(app: OpenAPIHono<AppEnv>): void {
  for (const path of [BASE, `${BASE}/*`]) app.use(path, authenticate({ sessionOnly: true }), rateLimit, requireSettingsAccess);

  app.openapi(listRoute, async (c) => {
    const page = await listApiKeys({ ctx: { ...c.var.ctx, redis: redisFor(c.var.config) }, input: pageQuery(c.req.valid("query")) });
    return c.json(page, 200);
  });

  app.openapi(createKeyRoute, async (c) => {
    const { name } = c.req.valid("json");
    const created = await createApiKey({ ctx: c.var.ctx, input: { name, createdByUserId: c.var.auth.user?.id ?? null } });
    return c.json(created, 201);
  });

  app.openapi(revokeRoute, async (c) => {
    const { id } = c.req.valid("param");
    return c.json(await revokeApiKey({ ctx: { ...c.var.ctx, redis: redisFor(c.var.config) }, input: { id } }), 200);
  });
}
