// `campaign.completed` (docs/campaigns.md): sent once, by the run that completed the campaign, with
// the campaign and how many of its recipients ended in each state.
import type { Campaign, RecipientState } from "../../db/schema";
import { RECIPIENT_STATES } from "../../db/schema";
import type { DomainContext } from "../../services";
import { emit } from "../../webhooks/deliver";
import type { EventData } from "../../webhooks/payload";
import { stateCounts } from "../queries/runner";

/** The event's data: the campaign's fields and its recipients counted per state (every state named, zero or not). */
export function campaignCompletedData(campaign: Campaign, counts: Partial<Record<RecipientState, number>>) {
  return {
    campaign: {
      id: campaign.id,
      name: campaign.name,
      status: campaign.status,
      agentId: campaign.agentId,
      fromNumbers: campaign.fromNumbers,
      maxCallsInFlight: campaign.maxCallsInFlight,
      recipientCount: campaign.recipientCount,
      startedAt: campaign.startedAt?.toISOString() ?? null,
      completedAt: campaign.completedAt?.toISOString() ?? null,
      createdAt: campaign.createdAt.toISOString(),
      metadata: campaign.metadata,
      counts: Object.fromEntries(RECIPIENT_STATES.map((s) => [s, counts[s] ?? 0])) as Record<RecipientState, number>,
    },
  };
}

export async function emitCompleted(deps: DomainContext, campaign: Campaign): Promise<void> {
  const data = campaignCompletedData(campaign, await stateCounts(deps.db, campaign.id));
  // The webhook payload's `campaign` part is declared with the campaign events (src/webhooks/events.ts).
  await emit(deps, {
    organizationId: campaign.organizationId,
    event: "campaign.completed",
    data: data as EventData,
    subjectId: campaign.id,
  });
}
