// A call as the API shows it and as webhooks carry it: one mapping from the row.
import type { Call, TranscriptTurn } from "../db/schema";
import type { EventData } from "../webhooks/payload";
import { faultOf, TERMINAL } from "./states";

export const RECORDING_PATH = (callId: string) => `/v1/calls/${callId}/recording`;

export const durationOf = (call: Pick<Call, "startedAt" | "endedAt">): number | null =>
  call.startedAt && call.endedAt ? Math.max(0, Math.round((call.endedAt.getTime() - call.startedAt.getTime()) / 100) / 10) : null;

/** Who a transcript line is from; tool turns (docs/tools.md) are `Tool: <name>: ok (120 ms)`. */
const SPEAKERS = { agent: "Agent", user: "User", tool: "Tool" } as const;

/** Turns in the order they were spoken (a reply can finish after the caller began talking over it). */
export function transcriptOf(unordered: TranscriptTurn[]) {
  const turns = [...unordered].sort((a, b) => a.startMs - b.startMs);
  return {
    fullText: turns.map((t) => `${SPEAKERS[t.role]}: ${t.text}`).join("\n"),
    turns: turns.map((t) => ({
      role: t.role,
      text: t.text,
      startMs: t.startMs,
      endMs: t.endMs,
      ...(t.interrupted ? { interrupted: true as const } : {}),
      ...(t.dtmf ? { dtmf: t.dtmf } : {}),
      ...(t.tool ? { tool: t.tool } : {}),
      ...(t.latency ? { latency: t.latency } : {}),
    })),
  };
}

/** The transcript as webhooks carry it: a tool turn's summary (which tool, how it went), not its arguments and result. */
function eventTranscriptOf(turns: TranscriptTurn[]) {
  const { fullText, turns: ordered } = transcriptOf(turns);
  return {
    fullText,
    turns: ordered.map(({ tool, ...turn }) =>
      tool ? { ...turn, tool: { name: tool.name, outcome: tool.outcome, latencyMs: tool.latencyMs, statusCode: tool.statusCode } } : turn,
    ),
  };
}

/** Why the call ended, and whose fault it was (docs/calls.md, "Statuses"); null while it runs. */
export const endedReasonOf = (call: Pick<Call, "endedReason">) =>
  call.endedReason
    ? { endedReason: call.endedReason, endedReasonCategory: faultOf(call.endedReason) }
    : { endedReason: null, endedReasonCategory: null };

/** Where the agent's transfer_call handed the caller on; `outcome` and `connectedSeconds` null until the leg ended. */
export const transferOf = (call: Pick<Call, "transfer">) =>
  call.transfer
    ? { ...call.transfer, outcome: call.transfer.outcome ?? null, connectedSeconds: call.transfer.connectedSeconds ?? null }
    : null;

/** Whether the caller said a word: the analysis needs one (docs/calls.md, "Analysis"). */
export const callerSpoke = (turns: readonly TranscriptTurn[]) => turns.some((t) => t.role === "user" && t.text.trim() !== "");

/**
 * Why an ended call has no analysis and never will (docs/calls.md, "Analysis"): it never connected,
 * or the caller said nothing. Null while one may come, once it is there, or when it failed (`analysisError`).
 */
export function analysisSkippedOf(
  call: Pick<Call, "status" | "startedAt" | "transcript" | "analysis" | "analysisError">,
): "not-connected" | "no-caller-speech" | null {
  if (!TERMINAL.has(call.status) || call.analysis || call.analysisError) return null;
  if (!call.startedAt) return "not-connected";
  return callerSpoke(call.transcript) ? null : "no-caller-speech";
}

/** The call's own fields, the same in the API's view and in the webhooks' `call` (spec: "Call (as it appears in webhook payloads)"). */
export function callFields(call: Call) {
  return {
    id: call.id,
    status: call.status,
    direction: call.direction,
    durationSeconds: durationOf(call),
    fromNumber: call.fromNumber,
    toNumber: call.toNumber,
    agentId: call.agentId,
    agentName: call.agentName,
    agentVersion: call.agentVersion,
    startedAt: call.startedAt?.toISOString() ?? null,
    endedAt: call.endedAt?.toISOString() ?? null,
    ...endedReasonOf(call),
    transfer: transferOf(call),
    analysisSkipped: analysisSkippedOf(call),
    campaignId: call.campaignId,
    campaignRecipientId: call.campaignRecipientId,
  };
}

export const recordingOf = (call: Call, origin: string) =>
  call.recordingKey ? { url: `${origin}${RECORDING_PATH(call.id)}`, durationSeconds: call.recordingSeconds ?? 0 } : null;

/** The webhook payload's data for a call event. */
export function callEventData(call: Call, origin: string): EventData {
  return {
    call: callFields(call),
    transcript: call.status === "queued" || call.status === "ringing" ? null : eventTranscriptOf(call.transcript),
    recording: recordingOf(call, origin),
    analysis: call.analysis ?? null,
    report: call.report
      ? { successScore: call.report.successScore, criteriaResults: call.report.criteriaResults, extractedData: call.report.extractedData }
      : null,
    metadata: call.metadata,
  };
}
