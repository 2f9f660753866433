import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { createApiKey } from "../../../api-keys/service";
import type { AppEnv } from "../../../context";
import { errorResponses, jsonBody, jsonResponse } from "../../../lib/openapi";
import { apiKeySchema, BASE, createApiKeySchema, security } from "./shared";

export const createApiKeyRoute = createRoute({
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

export const registerCreateApiKey = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(createApiKeyRoute, async (c) => {
    const { name } = c.req.valid("json");
    const created = await createApiKey({ ctx: c.var.ctx, input: { name, createdByUserId: c.var.auth.user?.id ?? null } });
    return c.json(created, 201);
  });
