// transfer_call, once its message played: the carrier hands the caller on (our media stream ends
// with it), the call records where, and ends `transferred`. When the carrier refuses, the caller is
// told and the conversation goes on; a caller who hung up while we asked ends the call.
import type { Call, TransferDestination } from "../db/schema";
import type { Scope } from "../db/scope";
import type { AppConfig } from "../env";
import { telephonyProvider } from "../telephony/registry";
import { CallNotInProgressError } from "../telephony/types";
import { TWILIO_DIAL_PATH } from "./addresses";
import { findCall, recordTransfer } from "./queries/calls";

/** Said when the carrier refused to hand the call on; the conversation goes on. */
export const TRANSFER_FAILED_MESSAGE = "Sorry, I could not transfer your call right now.";

/** What the session does with the carrier's answer. */
export type Handed = "transferred" | "caller-gone" | "refused";

export async function handOn(scope: Scope, config: AppConfig, origin: string, call: Call, to: TransferDestination): Promise<Handed> {
  try {
    const sid = (await findCall(scope.db, call.id))?.providerCallId ?? call.providerCallId;
    if (!sid) throw new Error("the call has no carrier id yet");
    // Shown to the new party: our number on the line (outbound: the caller id we dialled from; inbound: the number called).
    const callerId = (call.direction === "inbound" ? call.toNumber : call.fromNumber) ?? "";
    await telephonyProvider(config).transfer(sid, to.number, callerId, `${origin}${TWILIO_DIAL_PATH(call.id)}`);
  } catch (err) {
    console.log(
      JSON.stringify({ level: "info", msg: "transfer refused", callId: call.id, message: (err as Error).message?.slice(0, 300) }),
    );
    // The caller hung up while we asked: the carrier refuses a call that is over.
    return err instanceof CallNotInProgressError ? "caller-gone" : "refused";
  }
  console.log(JSON.stringify({ level: "info", msg: "transferred", callId: call.id, to: to.name ?? "number" }));
  await recordTransfer(scope.db, call.id, { number: to.number, name: to.name ?? null, at: new Date().toISOString() });
  return "transferred";
}

/** One transfer at a time, and whether the media stream closed while the carrier was asked. */
export class TransferLeg {
  /** The carrier is being asked: a closing stream is expected (it takes the call), not a hang-up. */
  active = false;
  private closed = false;

  /** The stream closed: the carrier took the call, or (when it refuses) the caller hung up. */
  streamClosed(): void {
    this.closed = true;
  }

  async hand(scope: Scope, config: AppConfig, origin: string, call: Call, to: TransferDestination): Promise<Handed> {
    this.active = true;
    try {
      const handed = await handOn(scope, config, origin, call, to);
      return handed === "refused" && this.closed ? "caller-gone" : handed;
    } finally {
      this.active = false;
    }
  }
}
