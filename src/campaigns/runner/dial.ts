// Placing the calls of claimed recipients, through the one call path (src/calls/place.ts): the
// attempt's Idempotency-Key, the campaign and row on the call, the row's variables, a caller id in
// turn. A call refused for a limit gives its claim back (the next run tries again); a refusal no
// retry can cure (no credits, a caller id gone) pauses the campaign with the refusal's words.

import { CallsInFlightLimitError } from "../../calls/in-flight";
import { isEnded } from "../../calls/lifecycle";
import { placePhoneCall } from "../../calls/place";
import { findCallByIdempotencyKey } from "../../calls/queries/calls";
import type { Agent, Call, Campaign, CampaignRecipient } from "../../db/schema";
import { ApiError, type ErrorCode } from "../../lib/errors";
import type { DomainContext } from "../../services";
import { cancelClaim, giveBack, recordOutcome, saveLastCall } from "../queries/runner";
import { attemptKey, recordCampaignOutcome } from "./outcome";

/** What dialling needs besides the domain context: where the carrier calls back, and the calls' Durable Objects. */
export interface DialNeeds {
  publicOrigin: string;
  callSessions(): DurableObjectNamespace;
}

/** Calls placed side by side in one run (a Worker keeps six connections open at once). */
const PARALLEL = 6;

/** Refusals of the call path that no retry cures: the campaign pauses with their message. */
const PAUSING: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  "insufficient_credits",
  "caller_id_not_verified",
  "validation_failed",
  "telephony_unavailable",
  // The campaign's version of its agent is not there (never, while versions are not deleted).
  "not_found",
]);

type Dialled = "placed" | "limit" | "failed" | "error" | { pause: string };

export interface DialReport {
  placed: number;
  /** A call was refused for a limit: the rest were given back. */
  limited: boolean;
  /** Why the campaign must pause, when a refusal says it must. */
  pause?: string;
}

/** The caller id of an attempt: the campaign's numbers in turn, by row and attempt (the same for the same attempt, as its key needs). */
export const callerIdOf = (campaign: Pick<Campaign, "fromNumbers">, recipient: Pick<CampaignRecipient, "row" | "attempts">) =>
  campaign.fromNumbers.length > 0 ? campaign.fromNumbers[(recipient.row + recipient.attempts) % campaign.fromNumbers.length] : undefined;

type Ctx = DomainContext & DialNeeds;

/** A call placed for the attempt before: saved on the recipient, its outcome recorded if it already ended. */
async function adopt(ctx: Ctx, recipient: CampaignRecipient, call: Call): Promise<void> {
  await saveLastCall(ctx.db, recipient.id, recipient.attempts, call.id);
  if (isEnded(call)) await recordCampaignOutcome(ctx, call);
}

async function dialOne(ctx: Ctx, campaign: Campaign, agent: Agent, recipient: CampaignRecipient): Promise<Dialled> {
  const attempt = recipient.attempts;
  const idempotencyKey = attemptKey(recipient.id, attempt);
  try {
    const { call, replayed } = await placePhoneCall({
      ctx: { ...ctx, organizationId: campaign.organizationId },
      input: {
        agent,
        call: {
          phoneNumber: recipient.phoneNumber,
          fromNumber: callerIdOf(campaign, recipient),
          variables: recipient.variables,
          // The campaign's version of its agent, or (left out) the live one at this dial.
          ...(campaign.agentVersion !== null && { agentVersion: campaign.agentVersion }),
        },
        idempotencyKey,
        campaign: { campaignId: campaign.id, recipientId: recipient.id },
      },
    });
    // A call that failed at once was recorded by its end (finishCall); a replayed one may not have been.
    if (replayed) await adopt(ctx, recipient, call);
    else await saveLastCall(ctx.db, recipient.id, attempt, call.id);
    return "placed";
  } catch (err) {
    if (err instanceof CallsInFlightLimitError) {
      await giveBack(ctx.db, recipient.id, attempt);
      return "limit";
    }
    if (err instanceof ApiError && err.code === "idempotency_conflict") {
      // The attempt's call was placed with other settings (the campaign changed since): it is still the attempt's call.
      const call = await findCallByIdempotencyKey(ctx.db, campaign.organizationId, idempotencyKey);
      if (call) await adopt(ctx, recipient, call);
      return "placed";
    }
    if (err instanceof ApiError && err.code === "variables_missing") {
      // This row cannot fill the agent's templates: no attempt of it can be placed.
      await recordOutcome(ctx.db, { recipientId: recipient.id, attempt, state: "failed", nextAttemptAt: null, call: null });
      return "failed";
    }
    if (err instanceof ApiError && PAUSING.has(err.code)) {
      await giveBack(ctx.db, recipient.id, attempt);
      return { pause: `Calls cannot be placed: ${err.message} Then resume the campaign.` };
    }
    // Anything else (the database or the carrier unreachable) leaves the claim: the next runs repair it with the same key.
    console.error(
      JSON.stringify({
        level: "error",
        msg: "campaign call not placed",
        campaignId: campaign.id,
        recipientId: recipient.id,
        error: (err as Error).message,
      }),
    );
    return "error";
  }
}

/**
 * Claims that will not be dialled now (the campaign stopped, or no agent): each takes the call its
 * attempt already has, if one was placed before a restart; else it is given back, or canceled
 * with a canceled campaign.
 */
async function release(ctx: Ctx, campaign: Campaign, recipients: CampaignRecipient[], cancel: boolean): Promise<void> {
  for (const recipient of recipients) {
    const call = await findCallByIdempotencyKey(ctx.db, campaign.organizationId, attemptKey(recipient.id, recipient.attempts));
    if (call) await adopt(ctx, recipient, call);
    else if (cancel) await cancelClaim(ctx.db, recipient.id, recipient.attempts);
    else await giveBack(ctx.db, recipient.id, recipient.attempts);
  }
}

/** Places the claimed recipients' calls (`agent` null: none can be, each claim is released). */
export async function dialAll(ctx: Ctx, campaign: Campaign, agent: Agent | null, claimed: CampaignRecipient[]): Promise<DialReport> {
  const report: DialReport = { placed: 0, limited: false };
  if (!agent) {
    await release(ctx, campaign, claimed, campaign.status === "canceled" || campaign.status === "completed");
    return report;
  }
  for (let i = 0; i < claimed.length; i += PARALLEL) {
    const results = await Promise.all(claimed.slice(i, i + PARALLEL).map((r) => dialOne(ctx, campaign, agent, r)));
    for (const result of results) {
      if (result === "placed") report.placed++;
      else if (result === "limit") report.limited = true;
      else if (typeof result === "object") report.pause ??= result.pause;
    }
    if (report.limited || report.pause) {
      await release(ctx, campaign, claimed.slice(i + PARALLEL), false);
      break;
    }
  }
  return report;
}
