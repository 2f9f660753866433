/** @jsxImportSource hono/jsx */
// A campaign's status and progress, as the list and the campaign's page draw them: the status badge
// (with the platform's reason when it paused the campaign) and the bar of recipients done.
import type { FC } from "hono/jsx";
import type { CampaignView } from "../../campaigns/schema";
import { Badge } from "../ui";
import { progressOf, statusTone } from "./format";

export const CampaignStatus: FC<{ campaign: Pick<CampaignView, "status" | "pausedReason"> }> = ({ campaign }) => (
  <>
    <span data-live="status">
      <Badge tone={statusTone(campaign.status)}>{campaign.status}</Badge>
    </span>
    <span class="paused-reason small" data-live="pausedReason" hidden={!campaign.pausedReason}>
      {campaign.pausedReason ?? ""}
    </span>
  </>
);

export const CampaignProgress: FC<{ campaign: Pick<CampaignView, "name" | "counts" | "recipientCount"> }> = ({ campaign }) => {
  const p = progressOf(campaign);
  return (
    <span class="campaign-progress">
      <progress max={Math.max(1, p.total)} value={p.done} aria-label={`${campaign.name}: recipients done`} data-live="bar">
        {p.percent}%
      </progress>{" "}
      <span class="small" data-live="progress">
        {p.text}
      </span>
    </span>
  );
};
