// How the worker reaches a call's Durable Object (src/calls/durable-object.ts) without importing
// it: the headers it reads and the watchdog's arming request.
export const CALL_ID_HEADER = "x-call-id";
export const TRANSPORT_HEADER = "x-call-transport";

/** Arms the call's watchdog (its Durable Object's alarm) for `deadline`. */
export async function armWatchdog(ns: DurableObjectNamespace, callId: string, deadline: Date): Promise<void> {
  const stub = ns.get(ns.idFromName(callId));
  const res = await stub.fetch("https://call/__watch", {
    method: "POST",
    headers: { [CALL_ID_HEADER]: callId, "content-type": "application/json" },
    body: JSON.stringify({ deadline: deadline.getTime() }),
  });
  if (res.status !== 204) throw new Error(`arming the call watchdog failed (${res.status})`);
}

/** Asks the call's Durable Object to synthesize the first message while the phone rings (docs/calls.md). */
export async function prepareFirstMessageWhileRinging(ns: DurableObjectNamespace, callId: string): Promise<void> {
  const stub = ns.get(ns.idFromName(callId));
  const res = await stub.fetch("https://call/__prepare", { method: "POST", headers: { [CALL_ID_HEADER]: callId } });
  if (res.status !== 202) throw new Error(`preparing the first message failed (${res.status})`);
}
