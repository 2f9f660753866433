// The end of a live call, once (src/calls/session.ts decides when): the caller's last words kept,
// the recording stored (bounded: a slow bucket must not hold back the call's end and its webhook),
// the call's final write with the transcript, then the hang-up at the carrier so the other side
// ends as ours did.
import type { Call, TranscriptTurn } from "../db/schema";
import type { Scope } from "../db/scope";
import type { AppConfig } from "../env";
import { ApiError } from "../lib/errors";
import type { DomainContext } from "../services";
import { telephonyProvider } from "../telephony/registry";
import { finishCall } from "./lifecycle";
import type { CallPipeline } from "./pipeline/build";
import { findCall, type StoredRecording } from "./queries/calls";
import { type EndedReason, statusFor } from "./states";

const RECORDING_SAVE_MS = 10_000;
/** The caller's last words (said inside the endpointing wait, then the call ended) get this long to be transcribed. */
const PENDING_SPEECH_MS = 5_000;

/** `work`, or an error after `ms`. */
export const within = <T>(work: Promise<T>, ms: number, message: string): Promise<T> => {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    work,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(message)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
};

/** Why a failed stage ends the call (logged): out of credits, or its provider's error. */
export function failureReason(callId: string, err: unknown, stage: "stt" | "llm" | "tts"): EndedReason {
  const e = err as Error;
  log(callId, "call pipeline failed", { stage, error: e?.name, message: e?.message?.slice(0, 300) });
  return err instanceof ApiError && err.code === "insufficient_credits" ? "insufficient-credits" : `${stage}-provider-error`;
}

/** One line of the call's log. */
export function log(callId: string, msg: string, extra: Record<string, unknown> = {}): void {
  console.log(JSON.stringify({ level: "info", msg, callId, ...extra }));
}

export interface Ending {
  scope: Scope;
  deps: DomainContext;
  config: AppConfig;
  callId: string;
  kind: "twilio" | "web";
  /** Null when the call never connected (refused, or failed before its pipeline was built). */
  call: Call | null;
  pipe: CallPipeline | null;
  recordings?: R2Bucket;
}

export async function endLiveCall(e: Ending, reason: EndedReason): Promise<void> {
  const { call, pipe } = e;
  // A conversation that ended normally keeps what the caller was still saying.
  if (call && pipe && statusFor(reason) === "completed") await keepLastWords(e, pipe);
  if (call && pipe)
    log(e.callId, "turn-taking", { speculation: e.config.CALL_SPECULATION, ...pipe.stt.totals, resumed: pipe.context.resumed });
  let recording: StoredRecording | null = null;
  try {
    const recorder = e.pipe?.recorder;
    if (call && recorder && e.recordings)
      recording = await within(recorder.store(e.recordings, call), RECORDING_SAVE_MS, "recording upload timed out");
  } catch (err) {
    log(e.callId, "recording not saved", { message: (err as Error).message });
  }
  const turns: TranscriptTurn[] | undefined = call ? [...(pipe?.context.turns ?? [])] : undefined;
  try {
    await finishCall(e.deps, e.callId, reason, turns, recording);
  } catch (err) {
    log(e.callId, "ending the call failed", { message: (err as Error).message });
  }
}

/** After the final write: hang up at the carrier (Twilio stops the stream), unless the caller or the carrier already did. */
export async function hangUpAtCarrier(e: Ending, reason: EndedReason): Promise<void> {
  const { call } = e;
  if (e.kind === "twilio" && call && reason !== "customer-ended-call" && reason !== "transferred") {
    try {
      const sid = (await findCall(e.scope.db, call.id))?.providerCallId ?? call.providerCallId;
      if (sid) await telephonyProvider(e.config).hangUp(sid);
    } catch (err) {
      log(e.callId, "hang-up at the carrier failed", { message: (err as Error).message });
    }
  }
}

/**
 * The caller spoke and the call ended inside the endpointing wait (they said their piece and hung
 * up): that speech never became a turn. It is transcribed (metered like any turn) and kept in the
 * transcript, without a reply. Bounded, so a slow provider does not hold the ending back.
 */
async function keepLastWords(e: Ending, pipe: CallPipeline): Promise<void> {
  const words = pipe.lastWords(Date.now());
  if (!words) return;
  try {
    const text = (await within(words.text, PENDING_SPEECH_MS, "transcription timed out")).trim();
    log(e.callId, "caller's last words", { audioMs: words.audioMs, recognized: !!text });
    if (text) pipe.context.addLastWords(text, words.startAt, words.endAt);
  } catch (err) {
    log(e.callId, "caller's last words not transcribed", { message: (err as Error).message });
  }
}
