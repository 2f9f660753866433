// What the dashboard's API key operations share: the key's shapes (also the dashboard page's
// create form, src/routes/dashboard/api-keys), their path and their security.
import { z } from "@hono/zod-openapi";
import { text } from "../../../lib/fields";

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

export const security = [{ session: [] }];
export const BASE = "/api-keys";
