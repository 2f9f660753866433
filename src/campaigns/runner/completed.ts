// `campaign.completed` (docs/campaigns.md): sent once, by the run that completed the campaign, with
// the campaign as the API shows it and how many of its recipients ended in each state (the same
// data as campaign.started: ../views.ts).
import type { Campaign } from "../../db/schema";
import type { DomainContext } from "../../services";
import { emit } from "../../webhooks/deliver";
import { stateCounts } from "../queries/runner";
import { campaignEventData, noCounts } from "../views";

export async function emitCompleted(deps: DomainContext, campaign: Campaign): Promise<void> {
  const counts = { ...noCounts(), ...(await stateCounts(deps.db, campaign.id)) };
  await emit(deps, {
    organizationId: campaign.organizationId,
    event: "campaign.completed",
    data: campaignEventData(campaign, counts),
    subjectId: campaign.id,
  });
}
