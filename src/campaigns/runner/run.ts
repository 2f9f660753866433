// One run of a campaign's runner (docs/campaigns.md, "How a campaign runs"), called by its Durable
// Object's alarm: repair what a stopped worker left, check the campaign may still dial, claim as
// many due recipients as there are free places (the campaign's and the workspace's), in their
// windows, and place a call for each through the one call path. Returns when to run next: soon
// while work remains, at the next window or retry when only those are left, never when done.
import { findAgent } from "../../agents/service";
import { listCallerIds } from "../../calls/queries/phone-numbers";
import type { Agent, Campaign, CampaignRecipient } from "../../db/schema";
import type { DomainContext } from "../../services";
import {
  claimDue,
  completeIfDone,
  dueZones,
  findCampaign,
  pauseWithReason,
  stuckRecipients,
  workloadOf,
  workspaceLimits,
} from "../queries/runner";
import { emitCompleted } from "./completed";
import { type DialNeeds, dialAll } from "./dial";
import { recordCampaignOutcome } from "./outcome";
import { isOpen, isTimeZone, nextOpening } from "./schedule";

/** How soon the runner looks again while calls are in flight or recipients wait for a place (a call's end wakes it sooner). */
export const TICK_MS = 2_000;
/** A claim this old with no call saved was left by a runner that stopped between the claim and the dial. */
export const STALE_CLAIM_SECONDS = 10;
/** With recipients waiting and nothing else to wait for (a claim lost to another runner), the runner still looks again. */
const IDLE_MS = 30_000;
const REPAIRS_PER_RUN = 100;

export type RunnerCtx = DomainContext & DialNeeds;

export interface RunResult {
  /** When to run next; null: nothing left to do until someone wakes the runner. */
  next: Date | null;
  placed: number;
}

const idle: RunResult = { next: null, placed: 0 };

export async function runCampaign({ ctx, input }: { ctx: RunnerCtx; input: { campaignId: string; now?: Date } }): Promise<RunResult> {
  const now = input.now ?? new Date();
  const campaign = await findCampaign(ctx.db, input.campaignId);
  if (!campaign) return idle;
  const placedByRepair = await repair(ctx, campaign);
  if (campaign.status !== "running") return idle;

  const agent = await usableAgent(ctx, campaign);
  if (typeof agent === "string") {
    await pauseWithReason(ctx.db, campaign.id, agent);
    return idle;
  }
  const fresh = await findCampaign(ctx.db, campaign.id);
  const limits = await workspaceLimits(ctx.db, campaign.organizationId);
  if (!fresh || !limits) return idle;
  const free = Math.min(fresh.maxCallsInFlight - fresh.callsInFlight, limits.max - limits.inFlight);

  const window = await windowOf(ctx, campaign, now);
  const claimed = free > 0 ? await claimDue(ctx.db, campaign.id, free, window.zones) : [];
  const dialled = await dialAll(ctx, campaign, agent, claimed);
  if (dialled.pause) {
    await pauseWithReason(ctx.db, campaign.id, dialled.pause);
    return idle;
  }

  const work = await workloadOf(ctx.db, campaign.id);
  if (work.pending === 0 && work.calling === 0) {
    const done = await completeIfDone(ctx.db, campaign.id);
    if (done) await emitCompleted(ctx, done);
    return idle;
  }
  const placed = dialled.placed + placedByRepair;
  const busy = work.calling > 0 || dialled.limited || (free > 0 && claimed.length === free) || free <= 0;
  const candidates = [
    busy ? now.getTime() + TICK_MS : null,
    window.nextOpening?.getTime() ?? null,
    work.nextRetryAt?.getTime() ?? null,
  ].filter((t): t is number => t !== null);
  if (candidates.length === 0 && work.pending > 0) candidates.push(now.getTime() + IDLE_MS);
  return { next: candidates.length > 0 ? new Date(Math.max(now.getTime(), Math.min(...candidates))) : null, placed };
}

/** The campaign's agent, or why the campaign cannot dial (its agent or one of its caller ids is gone). */
async function usableAgent(ctx: RunnerCtx, campaign: Campaign): Promise<Agent | string> {
  const agent = campaign.agentId
    ? await findAgent({ ctx: { db: ctx.db, organizationId: campaign.organizationId }, input: { id: campaign.agentId } })
    : null;
  if (!agent) return "The campaign's agent was deleted: give the campaign an agent, then resume it.";
  const own = new Set((await listCallerIds(ctx.db, campaign.organizationId)).map((p) => p.number));
  const gone = campaign.fromNumbers.filter((n) => !own.has(n) && !ctx.config.TWILIO_FROM_NUMBERS.includes(n));
  if (gone.length > 0)
    return `The caller id ${gone.join(", ")} is no longer one of the workspace's phone numbers (GET /v1/phone-numbers): add it back or change the campaign's fromNumbers, then resume it.`;
  return agent;
}

/**
 * Which zones' windows are open now (the claim takes only their recipients; null: no schedule, any
 * recipient), and when the first closed one opens. A zone the runtime does not know is read as
 * the schedule's.
 */
async function windowOf(
  ctx: RunnerCtx,
  campaign: Campaign,
  now: Date,
): Promise<{ zones: { open: string[]; scheduleZone: string } | null; nextOpening: Date | null }> {
  const schedule = campaign.schedule;
  if (!schedule) return { zones: null, nextOpening: null };
  const zones = await dueZones(ctx.db, campaign.id, schedule.timezone);
  const open: string[] = [];
  let first: Date | null = null;
  for (const zone of zones) {
    const read = isTimeZone(zone) ? zone : schedule.timezone;
    if (isOpen(schedule, read, now)) open.push(zone);
    else {
      const opens = nextOpening(schedule, read, now);
      if (opens && (!first || opens < first)) first = opens;
    }
  }
  return { zones: { open, scheduleZone: schedule.timezone }, nextOpening: first };
}

/**
 * What a stopped worker left (docs/campaigns.md, "Restarts"): a recipient whose call ended with its
 * outcome unrecorded gets it now; a claim with no call saved is placed again with the same
 * Idempotency-Key (the call path answers with the attempt's call if it was made, so an attempt is
 * dialled once) while the campaign runs, and given back (paused) or canceled (canceled) otherwise.
 * Returns the calls it placed.
 */
async function repair(ctx: RunnerCtx, campaign: Campaign): Promise<number> {
  const stuck = await stuckRecipients(ctx.db, campaign.id, STALE_CLAIM_SECONDS, REPAIRS_PER_RUN);
  const unplaced: CampaignRecipient[] = [];
  for (const { recipient, call } of stuck) {
    if (call) await recordCampaignOutcome(ctx, call);
    else unplaced.push(recipient);
  }
  if (unplaced.length === 0) return 0;
  console.log(
    JSON.stringify({ level: "warn", msg: "campaign claims left without a call", campaignId: campaign.id, count: unplaced.length }),
  );
  const agent = campaign.status === "running" ? await usableAgent(ctx, campaign) : "not running";
  const dialled = await dialAll(ctx, campaign, typeof agent === "string" ? null : agent, unplaced);
  if (dialled.pause) await pauseWithReason(ctx.db, campaign.id, dialled.pause);
  return dialled.placed;
}
