// Incoming phone calls: Twilio's voice webhook for a workspace's number (its VoiceUrl, set when the
// number is assigned to an agent: src/calls/phone-numbers.ts). A number assigned to an agent of a
// workspace with credits answers with the media stream, and the same session as an outbound call
// runs it (`direction: inbound`); anything else is turned away in TwiML (docs/calls.md, "Inbound
// calls"). Twilio may send the webhook again for the same CallSid: the call is created once.
import type { Call } from "../db/schema";
import { randomBase62, sha256Hex } from "../lib/crypto";
import { newId } from "../lib/ids";
import type { Op } from "../services";
import { rejectTwiml, sayAndHangUpTwiml, streamTwiml } from "../telephony/twilio";
import { TWILIO_MEDIA_PATH } from "./addresses";
import { CallsInFlightLimitError, withinInFlightLimit } from "./in-flight";
import { hasCredits, insertIncomingCall, renewRingingStreamToken } from "./queries/calls";
import { numberForIncomingCall } from "./queries/phone-numbers";
import { armWatchdog } from "./stub";

/** Said to a caller whose call the number cannot take (no agent assigned, no credits left), before hanging up. */
export const CANNOT_TAKE_CALLS = "Sorry, this number cannot take your call right now. Please try again later. Goodbye.";

export interface IncomingCall {
  callSid: string;
  from: string;
  to: string;
}

export type InboundAnswer =
  | { kind: "stream"; call: Call; twiml: string }
  | { kind: "reject" | "cannot-take"; reason: string; twiml: string };

/** What to answer Twilio's voice webhook for an incoming call. */
export async function answerIncomingCall({
  ctx,
  input: incoming,
}: Op<IncomingCall, "db" | "config" | "publicOrigin" | "callSessions">): Promise<InboundAnswer> {
  const found = await numberForIncomingCall(ctx.db, incoming.to);
  // A number no workspace has: never answered (no charge), heard as a busy line.
  if (!found) return { kind: "reject", reason: "not a workspace's number", twiml: rejectTwiml() };
  const { number, agent } = found;
  if (!agent) return { kind: "cannot-take", reason: "no agent assigned", twiml: sayAndHangUpTwiml(CANNOT_TAKE_CALLS) };
  if (!(await hasCredits(ctx.db, number.organizationId)))
    return { kind: "cannot-take", reason: "no credits", twiml: sayAndHangUpTwiml(CANNOT_TAKE_CALLS) };

  const streamToken = randomBase62(40);
  const tokenHash = await sha256Hex(streamToken);
  const deadline = new Date(Date.now() + (ctx.config.CALL_RING_TIMEOUT_SECONDS + ctx.config.CALL_WATCHDOG_GRACE_SECONDS) * 1000);
  // Insert first, then fall back to the row that is there: the unique index on (provider,
  // provider_call_id) makes one call of any number of concurrent copies of the webhook.
  let call: Call | null | undefined;
  try {
    call = await withinInFlightLimit(
      insertIncomingCall(ctx.db, {
        id: newId(),
        organizationId: number.organizationId,
        agentId: agent.id,
        agentName: agent.name,
        agentVersion: agent.liveVersion,
        type: "phone",
        direction: "inbound",
        status: "ringing",
        fromNumber: incoming.from,
        toNumber: incoming.to,
        provider: "twilio",
        providerCallId: incoming.callSid,
        streamTokenHash: tokenHash,
        deadlineAt: deadline,
      }),
    );
  } catch (err) {
    // The workspace has its most calls in flight: turned away unanswered, heard as a busy line (the caller may try again).
    if (err instanceof CallsInFlightLimitError) return { kind: "reject", reason: "calls in flight limit", twiml: rejectTwiml() };
    throw err;
  }
  if (call) await armWatchdog(ctx.callSessions(), call.id, deadline);
  else {
    // The webhook again for a call we already answered (Twilio retried it): a fresh stream token
    // for the stream this answer starts, while the call has not connected; a call under way or
    // over is not answered twice.
    call = await renewRingingStreamToken(ctx.db, "twilio", incoming.callSid, tokenHash);
    if (!call) return { kind: "reject", reason: "call already answered", twiml: rejectTwiml() };
  }
  const streamUrl = `${ctx.publicOrigin.replace(/^http/, "ws")}${TWILIO_MEDIA_PATH(call.id)}`;
  return { kind: "stream", call, twiml: streamTwiml(streamUrl, { token: streamToken, callId: call.id }) };
}
