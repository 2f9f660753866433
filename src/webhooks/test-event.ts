// The synthetic payload of "Send Test" (spec: Delivery behaviour 3): a plausible completed call,
// and Send Test itself, shared by the API route and the dashboard page.

import { newId } from "../lib/ids";
import type { Op } from "../services";
import { emit, type WebhookDeps } from "./deliver";
import { getEndpoint } from "./endpoints";
import { type DeliveryView, getDelivery } from "./log";
import type { EventData } from "./payload";

export const TEST_EVENT = "call.completed";

export function syntheticCallCompleted(now = new Date()): EventData {
  const started = new Date(now.getTime() - 42_000);
  return {
    call: {
      id: newId(),
      status: "completed",
      direction: "outbound",
      durationSeconds: 42,
      fromNumber: "+15550100000",
      toNumber: "+15550100001",
      agentId: "00000000-0000-4000-8000-000000000000",
      agentName: "Test agent",
      startedAt: started.toISOString(),
      endedAt: now.toISOString(),
      endedReason: "customer-ended-call",
      endedReasonCategory: "none",
      transfer: null,
      analysisSkipped: null,
    },
    transcript: {
      fullText: "Agent: Hello, this is a test call.\nUser: Thanks, the webhook works.",
      turns: [
        { role: "agent", text: "Hello, this is a test call.", startMs: 0, endMs: 2_100 },
        { role: "user", text: "Thanks, the webhook works.", startMs: 2_600, endMs: 4_300 },
      ],
    },
    recording: null,
    analysis: null,
    report: null,
    metadata: { test: true },
  };
}

/**
 * Send Test: a synthetic call.completed to this endpoint only, whatever its active state and
 * subscriptions. Returns the delivery with its attempt (in QStash mode the attempt follows).
 */
export async function sendTestEvent({
  ctx,
  input: { endpointId },
}: Op<{ endpointId: string }, keyof WebhookDeps | "organizationId">): Promise<DeliveryView> {
  const endpoint = await getEndpoint({ ctx, input: { id: endpointId } });
  const { deliveryIds } = await emit(ctx, {
    organizationId: ctx.organizationId,
    event: TEST_EVENT,
    data: syntheticCallCompleted(),
    onlyEndpointId: endpoint.id,
  });
  return getDelivery({ ctx, input: { endpointId: endpoint.id, deliveryId: deliveryIds[0] as string } });
}
