// A call as the API and the dashboard show it: the row and its usage (src/calls/service.ts reads
// both), mapped without a query. The phone numbers' view is here too.
import type { Call, PhoneNumber } from "../db/schema";
import { toCredits } from "../lib/credits";
import { type CallUsage, emptyUsage } from "./service";
import { callFields, recordingOf, transcriptOf } from "./views";

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : Math.round(((s[mid - 1] as number) + (s[mid] as number)) / 2);
};

export function toCallView(call: Call, usage: CallUsage | undefined, origin: string) {
  const u = usage ?? emptyUsage();
  const measured = call.transcript.flatMap((t) => (t.latency ? [t.latency] : []));
  return {
    ...callFields(call),
    type: call.type,
    createdAt: call.createdAt.toISOString(),
    transcript: transcriptOf(call.transcript),
    toolCallCount: call.transcript.filter((t) => t.role === "tool").length,
    answeredBy: call.answeredBy ?? null,
    recording: recordingOf(call, origin),
    analysis: call.analysis ?? null,
    report: call.report ?? null,
    analysisError: call.analysisError,
    cost: {
      credits: toCredits(u.stt.micro + u.chat.micro + u.tts.micro + u.embedding.micro),
      stt: { quantity: Math.round(u.stt.quantity / 100) / 10, unit: "seconds", credits: toCredits(u.stt.micro) },
      llm: {
        quantity: u.chat.quantity,
        unit: "tokens",
        credits: toCredits(u.chat.micro),
        promptTokens: u.chat.promptTokens,
        completionTokens: u.chat.completionTokens,
      },
      tts: { quantity: u.tts.quantity, unit: "characters", credits: toCredits(u.tts.micro) },
      knowledge: { quantity: u.embedding.quantity, unit: "tokens", credits: toCredits(u.embedding.micro) },
    },
    latency:
      measured.length > 0
        ? {
            turns: measured.length,
            voiceToVoiceMsP50: median(measured.map((l) => l.voiceToVoiceMs)),
            platformMsP50: median(measured.map((l) => l.platformMs)),
          }
        : null,
    variables: call.variables,
    metadata: call.metadata,
  };
}

export type CallView = ReturnType<typeof toCallView>;

export const toPhoneNumberView = (p: PhoneNumber) => ({
  id: p.id,
  number: p.number,
  provider: p.provider,
  label: p.label,
  agentId: p.agentId,
  createdAt: p.createdAt.toISOString(),
});
