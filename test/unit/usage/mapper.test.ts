// The usage mapper turns what the usage service read (micro-credits, rows) into GET /v1/usage's
// shape, which the dashboard's Usage page renders too; it takes no database.
import { describe, expect, it } from "vitest";
import type { UsageEvent } from "../../../src/db/schema";
import { PRICES } from "../../../src/metering/prices";
import { toUsageReport } from "../../../src/usage/mapper";

/**
 * One request of the log: the usage_events row the service reads, and the entry GET /v1/usage
 * shows for it. What both carry unchanged is written once; the row alone has the workspace, the
 * call and micro-credits, the entry has credits and an ISO timestamp.
 */
function loggedRequest(): { row: UsageEvent; entry: Record<string, unknown> } {
  const same = {
    id: "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77",
    apiKeyId: null,
    method: "POST",
    endpoint: "/v1/llm/chat",
    modality: "chat",
    provider: "sandbox",
    model: "sandbox-chat",
    status: 200,
    errorCode: null,
    latencyMs: 120,
    unit: "tokens",
    quantity: 42,
    promptTokens: 30,
    completionTokens: 12,
  } as const;
  return {
    row: {
      ...same,
      organizationId: "0193b6e2-0000-7000-8000-000000000001",
      callId: null,
      chatId: null,
      costMicro: 2_500,
      createdAt: new Date("2025-01-01T10:00:00Z"),
    },
    entry: { ...same, createdAt: "2025-01-01T10:00:00.000Z", cost: 0.0025 },
  };
}

describe("toUsageReport", () => {
  it("maps the balance, the day totals, a page of the request log and the agents' figures into credits", () => {
    const { row, entry } = loggedRequest();
    const desk = { calls: 2, minutes: 4.5, chats: 1, callMicro: 2_500_000, chatMicro: 12_000 };
    const report = toUsageReport({
      balanceMicro: 12_345_678,
      totals: [{ day: "2025-01-01", modality: "chat", unit: "tokens", requests: 3, succeeded: 2, quantity: 84, costMicro: 5_000 }],
      requests: { data: [row], nextCursor: "abc", hasMore: true },
      byAgent: {
        since: "2024-12-03",
        agents: [{ agentId: "0193b6e2-0000-7000-8000-000000000002", agentName: "Desk", ...desk }],
        total: desk,
      },
    });
    expect(report).toEqual({
      credits: { remaining: 12.345678, remainingMicro: 12_345_678 },
      prices: PRICES,
      totals: [{ day: "2025-01-01", modality: "chat", requests: 3, succeeded: 2, quantity: 84, unit: "tokens", cost: 0.005 }],
      requests: {
        data: [entry],
        nextCursor: "abc",
        hasMore: true,
      },
      byAgent: {
        since: "2024-12-03",
        agents: [
          {
            agentId: "0193b6e2-0000-7000-8000-000000000002",
            agentName: "Desk",
            calls: 2,
            minutes: 4.5,
            chats: 1,
            credits: { calls: 2.5, chats: 0.012, total: 2.512 },
          },
        ],
        total: { calls: 2, minutes: 4.5, chats: 1, credits: { calls: 2.5, chats: 0.012, total: 2.512 } },
      },
    });
    expect(Object.keys(report.requests)).toEqual(["data", "nextCursor", "hasMore"]);
  });
});
