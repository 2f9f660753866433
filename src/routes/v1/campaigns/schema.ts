// What the campaign operations share: their tag, the answer of an operation that returns the
// campaign. The shapes they document are defined once, in src/campaigns/schema.ts.
import type { CampaignWithCounts } from "../../../campaigns/service";
import { toCampaignView } from "../../../campaigns/views";

export const TAG = ["Campaigns"];

/** The campaign as every operation answers it: with its recipients' counts by state. */
export const shown = ({ campaign, counts }: CampaignWithCounts) => toCampaignView(campaign, counts);
