// Where a workspace's usage (./service.ts) meets the API's shape (GET /v1/usage), which the
// dashboard's Usage page renders too.
import type { CostlyCall } from "../calls/service";
import type { UsageEvent } from "../db/schema";
import { toCredits } from "../lib/credits";
import { PRICES } from "../metering/prices";
import { minutesOf } from "../overview/service";
import type { AgentFigures, Usage } from "./service";

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

/** An agent's figures (or their sum) as the API shows them: credits, not micro-credits. */
const toAgentFigures = (f: AgentFigures) => ({
  calls: f.calls,
  minutes: f.minutes,
  chats: f.chats,
  credits: { calls: toCredits(f.callMicro), chats: toCredits(f.chatMicro), total: toCredits(f.callMicro + f.chatMicro) },
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
    byAgent: {
      since: usage.byAgent.since,
      agents: usage.byAgent.agents.map((a) => ({ agentId: a.agentId, agentName: a.agentName, ...toAgentFigures(a) })),
      total: toAgentFigures(usage.byAgent.total),
    },
  };
}

export type UsageReport = ReturnType<typeof toUsageReport>;

/** A call of the Usage screen's ranking: its connected minutes (to a tenth; 0 when it never connected) and credits. */
export const toCostlyCallView = (c: CostlyCall) => ({
  id: c.id,
  createdAt: c.createdAt.toISOString(),
  agentId: c.agentId,
  agentName: c.agentName,
  type: c.type,
  direction: c.direction,
  status: c.status,
  minutes: c.startedAt && c.endedAt ? minutesOf(Math.max(0, (c.endedAt.getTime() - c.startedAt.getTime()) / 1000)) : 0,
  credits: toCredits(c.costMicro),
  costMicro: c.costMicro,
});

export type CostlyCallView = ReturnType<typeof toCostlyCallView>;
