// A campaign and its recipients as the API, the dashboard and the webhooks show them: one mapper
// each. `campaignEventData` is the data of campaign.started (the service) and campaign.completed
// (the runner, once every recipient is final).
import { type Campaign, type CampaignRecipient, RECIPIENT_STATES, type RecipientState } from "../db/schema";
import type { EventData } from "../webhooks/payload";
import type { CampaignView, RecipientView } from "./schema";

export type RecipientCounts = Record<RecipientState, number>;

/** Every state at 0: the counts of a campaign no grouped row mentions. */
export const noCounts = (): RecipientCounts => Object.fromEntries(RECIPIENT_STATES.map((s) => [s, 0])) as RecipientCounts;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export const toCampaignView = (row: Campaign, counts: RecipientCounts): CampaignView => ({
  id: row.id,
  name: row.name,
  agentId: row.agentId,
  agentVersion: row.agentVersion,
  fromNumbers: row.fromNumbers,
  status: row.status,
  pausedReason: row.pausedReason,
  schedule: row.schedule ?? null,
  retry: row.retry,
  maxCallsInFlight: row.maxCallsInFlight,
  callsInFlight: row.callsInFlight,
  recipientCount: row.recipientCount,
  counts,
  metadata: row.metadata,
  startedAt: iso(row.startedAt),
  completedAt: iso(row.completedAt),
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

export const toRecipientView = (row: CampaignRecipient): RecipientView => ({
  id: row.id,
  row: row.row,
  phoneNumber: row.phoneNumber,
  timezone: row.timezone,
  variables: row.variables,
  state: row.state,
  attempts: row.attempts,
  nextAttemptAt: iso(row.nextAttemptAt),
  lastCallId: row.lastCallId,
  lastEndedReason: row.lastEndedReason,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

/** The webhook payload's data for campaign.started and campaign.completed: the campaign as the API shows it, with its counts. */
export function campaignEventData(campaign: Campaign, counts: RecipientCounts): EventData {
  return { campaign: toCampaignView(campaign, counts), metadata: campaign.metadata };
}
