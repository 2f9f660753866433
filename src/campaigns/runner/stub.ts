// How the worker reaches a campaign's runner (./durable-object.ts): one Durable Object per
// campaign, named by its id, reached by typed RPC. Waking it sets its alarm for now; the run
// itself happens in the alarm, never in the caller's request.
import { ApiError } from "../../lib/errors";
import type { Op } from "../../services";

/**
 * What the runner answers by RPC (./durable-object.ts implements it). Declared here, not taken from
 * the class: the class runs campaigns, which end calls, whose end wakes the runner through here.
 */
export interface RunnerRpc {
  wake(campaignId: string, origin?: string): Promise<void>;
}

export function runnerStub(ns: DurableObjectNamespace, campaignId: string): RunnerRpc {
  return ns.get(ns.idFromName(campaignId)) as unknown as RunnerRpc;
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
