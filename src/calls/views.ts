// A call as the API shows it and as webhooks carry it: one mapping from the row.
import type { Call, TranscriptTurn } from "../db/schema";
import type { EventData } from "../webhooks/payload";
import { faultOf } from "./states";

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
    startedAt: call.startedAt?.toISOString() ?? null,
    endedAt: call.endedAt?.toISOString() ?? null,
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

export const endedReasonOf = (call: Call) =>
  call.endedReason
    ? { endedReason: call.endedReason, endedReasonCategory: faultOf(call.endedReason) }
    : { endedReason: null, endedReasonCategory: null };
