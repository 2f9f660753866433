// Ending a call on request: POST /v1/calls/{id}/end and the dashboard's Hang up (docs/calls.md,
// "Ending a call"). A call whose session is live in its Durable Object is ended there, as any
// other ending (`ended-via-api`: the carrier hung up, the transcript and recording kept,
// `call.completed`); a call without one is ended here: canceled at the carrier and `call-canceled`
// when it never connected, `ended-via-api` when it connected but no session runs. Every write is
// the state machine's one conditional write (finishCall), so of two enders exactly one wins.
import type { Call } from "../db/schema";
import { ApiError } from "../lib/errors";
import { ProviderError } from "../providers/http";
import type { DomainContext, Op } from "../services";
import { finishCall, isEnded } from "./lifecycle";
import { getCall } from "./service";
import { hangUpLiveSession } from "./stub";

/** What ending a call needs of the request context: the domain's, the organization, the calls' Durable Objects and the carrier. */
export type EndCallNeeds = keyof DomainContext | "organizationId" | "callSessions" | "telephony";
type Ctx = Op<unknown, EndCallNeeds>["ctx"];

export interface EndedCall {
  /** The call as it is after the request. */
  call: Call;
  /**
   * `ending`: its live session is ending it (the API answers 202; the call may still read
   * `in-progress`, the terminal webhook follows); `ended`: this request ended it (200).
   */
  outcome: "ending" | "ended";
}

export const callAlreadyEnded = () => new ApiError("conflict", "The call has already ended.");

/** The carrier is asked at most once per state the call moves through: queued or ringing, in progress, ended. */
const MAX_ROUNDS = 3;

/**
 * Ends the workspace's call, whatever its stage: 404 for a call that is not the workspace's, 409
 * `conflict` for one that has ended (also when another ending won while this one ran), 502
 * `telephony_error` when the carrier could not cancel a ringing call (nothing changed; retry).
 */
export async function endCall({ ctx, input: { id } }: Op<{ id: string }, EndCallNeeds>): Promise<EndedCall> {
  let call = await getCall({ ctx, input: { id } });
  for (let round = 0; round < MAX_ROUNDS && !isEnded(call); round++) {
    if (await hangUpLiveSession(ctx.callSessions(), call.id)) return { call: await getCall({ ctx, input: { id } }), outcome: "ending" };
    const ended = await endWithoutSession(ctx, call);
    if (ended) return { call: ended, outcome: "ended" };
    // Another writer moved the call meanwhile (it connected, or ended): decide again on what it is now.
    call = await getCall({ ctx, input: { id } });
  }
  throw callAlreadyEnded();
}

/** No live session: a call that never connected is canceled (at the carrier first), one that connected is ended `ended-via-api`. */
async function endWithoutSession(ctx: Ctx, call: Call): Promise<Call | null> {
  const sid = call.type === "phone" ? call.providerCallId : null;
  if (call.status === "in-progress") {
    // Written first, so the carrier's `completed` callback that the hang-up causes finds the call ended.
    const row = await finishCall(ctx, call.id, "ended-via-api");
    if (row && sid) await hangUpAtCarrier(ctx, call.id, sid);
    return row;
  }
  // Queued or ringing. Canceled at the carrier before the write: when the carrier cannot be asked,
  // nothing has changed and the request can be retried. An incoming call was answered by our TwiML
  // (it is in progress at the carrier while it waits for its stream), so it is hung up instead.
  if (sid) await cancelAtCarrier(ctx, call, sid);
  return finishCall(ctx, call.id, "call-canceled");
}

async function cancelAtCarrier(ctx: Ctx, call: Call, sid: string): Promise<void> {
  const telephony = ctx.telephony();
  try {
    await (call.direction === "inbound" ? telephony.hangUp(sid) : telephony.cancel(sid));
  } catch (err) {
    if (!(err instanceof ProviderError)) throw err;
    log(call.id, "cancel at the carrier failed", { message: err.message });
    throw new ApiError("telephony_error", "Twilio failed or could not be reached, so the call was not canceled; retry.", { cause: err });
  }
}

/** The call is already ended on our side: a carrier that fails is logged (the call's stream, if it ever connects, is refused). */
async function hangUpAtCarrier(ctx: Ctx, callId: string, sid: string): Promise<void> {
  try {
    await ctx.telephony().hangUp(sid);
  } catch (err) {
    log(callId, "hang-up at the carrier failed", { message: (err as Error).message });
  }
}

function log(callId: string, msg: string, extra: Record<string, unknown> = {}): void {
  console.log(JSON.stringify({ level: "info", msg, callId, ...extra }));
}
