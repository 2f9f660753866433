// A campaign call's outcome on its recipient (docs/campaigns.md, "Retries"): called by finishCall
// (src/calls/lifecycle.ts), the one place every call's end goes through, and by the runner when it
// finds a call that ended without it (a worker stopped between the two). The recipient moves from
// `calling` to its outcome, or back to `pending` for another attempt after the retry's delay; then
// the runner is woken to give the freed place to the next recipient.
import type { Call, RecipientState } from "../../db/schema";
import type { DomainContext } from "../../services";
import { recipientOfCall, recordOutcome } from "../queries/runner";
import { runnerStub } from "./stub";

/** A final outcome of one attempt. */
export type Outcome = Extract<RecipientState, "completed" | "busy" | "no-answer" | "voicemail" | "failed">;

/** An ended call's outcome: a conversation (whoever hung up) is `completed`; anything that never became one is `failed`. */
export function outcomeOf(endedReason: Call["endedReason"]): Outcome {
  switch (endedReason) {
    case "agent-ended-call":
    case "customer-ended-call":
    case "silence-timeout":
    case "max-duration-reached":
    case "transferred":
    case "ended-via-api":
      return "completed";
    case "customer-busy":
      return "busy";
    case "customer-did-not-answer":
      return "no-answer";
    case "voicemail":
      return "voicemail";
    default:
      return "failed";
  }
}

/** The Idempotency-Key of a recipient's attempt: a restarted runner placing it again gets the same call back, never a second dial. */
export const attemptKey = (recipientId: string, attempt: number) => `campaign:${recipientId}:${attempt}`;

/** The attempt a campaign call was placed for (its key), or null for a key of another form. */
export function attemptOf(call: Pick<Call, "idempotencyKey" | "campaignRecipientId">): number | null {
  const m = /^campaign:([0-9a-f-]{36}):(\d+)$/.exec(call.idempotencyKey ?? "");
  return m && m[1] === call.campaignRecipientId ? Number(m[2]) : null;
}

/**
 * Records an ended campaign call on its recipient and wakes the campaign's runner. False when
 * there was nothing to record (not a campaign call, or its outcome was already recorded).
 */
export async function recordCampaignOutcome(deps: DomainContext, call: Call, now = new Date()): Promise<boolean> {
  if (!call.campaignId || !call.endedReason) return false;
  const found = await recipientOfCall(deps.db, call);
  if (!found) return false;
  const { recipient, campaign } = found;
  const attempt = attemptOf(call) ?? recipient.attempts;
  const outcome = outcomeOf(call.endedReason);
  const { retry } = campaign;
  // A canceled (or completed) campaign tries nobody again; a paused one does, once resumed.
  const again =
    outcome !== "completed" &&
    retry.on.includes(outcome) &&
    attempt < retry.maxAttempts &&
    (campaign.status === "running" || campaign.status === "paused");
  const recorded = await recordOutcome(deps.db, {
    recipientId: recipient.id,
    attempt,
    state: again ? "pending" : outcome,
    nextAttemptAt: again ? new Date(now.getTime() + retry.delaySeconds * 1000) : null,
    call,
  });
  if (recorded && deps.campaignRunners) {
    // The runner's own heartbeat fills the place too; waking it only does it sooner.
    await runnerStub(deps.campaignRunners, campaign.id)
      .wake(campaign.id)
      .catch((err: Error) =>
        console.log(JSON.stringify({ level: "warn", msg: "campaign runner not woken", campaignId: campaign.id, error: err.message })),
      );
  }
  return recorded;
}
