// GET /v1/usage (our addition) and the dashboard's copy: credits remaining, totals by day and
// modality, the request log of the Models API with our pagination, and each agent's calls, minutes,
// chats and credits over the same days (src/usage/).
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

const agentFigures = {
  calls: z.number().int().openapi({ description: "Calls that ended, counted on the day they were made." }),
  minutes: z.number().openapi({ description: "The calls' connected time, in minutes (to a tenth).", example: 4.5 }),
  chats: z.number().int().openapi({ description: "Chats started (widget and messaging)." }),
  credits: z
    .object({
      calls: z.number().openapi({ description: "What the calls cost: their metered speech to text, LLM and text to speech." }),
      chats: z.number().openapi({ description: "What the chats cost: their metered uses." }),
      total: z.number().openapi({ description: "Both: the Models credits attributable to the agent." }),
    })
    .openapi("AgentCredits"),
};

const usageByAgentSchema = z
  .object({
    since: z.string().openapi({ description: "The first day covered (YYYY-MM-DD, UTC); the last is today.", example: "2025-01-01" }),
    agents: z
      .array(
        z
          .object({
            agentId: z.string().nullable().openapi({ description: "Null for chats of an agent deleted since (agentName stays)." }),
            agentName: z.string(),
            ...agentFigures,
          })
          .openapi("AgentUsage"),
      )
      .openapi({ description: "Agents with a call or a chat in those days, most credits first." }),
    total: z.object(agentFigures).openapi("AgentUsageTotal", { description: "Every agent together." }),
  })
  .openapi("UsageByAgent", {
    description:
      "Each agent's calls, connected minutes and chats over the same days as `totals`, with the credits they used; not filtered by `modality`. Requests made to the Models API directly belong to no agent.",
  });

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
    byAgent: usageByAgentSchema,
  })
  .openapi("Usage");

export const querySchema = pageQuerySchema.extend({
  days: z.coerce
    .number()
    .int()
    .min(1)
    .max(90)
    .default(30)
    .openapi({ description: "`totals` and `byAgent` cover this many days (UTC), today included, 1 to 90." }),
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
      summary: "Usage: credits remaining, totals by day and modality, the Models request log, and each agent's calls and chats",
      security,
      request: { query: querySchema },
      responses: { 200: jsonResponse(usageSchema, "Usage of the workspace."), ...errorResponses(400) },
    }),
    async (c) => c.json(toUsageReport(await getUsage({ ctx: c.var.ctx, input: c.req.valid("query") })), 200),
  );
}
