// How the worker reaches a call's Durable Object (src/calls/durable-object.ts): typed RPC for the
// watchdog, the first message made while ringing, the carrier's hang-up, a hang-up on request and
// answering-machine detection's verdict (the headers its media socket's upgrade request carries:
// addresses.ts).
import type { AnsweredBy } from "../db/schema";
import { CALL_ID_HEADER, TRANSPORT_HEADER } from "./addresses";
import type { CallSession } from "./durable-object";

/** The call's Durable Object (one per call, named by its id). */
export function callStub(ns: DurableObjectNamespace, callId: string): DurableObjectStub<CallSession> {
  const typed = ns as unknown as DurableObjectNamespace<CallSession>;
  return typed.get(typed.idFromName(callId));
}

/** Arms the call's watchdog (its Durable Object's alarm) for `deadline`. */
export async function armWatchdog(ns: DurableObjectNamespace, callId: string, deadline: Date): Promise<void> {
  await callStub(ns, callId).watch(callId, deadline.getTime());
}

/** Asks the call's Durable Object to synthesize the first message while the phone rings (docs/calls.md). */
export async function prepareFirstMessageWhileRinging(ns: DurableObjectNamespace, callId: string): Promise<void> {
  await callStub(ns, callId).prepare(callId);
}

/**
 * The carrier says the callee hung up: true when the call's live (or ending) session owns the
 * ending (it writes the transcript and the recording); false when no session runs there.
 */
export async function leaveHangUpToSession(ns: DurableObjectNamespace, callId: string): Promise<boolean> {
  return (await callStub(ns, callId).carrierHungUp(callId)) === "ending";
}

/**
 * The API or the dashboard hangs the call up: true when the call's live (or ending) session ends
 * it (`ended-via-api`, or the reason it was already ending with); false when no session runs there.
 */
export async function hangUpLiveSession(ns: DurableObjectNamespace, callId: string): Promise<boolean> {
  return (await callStub(ns, callId).hangUpOnRequest(callId)) === "ending";
}

/** Hands answering-machine detection's verdict to the call's session (src/calls/voicemail.ts). */
export async function tellSessionWhoAnswered(ns: DurableObjectNamespace, callId: string, answeredBy: AnsweredBy): Promise<void> {
  await callStub(ns, callId).machineDetected(callId, answeredBy);
}

/**
 * Hands a media socket's upgrade to the call's Durable Object, which answers 101 with the socket:
 * a route's request (Twilio's stream, the browser's web call), or the worker's own (an agent test
 * joining its web call as the caller). `headers` must ask for the upgrade.
 */
export function upgradeAtSession(
  ns: DurableObjectNamespace,
  callId: string,
  transport: "twilio" | "web",
  url: string,
  headers: Headers,
): Promise<Response> {
  headers.set(CALL_ID_HEADER, callId);
  headers.set(TRANSPORT_HEADER, transport);
  return callStub(ns, callId).fetch(new Request(url, { method: "GET", headers }));
}
