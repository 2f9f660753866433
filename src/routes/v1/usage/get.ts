// GET /v1/usage (our addition) and the dashboard's copy: credits remaining, totals by day and
// modality, and the request log of the Models API with our pagination (src/usage/).
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { errorResponses, jsonResponse } from "../../../lib/openapi";
import { pageQuerySchema, pageSchema } from "../../../lib/pagination";
import { MODALITIES } from "../../../metering/prices";
import { toUsageReport } from "../../../usage/mapper";
import { getUsage } from "../../../usage/service";

const usageEventSchema = z
  .object({
    id: z.string(),
    createdAt: z.string(),
    method: z.string(),
    endpoint: z.string(),
    modality: z.enum(MODALITIES),
    provider: z.string(),
    model: z.string(),
    status: z.number().int(),
    errorCode: z.string().nullable(),
    latencyMs: z.number().int(),
    unit: z.enum(["characters", "audio_ms", "tokens"]),
    quantity: z.number().int(),
    promptTokens: z.number().int().nullable(),
    completionTokens: z.number().int().nullable(),
    cost: z.number().openapi({ description: "Credits charged (0 for failed calls)." }),
    apiKeyId: z.string().nullable(),
  })
  .openapi("UsageEvent");

const usageSchema = z
  .object({
    credits: z.object({ remaining: z.number(), remainingMicro: z.number().int() }),
    prices: z
      .record(z.string(), z.object({ unit: z.string(), default: z.number(), models: z.record(z.string(), z.number()) }))
      .openapi({ description: "Micro-credits per unit." }),
    totals: z.array(
      z.object({
        day: z.string(),
        modality: z.string(),
        requests: z.number().int(),
        succeeded: z.number().int(),
        quantity: z.number(),
        unit: z.string(),
        cost: z.number(),
      }),
    ),
    requests: pageSchema(usageEventSchema, "UsageEventPage"),
  })
  .openapi("Usage");

export const querySchema = pageQuerySchema.extend({
  days: z.coerce.number().int().min(1).max(90).default(30).openapi({ description: "Totals cover this many days back (UTC), 1 to 90." }),
  modality: z.enum(MODALITIES).optional(),
});

export function registerUsage(
  app: OpenAPIHono<AppEnv>,
  path = "/usage",
  security: Array<Record<string, string[]>> = [{ apiKey: [] }],
  operationId = "usage",
  tag = "Models",
): void {
  app.openapi(
    createRoute({
      method: "get",
      path,
      readsAlongsideTheKeyCheck: true, // only reads; inert on the dashboard's session-only copy
      tags: [tag],
      operationId,
      summary: "Usage: credits remaining, totals by day and modality, and the Models request log",
      security,
      request: { query: querySchema },
      responses: { 200: jsonResponse(usageSchema, "Usage of the workspace."), ...errorResponses(400) },
    }),
    async (c) => c.json(toUsageReport(await getUsage({ ctx: c.var.ctx, input: c.req.valid("query") })), 200),
  );
}
