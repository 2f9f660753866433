// GET /v1/usage (our addition) and the dashboard's copy: credits remaining, totals by day and
// modality, and the request log of the Models API with our pagination.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { and, desc, eq, gte, sql } from "drizzle-orm";
import type { AppEnv } from "../../../context";
import type { Db } from "../../../db/client";
import { organizations, usageEvents } from "../../../db/schema";
import { errorResponses, jsonResponse } from "../../../lib/openapi";
import { pageOf, pageQuery, pageQuerySchema, pageSchema } from "../../../lib/pagination";
import { PRICES, toCredits } from "../../../metering/prices";

const usageEventSchema = z
  .object({
    id: z.string(),
    createdAt: z.string(),
    method: z.string(),
    endpoint: z.string(),
    modality: z.enum(["chat", "tts", "stt"]),
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
  modality: z.enum(["chat", "tts", "stt"]).optional(),
});

export function registerUsage(
  app: OpenAPIHono<AppEnv>,
  path = "/v1/usage",
  security: Array<Record<string, string[]>> = [{ apiKey: [] }],
  operationId = "usage",
): void {
  app.openapi(
    createRoute({
      method: "get",
      path,
      tags: [path.startsWith("/dashboard") ? "Dashboard" : "Models"],
      operationId,
      summary: "Usage: credits remaining, totals by day and modality, and the Models request log",
      security,
      request: { query: querySchema },
      responses: { 200: jsonResponse(usageSchema, "Usage of the workspace."), ...errorResponses(400) },
    }),
    async (c) => c.json(await usageReport(c.var.db, c.var.auth.organizationId, c.req.valid("query")), 200),
  );
}

export type UsageQuery = z.infer<typeof querySchema>;

/** The usage report of a workspace: the API's and the dashboard's. */
export async function usageReport(db: Db, org: string, query: UsageQuery) {
  const since = new Date(Date.now() - query.days * 86_400_000);
  const day = sql<string>`to_char(date_trunc('day', ${usageEvents.createdAt} at time zone 'UTC'), 'YYYY-MM-DD')`;
  const modality = query.modality ? [eq(usageEvents.modality, query.modality)] : [];
  const page = pageQuery(query);
  const [[balance], totals, rows] = await Promise.all([
    db.select({ micro: organizations.creditsMicro }).from(organizations).where(eq(organizations.id, org)),
    db
      .select({
        day,
        modality: usageEvents.modality,
        unit: usageEvents.unit,
        requests: sql<number>`count(*)::int`,
        succeeded: sql<number>`(count(*) filter (where ${usageEvents.status} < 400))::int`,
        quantity: sql<number>`coalesce(sum(${usageEvents.quantity}), 0)::bigint`,
        costMicro: sql<number>`coalesce(sum(${usageEvents.costMicro}), 0)::bigint`,
      })
      .from(usageEvents)
      .where(and(eq(usageEvents.organizationId, org), gte(usageEvents.createdAt, since), ...modality))
      .groupBy(day, usageEvents.modality, usageEvents.unit)
      .orderBy(desc(day), usageEvents.modality),
    db
      .select()
      .from(usageEvents)
      .where(and(eq(usageEvents.organizationId, org), ...modality, ...page.where(usageEvents)))
      .orderBy(desc(usageEvents.id))
      .limit(page.limit + 1),
  ]);
  const micro = Number(balance?.micro ?? 0);
  return {
    credits: { remaining: toCredits(micro), remainingMicro: micro },
    prices: PRICES,
    totals: totals.map((t) => ({
      day: t.day,
      modality: t.modality,
      requests: Number(t.requests),
      succeeded: Number(t.succeeded),
      quantity: Number(t.quantity),
      unit: t.unit,
      cost: toCredits(Number(t.costMicro)),
    })),
    requests: pageOf(rows, page.limit, (r) => ({
      id: r.id,
      createdAt: r.createdAt.toISOString(),
      method: r.method,
      endpoint: r.endpoint,
      modality: r.modality,
      provider: r.provider,
      model: r.model,
      status: r.status,
      errorCode: r.errorCode,
      latencyMs: r.latencyMs,
      unit: r.unit,
      quantity: r.quantity,
      promptTokens: r.promptTokens,
      completionTokens: r.completionTokens,
      cost: toCredits(r.costMicro),
      apiKeyId: r.apiKeyId,
    })),
  };
}
