// Where a workspace's usage (./service.ts) meets the API's shape (GET /v1/usage), which the
// dashboard's Usage page renders too.
import type { UsageEvent } from "../db/schema";
import { toCredits } from "../lib/credits";
import { PRICES } from "../metering/prices";
import type { Usage } from "./service";

export const toUsageEventView = (r: UsageEvent) => ({
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
});

export function toUsageReport(usage: Usage) {
  return {
    credits: { remaining: toCredits(usage.balanceMicro), remainingMicro: usage.balanceMicro },
    prices: PRICES,
    totals: usage.totals.map((t) => ({
      day: t.day,
      modality: t.modality,
      requests: t.requests,
      succeeded: t.succeeded,
      quantity: t.quantity,
      unit: t.unit,
      cost: toCredits(t.costMicro),
    })),
    requests: { ...usage.requests, data: usage.requests.data.map(toUsageEventView) },
  };
}

export type UsageReport = ReturnType<typeof toUsageReport>;
