import { and, eq, inArray, sql } from "drizzle-orm";
import { callFields, endedReasonOf, recordingOf, transcriptOf } from "../../../calls/views";
import type { Db } from "../../../db/client";
import { type Call, usageEvents } from "../../../db/schema";
import { toCredits } from "../../../metering/prices";

export interface CallUsage {
  stt: { quantity: number; micro: number };
  chat: { quantity: number; micro: number; promptTokens: number; completionTokens: number };
  tts: { quantity: number; micro: number };
}

const emptyUsage = (): CallUsage => ({
  stt: { quantity: 0, micro: 0 },
  chat: { quantity: 0, micro: 0, promptTokens: 0, completionTokens: 0 },
  tts: { quantity: 0, micro: 0 },
});

/** What each call consumed, from the usage log (successful uses only). */
export async function usageOf(db: Db, callIds: string[]): Promise<Map<string, CallUsage>> {
  const out = new Map<string, CallUsage>();
  if (callIds.length === 0) return out;
  const rows = await db
    .select({
      callId: usageEvents.callId,
      modality: usageEvents.modality,
      quantity: sql<string>`sum(${usageEvents.quantity})`,
      micro: sql<string>`sum(${usageEvents.costMicro})`,
      promptTokens: sql<string>`coalesce(sum(${usageEvents.promptTokens}), 0)`,
      completionTokens: sql<string>`coalesce(sum(${usageEvents.completionTokens}), 0)`,
    })
    .from(usageEvents)
    .where(and(inArray(usageEvents.callId, callIds), eq(usageEvents.status, 200)))
    .groupBy(usageEvents.callId, usageEvents.modality);
  for (const r of rows) {
    if (!r.callId) continue;
    const u = out.get(r.callId) ?? emptyUsage();
    const line = u[r.modality];
    line.quantity = Number(r.quantity);
    line.micro = Number(r.micro);
    if (r.modality === "chat") {
      u.chat.promptTokens = Number(r.promptTokens);
      u.chat.completionTokens = Number(r.completionTokens);
    }
    out.set(r.callId, u);
  }
  return out;
}

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
    ...endedReasonOf(call),
    createdAt: call.createdAt.toISOString(),
    transcript: transcriptOf(call.transcript),
    recording: recordingOf(call, origin),
    analysis: call.analysis ?? null,
    report: call.report ?? null,
    analysisError: call.analysisError,
    cost: {
      credits: toCredits(u.stt.micro + u.chat.micro + u.tts.micro),
      stt: { quantity: Math.round(u.stt.quantity / 100) / 10, unit: "seconds", credits: toCredits(u.stt.micro) },
      llm: {
        quantity: u.chat.quantity,
        unit: "tokens",
        credits: toCredits(u.chat.micro),
        promptTokens: u.chat.promptTokens,
        completionTokens: u.chat.completionTokens,
      },
      tts: { quantity: u.tts.quantity, unit: "characters", credits: toCredits(u.tts.micro) },
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
