// An agent's turn-taking settings (docs/agents.md, "Turn-taking") made concrete for the call's
// transcription: the quiet that ends a turn that sounds finished (the shortest wait) and one that
// does not (the longest), how readily a transcript counts as finished (eagerness), and what it
// takes to interrupt the agent. Null settings are the deployment's (CALL_* variables).
//
// The turn model behind "sounds finished" is the provider's where it has one (Flux's end-of-turn
// confidence, its thresholds set by eagerness), otherwise a detector on the transcript so far:
// a sentence that ends (normal), also a phrase that does not trail off (eager), nothing but the
// longest wait (patient).
import type { TurnTakingPlan } from "../../db/schema";
import type { AppConfig } from "../../env";
import type { SttStreamOptions } from "../../providers/types";
import { endsSentence } from "../turns";

export type Eagerness = TurnTakingPlan["eagerness"];

type TurnConfig = Pick<AppConfig, "CALL_ENDPOINTING_MS" | "CALL_PAUSE_MS" | "CALL_SPECULATION" | "CALL_MIN_INTERRUPTION_MS">;

export interface TurnPlan {
  eagerness: Eagerness;
  /** The quiet after which a turn that sounds finished ends. */
  minWaitMs: number;
  /** The quiet after which a turn ends anyway (batch and Nova); Flux's eot_timeout_ms when set. */
  maxWaitMs: number;
  /** Whether the agent set the longest wait (else Flux keeps its own 5 s timeout). */
  maxWaitSet: boolean;
  interruptionMinWords: number;
  interruptionMinMs: number;
}

/**
 * Flux's end-of-turn confidence thresholds by eagerness. Deepgram's defaults are eot 0.7 and no
 * eager events; it documents eot 0.5 to 0.9 and eager 0.3 to 0.9 (never above eot), and suggests
 * eager 0.3 to 0.5 for speculative replies.
 */
export const FLUX_THRESHOLDS: Record<Eagerness, { eot: number; eager: number }> = {
  patient: { eot: 0.85, eager: 0.65 },
  normal: { eot: 0.7, eager: 0.5 },
  eager: { eot: 0.6, eager: 0.4 },
};

export function turnPlanOf(plan: TurnTakingPlan, config: TurnConfig): TurnPlan {
  const maxWaitMs = plan.maxWaitMs ?? config.CALL_ENDPOINTING_MS;
  return {
    eagerness: plan.eagerness,
    minWaitMs: Math.min(plan.minWaitMs ?? config.CALL_PAUSE_MS, maxWaitMs),
    maxWaitMs,
    maxWaitSet: plan.maxWaitMs !== null,
    interruptionMinWords: plan.interruptionMinWords,
    interruptionMinMs: plan.interruptionMinMs ?? config.CALL_MIN_INTERRUPTION_MS,
  };
}

/** Batch transcription's voice activity: the turn ends after the longest wait, pauses (speculation) at the shortest. */
export function detectorWaits(plan: TurnPlan, speculation: boolean): { endpointingMs: number; pauseMs?: number } {
  return { endpointingMs: plan.maxWaitMs, ...(speculation && { pauseMs: plan.minWaitMs }) };
}

/** The streaming provider's turn parameters: Nova ends segments at the shortest wait, utterances at the longest; Flux by eagerness. */
export function streamTurnOptions(
  plan: TurnPlan,
  speculation: boolean,
): Pick<SttStreamOptions, "endpointingMs" | "utteranceEndMs" | "eotThreshold" | "eagerEotThreshold" | "eotTimeoutMs"> {
  const flux = FLUX_THRESHOLDS[plan.eagerness];
  return {
    endpointingMs: Math.max(10, plan.minWaitMs),
    utteranceEndMs: Math.max(1000, plan.maxWaitMs), // Deepgram's least
    eotThreshold: flux.eot,
    ...(speculation && { eagerEotThreshold: flux.eager }),
    ...(plan.maxWaitSet && { eotTimeoutMs: plan.maxWaitMs }),
  };
}

/** Last words that leave a phrase open: the caller is not done ("I'd like to, um"). */
const TRAILING = new Set(
  "and but or so because cause if when then that which who the a an to of for with from in on at by my your our their his her its is are was were i i'm we you um uh er erm like".split(
    " ",
  ),
);

/**
 * Whether a transcript so far sounds like a finished turn, by eagerness: `normal` when it ends a
 * sentence; `eager` also when it ends without trailing off (no comma, dash, ellipsis, filler or
 * connecting word last); `patient` never (the turn waits out the longest wait).
 */
export function soundsFinished(text: string, eagerness: Eagerness): boolean {
  if (eagerness === "patient") return false;
  if (endsSentence(text)) return true;
  if (eagerness !== "eager") return false;
  const t = text.trim();
  // A trailing comma, dash or ellipsis trails off; a final stop that ends no sentence is "Dr." or "J.".
  if (!t || /[,;:\-–—.…]["'”’)\]]*$/.test(t)) return false;
  const last = /([\p{L}']+)\W*$/u.exec(t.toLowerCase())?.[1] ?? "";
  return last !== "" && !TRAILING.has(last);
}
