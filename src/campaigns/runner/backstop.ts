// The runners' backstop, run by the cron trigger every minute: every running campaign with
// recipients waiting or calling is woken, so an alarm lost with a worker, or a wake that failed,
// delays a campaign by a minute at most and loses nothing (docs/campaigns.md, "Restarts").
import type { DomainContext } from "../../services";
import { runningCampaignsWithWork } from "../queries/runner";
import { runnerStub } from "./stub";

const BATCH = 1_000;

export async function wakeRunningCampaigns(deps: DomainContext): Promise<number> {
  const ns = deps.campaignRunners;
  if (!ns) return 0;
  const ids = await runningCampaignsWithWork(deps.db, BATCH);
  // No origin here: each runner keeps the one it was started with (or uses PUBLIC_BASE_URL).
  const woken = await Promise.allSettled(ids.map((id) => runnerStub(ns, id).wake(id)));
  return woken.filter((w) => w.status === "fulfilled").length;
}
