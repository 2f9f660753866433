// The telephony port: what a live phone call needs from a carrier. Twilio is the first
// adapter (src/telephony/twilio.ts); the local telephony sandbox answers it in development.
import { ProviderError } from "../providers/http";

export interface PlaceCallRequest {
  to: string;
  from: string;
  /** The WebSocket URL the carrier streams the call's audio to (our media route). */
  streamUrl: string;
  /** Sent back to us in the stream's `start` message (the stream token lives here). */
  streamParameters: Record<string, string>;
  /** Where the carrier POSTs status changes (signed). */
  statusCallbackUrl: string;
  /** How long to ring before giving up. */
  ringTimeoutSeconds: number;
  /** Answering-machine detection, run by the carrier beside the call (Twilio's async AMD); absent: none. */
  machineDetection?: MachineDetectionRequest;
}

/**
 * `Enable`: the carrier reports as soon as it knows who answered (a machine as `machine_start`), to
 * hang up on one; `DetectMessageEnd`: a machine is reported when its greeting ended
 * (`machine_end_beep`, `…_silence`, `…_other`), to leave a message after the beep. The verdict is
 * POSTed (signed, like a status callback) to `callbackUrl`.
 */
export interface MachineDetectionRequest {
  mode: "Enable" | "DetectMessageEnd";
  callbackUrl: string;
}

export type DialFailure = "invalid-number" | "refused" | "unavailable";

/** The carrier would not place the call. `invalid-number` is the callee's problem, the rest the provider's. */
export class DialError extends Error {
  constructor(
    readonly failure: DialFailure,
    message: string,
  ) {
    super(message);
    this.name = "DialError";
  }
}

/**
 * The carrier would not act on a live call because it is not in progress: it has ended (the caller
 * hung up meanwhile), or it was never answered (Twilio 21220). A ProviderError (`rejected`), so
 * code that treats every carrier refusal alike keeps working; `callStatus` is the carrier's status
 * of the call when it could say.
 */
export class CallNotInProgressError extends ProviderError {
  constructor(
    message: string,
    status: number | null,
    readonly callStatus: string | null,
  ) {
    super("rejected", message, status);
    this.name = "CallNotInProgressError";
  }
}

/** Why the account may call from a number: it is one of its numbers, or a verified caller id. */
export type CallerIdSource = "incoming" | "verified";

export interface TelephonyProvider {
  readonly name: string;
  /** Dials; returns the carrier's call id. Throws DialError. */
  placeCall(request: PlaceCallRequest): Promise<{ providerCallId: string }>;
  /**
   * Hangs up a call in progress (Twilio: `Status=completed`, which ends a ringing call too). Ending
   * an ended call is not an error.
   */
  hangUp(providerCallId: string): Promise<void>;
  /**
   * Cancels a call that is queued or ringing (Twilio: `Status=canceled`); a call already answered
   * is left as it is, and cancelling an ended call is not an error. Throws ProviderError when the
   * carrier cannot be reached or fails.
   */
  cancel(providerCallId: string): Promise<void>;
  /**
   * Hands the live call to `to` (E.164): the carrier dials it, showing `callerId` (a number the
   * account may call from, or one of the call's own two numbers), and connects the caller when it
   * answers. The carrier takes the call away from our media stream, which ends (Twilio: `stop`,
   * then the socket closes); the call itself ends later, when the transferred conversation does.
   * Resolves once the carrier accepted the instructions, not when the transfer is answered.
   * `action`: the URL the carrier tells how the leg went (answered, busy, no answer…) and asks what
   * the caller hears next (TWILIO_DIAL_PATH).
   * Throws CallNotInProgressError when the call has ended (or was never answered), and
   * ProviderError when the carrier refuses otherwise or cannot be reached.
   */
  transfer(providerCallId: string, to: string, callerId: string, action?: string): Promise<void>;
  /**
   * Presses keys on the live call (send_dtmf): the carrier plays `digits` as DTMF tones (0-9, *, #;
   * `w` pauses half a second), then streams the call's audio to `streamUrl` again, with
   * `parameters` (a fresh stream token). A media stream cannot carry DTMF, so the carrier ends the
   * current stream (Twilio: `stop`, then the socket closes) and opens a new one after the tones: the
   * call goes on. Resolves once the carrier accepted the instructions. Throws as `transfer` does.
   */
  sendDigits(providerCallId: string, digits: string, streamUrl: string, parameters: Record<string, string>): Promise<void>;
  /**
   * Whether the account may call from this number (Twilio: IncomingPhoneNumbers, then
   * OutgoingCallerIds); null when it is neither. Throws ProviderError when the carrier cannot say.
   */
  callerIdSource(phoneNumber: string): Promise<CallerIdSource | null>;
  /**
   * Sends the number's incoming calls to `voiceUrl` (Twilio: the IncomingPhoneNumber's VoiceUrl).
   * False when the number is not one the account bought (a verified caller id cannot receive calls).
   */
  routeIncomingCalls(phoneNumber: string, voiceUrl: string): Promise<boolean>;
  /** Checks a status callback's or voice webhook's signature; `url` is the URL the carrier requested. */
  verifyCallback(url: string, params: URLSearchParams, signature: string | undefined): Promise<boolean>;
}
