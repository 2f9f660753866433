// How the worker reaches a campaign's runner (./durable-object.ts): one Durable Object per
// campaign, named by its id, reached by typed RPC. Waking it sets its alarm for now; the run
// itself happens in the alarm, never in the caller's request.
import { ApiError } from "../../lib/errors";
import type { Op } from "../../services";
import type { CampaignRunner } from "./durable-object";

export function runnerStub(ns: DurableObjectNamespace, campaignId: string): DurableObjectStub<CampaignRunner> {
  const typed = ns as unknown as DurableObjectNamespace<CampaignRunner>;
  return typed.get(typed.idFromName(campaignId));
}

/**
 * Wakes a campaign's runner: it runs as soon as it can (its alarm set for now), and goes on by
 * itself until nothing is left to dial (docs/campaigns.md, "How a campaign runs"). The public
 * origin is kept for the carrier's callbacks when the deployment has no PUBLIC_BASE_URL.
 */
export async function wakeCampaign({
  ctx,
  input: { campaignId },
}: Op<{ campaignId: string }, "campaignRunners" | "publicOrigin">): Promise<void> {
  if (!ctx.campaignRunners) throw new ApiError("misconfigured", "The CAMPAIGN_RUNNERS Durable Object binding is missing (wrangler.toml).");
  await runnerStub(ctx.campaignRunners, campaignId).wake(campaignId, ctx.publicOrigin || undefined);
}
