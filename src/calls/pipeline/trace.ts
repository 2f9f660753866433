// A call's OpenTelemetry trace (docs/calls.md, "Tracing"), built by an observer of the pipeline's
// frames and exported once at the call's end (src/lib/otlp.ts): a span for the call, from connect
// to end; under it a span per agent reply, from the end of the caller's speech to the reply's first
// audio, with the latency parts as attributes; under each reply a span per provider request (STT,
// LLM, TTS). The providers' times are measured as the latency parts, not as timestamps, so their
// spans are laid end to end from the caller's speech end: endpointing → stt → llm → tts, and the
// rest of the reply (platformMs) after them. The trace id is the call id's 128 bits, so a call's
// trace is found by its id.
import type { Agent, Voice } from "../../db/schema";
import type { AppConfig } from "../../env";
import { type Attributes, exportSpans, newSpanId, type OtlpConfig, type Span, type SpanEvent, traceIdOf } from "../../lib/otlp";
import type { Providers } from "../../providers/registry";
import type { WorkersAi } from "../../providers/workers-ai";
import type { EndedReason } from "../states";
import type { TurnTaking } from "../turns";
import type { Frame, PipelineStage, ReplyTiming, TurnLatency } from "./frames";
import type { Clock, Observer } from "./pipeline";

/** Who served a stage's requests, as far as known when the call starts. */
export interface ProviderRef {
  provider?: string;
  model?: string;
}
export type TraceProviders = Partial<Record<PipelineStage, ProviderRef>>;

export interface CallTraceOptions {
  /** Where the trace goes (`otlpConfig(config)`); null, tracing is off: the observer does nothing. */
  otlp: OtlpConfig | null;
  callId: string;
  agentId: string;
  organizationId?: string;
  type: "phone" | "web";
  /** `outbound`, `inbound` or `web`. */
  direction?: string;
  clock: Clock;
  /** When the call connected (epoch ms): the call span's start. Default: now. */
  connectedAt?: number;
  providers?: TraceProviders;
  /** The exporter's fetch (a test's fake); default the global one. */
  fetch?: typeof fetch;
  /** Where an export failure is told (default console.log). */
  log?: (line: string) => void;
}

export interface CallTracer {
  /** For the pipeline's observers: sees every frame once. */
  observer: Observer;
  /** The trace as it would be exported now (the call span ending now). */
  spans(endedReason?: EndedReason): Span[];
  /** Ends the call span and exports the trace, once (later calls get the same promise). Never rejects. */
  finish(endedReason: EndedReason): Promise<void>;
}

/** Replies kept per call: past this, more are counted (`call.replies_dropped`), not traced. */
export const MAX_TRACED_REPLIES = 1000;
/** Transcripts waiting for their reply (a reply runs at a time; the rest queue behind it). */
const MAX_WAITING_TRANSCRIPTS = 32;
const STAGES: readonly PipelineStage[] = ["stt", "llm", "tts"];

interface Reply {
  reply: number;
  spanId: string;
  /** The end of the caller's speech. */
  startMs: number;
  timing: Pick<ReplyTiming, "endpointingMs" | "sttMs" | "discarded"> | null;
  turnTaking: TurnTaking | null;
  /** Its first audio frame sent, and the latency it was measured with. */
  firstAudioAt: number | null;
  latency: TurnLatency | null;
  /** Dropped before its first audio (an interruption): when. */
  droppedAt: number | null;
  interrupted: boolean;
}

export const NO_TRACE: CallTracer = { observer: () => {}, spans: () => [], finish: () => Promise.resolve() };

export function callTracer(o: CallTraceOptions): CallTracer {
  const { otlp, clock } = o;
  if (!otlp) return NO_TRACE;
  const traceId = traceIdOf(o.callId);
  const rootId = newSpanId();
  const connectedAt = o.connectedAt ?? clock.now();
  const transcripts: Array<{ speechEndAt: number; turnTaking: TurnTaking }> = [];
  const replies = new Map<number, Reply>();
  const events: SpanEvent[] = [];
  const errors: string[] = [];
  let interruptions = 0;
  let dropped = 0;
  let finished: Promise<void> | null = null;

  const track = (reply: Reply) => {
    if (replies.size >= MAX_TRACED_REPLIES) dropped++;
    else replies.set(reply.reply, reply);
  };

  const observer: Observer = (frame: Frame) => {
    if (finished) return;
    switch (frame.type) {
      case "transcript":
        // The context answers only a transcript with words; its reply frame carries the same speech end.
        if (frame.text && transcripts.length < MAX_WAITING_TRANSCRIPTS)
          transcripts.push({ speechEndAt: frame.end.speechEndAt, turnTaking: frame.turnTaking });
        return;
      case "reply": {
        const { timing } = frame;
        if (!timing || replies.has(frame.reply)) return;
        const i = transcripts.findIndex((t) => t.speechEndAt === timing.speechEndAt);
        const turnTaking = i >= 0 ? (transcripts.splice(0, i + 1).at(-1)?.turnTaking ?? null) : null;
        track({
          reply: frame.reply,
          spanId: newSpanId(),
          startMs: timing.speechEndAt,
          timing,
          turnTaking,
          firstAudioAt: null,
          latency: null,
          droppedAt: null,
          interrupted: false,
        });
        return;
      }
      case "first-audio": {
        const known = replies.get(frame.reply);
        if (known) {
          if (known.firstAudioAt === null && known.droppedAt === null) {
            known.firstAudioAt = frame.at;
            known.latency = frame.latency;
          }
        } else if (frame.latency) {
          // Its reply frame was not seen: the speech end is where the latency counts from.
          track({
            reply: frame.reply,
            spanId: newSpanId(),
            startMs: frame.at - frame.latency.voiceToVoiceMs,
            timing: null,
            turnTaking: null,
            firstAudioAt: frame.at,
            latency: frame.latency,
            droppedAt: null,
            interrupted: false,
          });
        }
        return;
      }
      case "interruption": {
        interruptions++;
        events.push({ name: "interruption", at: frame.at, attributes: { "voice.reply": frame.reply } });
        const r = replies.get(frame.reply);
        if (r) {
          r.interrupted = true;
          if (r.firstAudioAt === null) r.droppedAt ??= frame.at;
        }
        return;
      }
      case "hangup":
        events.push({ name: "hangup", at: frame.at });
        return;
      case "error":
        errors.push(`${frame.stage}: ${frame.error instanceof Error ? frame.error.name : "error"}`);
        return;
      default:
        return;
    }
  };

  const spans = (endedReason?: EndedReason): Span[] => {
    const now = clock.now();
    const root: Span = {
      traceId,
      spanId: rootId,
      name: "call",
      kind: "server",
      startMs: connectedAt,
      endMs: Math.max(connectedAt, now),
      attributes: {
        "call.id": o.callId,
        "call.agent_id": o.agentId,
        "call.organization_id": o.organizationId,
        "call.type": o.type,
        "call.direction": o.direction,
        "call.ended_reason": endedReason,
        "call.replies": replies.size,
        "call.replies_dropped": dropped || undefined,
        "call.interruptions": interruptions,
      },
      events: [...events],
      status: errors.length ? { code: "error", message: errors.join("; ") } : undefined,
    };
    const out = [root];
    for (const r of replies.values()) out.push(...replySpans(r, now));
    return out;
  };

  const replySpans = (r: Reply, now: number): Span[] => {
    const endMs = Math.max(r.startMs, r.firstAudioAt ?? r.droppedAt ?? now);
    const l = r.latency;
    const endpointingMs = l?.endpointingMs ?? r.timing?.endpointingMs ?? 0;
    const attributes: Attributes = {
      "voice.reply": r.reply,
      "voice.first_audio": r.firstAudioAt !== null,
      "voice.interrupted": r.interrupted,
      "voice.turn_ended_by": r.turnTaking?.endedBy,
      "voice.discarded_transcriptions": l?.discardedTranscriptions ?? r.timing?.discarded,
    };
    if (l) {
      Object.assign(attributes, {
        "voice.voice_to_voice_ms": ms(l.voiceToVoiceMs),
        "voice.endpointing_ms": ms(endpointingMs),
        "voice.stt_ms": ms(l.sttMs),
        "voice.llm_ms": ms(l.llmMs),
        "voice.tts_ms": ms(l.ttsMs),
        "voice.platform_ms": ms(l.platformMs),
      });
    }
    const turn: Span = {
      traceId,
      spanId: r.spanId,
      parentSpanId: rootId,
      name: "turn",
      kind: "internal",
      startMs: r.startMs,
      endMs,
      attributes,
    };
    // Each provider's time, end to end after the endpointing wait, inside the turn. Without a first
    // audio only the transcription's time is known.
    const parts: Partial<Record<PipelineStage, number>> = l ? { stt: l.sttMs, llm: l.llmMs, tts: l.ttsMs } : { stt: r.timing?.sttMs };
    const children: Span[] = [];
    let cursor = r.startMs + endpointingMs;
    for (const stage of STAGES) {
      const took = parts[stage];
      if (took === undefined) continue;
      const start = Math.min(cursor, endMs);
      cursor += Math.max(0, took);
      children.push(providerSpan(r, stage, start, Math.min(cursor, endMs), took));
    }
    return [turn, ...children];
  };

  const providerSpan = (r: Reply, stage: PipelineStage, startMs: number, endMs: number, took: number): Span => {
    const p = o.providers?.[stage];
    const attributes: Attributes = {
      "voice.stage": stage,
      "voice.provider": p?.provider,
      "voice.model": p?.model,
      "voice.duration_ms": ms(took),
      "voice.reply": r.reply,
      // Laid out from the latency parts, not timestamps taken around the request.
      "voice.synthesized": true,
    };
    if (stage === "llm") Object.assign(attributes, { "gen_ai.operation.name": "chat", "gen_ai.request.model": p?.model });
    return { traceId, spanId: newSpanId(), parentSpanId: r.spanId, name: stage, kind: "client", startMs, endMs, attributes };
  };

  const finish = (endedReason: EndedReason): Promise<void> => {
    if (finished) return finished;
    const trace = spans(endedReason);
    finished = exportSpans(otlp, trace, o.fetch, { log: o.log }).then(
      () => undefined,
      () => undefined,
    );
    return finished;
  };

  return { observer, spans, finish };
}

/** Latency parts as whole milliseconds, so an attribute keeps one type across spans. */
const ms = (v: number): number => Math.round(v);

/** The providers a call's stages use, as `callPorts` picks them (src/calls/pipeline/providers.ts). */
export function traceProviders(
  config: AppConfig,
  providers: Providers,
  agent: Pick<Agent, "llmModel">,
  voice: Pick<Voice, "provider"> | null,
  ai?: WorkersAi,
): TraceProviders {
  const streaming = config.CALL_TRANSCRIPTION === "batch" ? null : providers.streamingStt(ai);
  const voiceProvider = voice?.provider ?? "openai";
  return {
    stt: streaming
      ? { provider: streaming.name, model: config.STREAMING_STT_MODEL }
      : { provider: nameOf(() => providers.stt().name), model: config.DEFAULT_STT_MODEL },
    llm: { provider: nameOf(() => providers.chat().name), model: agent.llmModel },
    tts: { provider: voiceProvider, model: providers.ttsModel(voiceProvider) },
  };
}

/** A provider's name; unknown when it is not configured (its requests fail, and say so). */
function nameOf(name: () => string): string | undefined {
  try {
    return name();
  } catch {
    return undefined;
  }
}
