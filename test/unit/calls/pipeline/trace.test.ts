// A call's trace (src/calls/pipeline/trace.ts): scripted frames on a fake clock into the tracer's
// observer, then the spans it exports: the call, a turn per reply from the caller's speech end to
// the first audio, and the provider requests laid end to end inside each turn.
import { describe, expect, it } from "vitest";
import type { Frame, FrameOf, TurnLatency } from "../../../../src/calls/pipeline/frames";
import { Pipeline } from "../../../../src/calls/pipeline/pipeline";
import { type CallTraceOptions, callTracer, traceProviders } from "../../../../src/calls/pipeline/trace";
import type { TurnTaking } from "../../../../src/calls/turns";
import { envSchema } from "../../../../src/env";
import type { OtlpConfig, Span } from "../../../../src/lib/otlp";
import { providersOf } from "../../../../src/providers/registry";

const CALL_ID = "0196f3a2-7b4c-7d8e-9f01-23456789abcd";
const T0 = 1_767_225_600_000; // connected
const OTLP: OtlpConfig = { url: "http://collector.test/v1/traces", headers: { "x-api-key": "k" }, serviceName: "svc", timeoutMs: 1000 };
const PROVIDERS = {
  stt: { provider: "deepgram", model: "flux-general-en" },
  llm: { provider: "openai-compatible", model: "gpt-4o-mini" },
  tts: { provider: "cartesia", model: "sonic-2" },
};

function setup(over: Partial<CallTraceOptions> = {}) {
  let now = T0;
  const clock = { now: () => now };
  const posted: Array<{ url: string; body: unknown; headers: Record<string, string> }> = [];
  const fake = (async (url: string | URL | Request, init?: RequestInit) => {
    posted.push({ url: String(url), body: JSON.parse(String(init?.body)), headers: init?.headers as Record<string, string> });
    return new Response("{}", { status: 200 });
  }) as typeof fetch;
  const tracer = callTracer({
    otlp: OTLP,
    callId: CALL_ID,
    agentId: "agent-1",
    organizationId: "org-1",
    type: "phone",
    direction: "outbound",
    clock,
    connectedAt: T0,
    providers: PROVIDERS,
    fetch: fake,
    ...over,
  });
  const feed = (...frames: Frame[]) => {
    for (const f of frames) tracer.observer(f);
  };
  return { tracer, feed, posted, at: (t: number) => (now = t) };
}

const turnTaking = (endedBy: TurnTaking["endedBy"]): TurnTaking => ({
  waitMs: 200,
  endedBy,
  speculations: 1,
  discarded: 0,
  committed: false,
  transcriptions: 1,
});

/** The caller's turn: its transcript and the context's reply request for it. */
function callerTurn(
  reply: number,
  speechEndAt: number,
  endpointingMs: number,
  sttMs: number,
  endedBy: TurnTaking["endedBy"] = "model",
): Frame[] {
  const end = {
    type: "turn-end" as const,
    audio: new Int16Array(0),
    speechStartAt: speechEndAt - 1500,
    speechEndAt,
    at: speechEndAt + endpointingMs,
    pause: null,
  };
  return [
    { type: "transcript", text: "hello there", end, turnTaking: turnTaking(endedBy), sttMs },
    { type: "reply", reply, messages: [], timing: { speechEndAt, endpointingMs, sttMs, discarded: 0 } },
  ];
}

function latency(l: Omit<TurnLatency, "platformMs" | "voiceToVoiceMs">, voiceToVoiceMs: number): TurnLatency {
  return { ...l, voiceToVoiceMs, platformMs: voiceToVoiceMs - ((l.endpointingMs ?? 0) + l.sttMs + l.llmMs + l.ttsMs) };
}

const attr = (s: Span | undefined, key: string) => s?.attributes[key];
const byName = (spans: Span[], name: string) => spans.filter((s) => s.name === name);

describe("a call's trace", () => {
  it("is a call span, a turn per reply from the speech end to the first audio, and stt → llm → tts inside it", async () => {
    const { tracer, feed, posted, at } = setup();
    // The first message: known text, no caller speech before it, so no turn.
    feed({ type: "say", reply: 1, text: "Hi!" }, { type: "first-audio", reply: 1, at: T0 + 400, latency: null });
    // Reply 2: speech ends at +5000; 200 endpointing, 100 stt, 300 llm, 250 tts, first audio at +6000 (150 platform).
    feed(...callerTurn(2, T0 + 5000, 200, 100));
    const l2 = latency({ endpointingMs: 200, sttMs: 100, llmMs: 300, ttsMs: 250, discardedTranscriptions: 0 }, 1000);
    feed({ type: "first-audio", reply: 2, at: T0 + 6000, latency: l2 });
    feed({ type: "interruption", reply: 2, at: T0 + 7000 });
    at(T0 + 60_000);
    await tracer.finish("customer-ended-call");

    expect(posted).toHaveLength(1);
    const spans = tracer.spans("customer-ended-call");
    const [call] = byName(spans, "call");
    const turns = byName(spans, "turn");
    expect(spans).toHaveLength(1 + 1 + 3);
    expect(call).toMatchObject({
      traceId: "0196f3a27b4c7d8e9f0123456789abcd",
      kind: "server",
      startMs: T0,
      endMs: T0 + 60_000,
      attributes: {
        "call.id": CALL_ID,
        "call.agent_id": "agent-1",
        "call.organization_id": "org-1",
        "call.type": "phone",
        "call.direction": "outbound",
        "call.ended_reason": "customer-ended-call",
        "call.replies": 1,
        "call.interruptions": 1,
      },
      events: [{ name: "interruption", at: T0 + 7000, attributes: { "voice.reply": 2 } }],
    });
    expect(call?.parentSpanId).toBeUndefined();
    expect(call?.status).toBeUndefined();

    const [turn] = turns;
    expect(turn).toMatchObject({
      parentSpanId: call?.spanId,
      traceId: call?.traceId,
      kind: "internal",
      startMs: T0 + 5000,
      endMs: T0 + 6000,
    });
    expect(turn?.attributes).toEqual({
      "voice.reply": 2,
      "voice.first_audio": true,
      "voice.interrupted": true,
      "voice.turn_ended_by": "model",
      "voice.discarded_transcriptions": 0,
      "voice.voice_to_voice_ms": 1000,
      "voice.endpointing_ms": 200,
      "voice.stt_ms": 100,
      "voice.llm_ms": 300,
      "voice.tts_ms": 250,
      "voice.platform_ms": 150,
    });

    const children = spans.filter((s) => s.parentSpanId === turn?.spanId);
    expect(children.map((s) => [s.name, s.kind, s.startMs - T0, s.endMs - T0])).toEqual([
      ["stt", "client", 5200, 5300],
      ["llm", "client", 5300, 5600],
      ["tts", "client", 5600, 5850],
    ]);
    expect(children.map((s) => [attr(s, "voice.provider"), attr(s, "voice.model")])).toEqual([
      ["deepgram", "flux-general-en"],
      ["openai-compatible", "gpt-4o-mini"],
      ["cartesia", "sonic-2"],
    ]);
    expect(attr(children[1], "gen_ai.request.model")).toBe("gpt-4o-mini");
    expect(new Set(spans.map((s) => s.spanId)).size).toBe(spans.length);
    for (const s of spans) expect(s.spanId).toMatch(/^[0-9a-f]{16}$/);
  });

  it("exports the trace once, as OTLP JSON to the collector, at the end", async () => {
    const { tracer, feed, posted, at } = setup();
    feed(...callerTurn(1, T0 + 2000, 300, 120, "silence"));
    feed({
      type: "first-audio",
      reply: 1,
      at: T0 + 3000,
      latency: latency({ endpointingMs: 300, sttMs: 120, llmMs: 280, ttsMs: 200, discardedTranscriptions: 0 }, 1000),
    });
    at(T0 + 10_000);
    const first = tracer.finish("agent-ended-call");
    expect(tracer.finish("silence-timeout")).toBe(first);
    await first;
    feed(...callerTurn(2, T0 + 11_000, 300, 120)); // after the end: not traced
    expect(posted).toHaveLength(1);
    const { url, body, headers } = posted[0] as (typeof posted)[number];
    expect(url).toBe(OTLP.url);
    expect(headers).toMatchObject({ "x-api-key": "k", "content-type": "application/json" });
    const sent = (body as { resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<Record<string, unknown>> }> }> }).resourceSpans[0]
      ?.scopeSpans[0]?.spans;
    expect(sent?.map((s) => s.name)).toEqual(["call", "turn", "stt", "llm", "tts"]);
    expect(sent?.[0]).toMatchObject({
      traceId: "0196f3a27b4c7d8e9f0123456789abcd",
      startTimeUnixNano: `${T0}000000`,
      endTimeUnixNano: `${T0 + 10_000}000000`,
    });
    expect(sent?.[0]?.attributes).toContainEqual({ key: "call.ended_reason", value: { stringValue: "agent-ended-call" } });
    expect(sent?.[1]).toMatchObject({
      parentSpanId: sent?.[0]?.spanId,
      startTimeUnixNano: `${T0 + 2000}000000`,
      endTimeUnixNano: `${T0 + 3000}000000`,
    });
    expect(sent?.[1]?.attributes).toContainEqual({ key: "voice.voice_to_voice_ms", value: { intValue: "1000" } });
    expect(sent?.[2]).toMatchObject({ parentSpanId: sent?.[1]?.spanId, kind: 3 });
  });

  it("closes a reply cut before its first audio at the interruption, and one still going at the end, with what is known", () => {
    const { tracer, feed, at } = setup();
    feed(...callerTurn(1, T0 + 1000, 200, 100));
    feed({ type: "interruption", reply: 1, at: T0 + 1500 });
    feed({ type: "first-audio", reply: 1, at: T0 + 1600, latency: null }); // too late: it was dropped
    feed(...callerTurn(2, T0 + 4000, 250, 50));
    at(T0 + 4500);
    const spans = tracer.spans("customer-ended-call");
    const turns = byName(spans, "turn");
    expect(turns.map((t) => [t.startMs - T0, t.endMs - T0, attr(t, "voice.first_audio"), attr(t, "voice.interrupted")])).toEqual([
      [1000, 1500, false, true],
      [4000, 4500, false, false],
    ]);
    expect(attr(turns[0], "voice.voice_to_voice_ms")).toBeUndefined();
    // Only the transcription's time is known: its span alone.
    expect(spans.filter((s) => s.parentSpanId === turns[1]?.spanId).map((s) => [s.name, s.startMs - T0, s.endMs - T0])).toEqual([
      ["stt", 4250, 4300],
    ]);
    expect(byName(spans, "call")[0]?.attributes["call.interruptions"]).toBe(1);
  });

  it("keeps provider spans inside their turn when the parts add up to more than it (platformMs below zero)", () => {
    const { tracer, feed } = setup();
    feed(...callerTurn(1, T0 + 1000, 0, 400));
    feed({ type: "first-audio", reply: 1, at: T0 + 1800, latency: latency({ endpointingMs: 0, sttMs: 400, llmMs: 300, ttsMs: 200 }, 800) });
    const spans = tracer.spans();
    const [turn] = byName(spans, "turn");
    expect(attr(turn, "voice.platform_ms")).toBe(-100);
    const children = spans.filter((s) => s.parentSpanId === turn?.spanId);
    expect(children.map((s) => [s.name, s.startMs - T0, s.endMs - T0])).toEqual([
      ["stt", 1000, 1400],
      ["llm", 1400, 1700],
      ["tts", 1700, 1800],
    ]);
    expect(attr(children[2], "voice.duration_ms")).toBe(200);
  });

  it("matches replies to their transcripts by speech end, queued turns included; a reply frame it missed comes from its latency", () => {
    const { tracer, feed } = setup();
    const [t1, r1] = callerTurn(1, T0 + 1000, 200, 100, "sentence") as [Frame, Frame];
    const [t2, r2] = callerTurn(2, T0 + 3000, 500, 100, "silence") as [Frame, Frame];
    // The caller's second turn ends while the first reply runs: its transcript waits in the context.
    // A transcript without words gets no reply (the context drops it).
    const empty = { ...(callerTurn(9, T0 + 3500, 0, 0)[0] as FrameOf<"transcript">), text: "" };
    feed(t1, r1, t2, empty);
    feed({
      type: "first-audio",
      reply: 1,
      at: T0 + 2000,
      latency: latency({ endpointingMs: 200, sttMs: 100, llmMs: 300, ttsMs: 200 }, 1000),
    });
    feed(r2, {
      type: "first-audio",
      reply: 2,
      at: T0 + 4500,
      latency: latency({ endpointingMs: 500, sttMs: 100, llmMs: 300, ttsMs: 200 }, 1500),
    });
    feed({
      type: "first-audio",
      reply: 3,
      at: T0 + 9000,
      latency: latency({ endpointingMs: 100, sttMs: 100, llmMs: 100, ttsMs: 100 }, 600),
    });
    const turns = byName(tracer.spans(), "turn");
    expect(turns.map((t) => [attr(t, "voice.reply"), attr(t, "voice.turn_ended_by"), t.startMs - T0, t.endMs - T0])).toEqual([
      [1, "sentence", 1000, 2000],
      [2, "silence", 3000, 4500],
      [3, undefined, 8400, 9000],
    ]);
  });

  it("marks the call span an error when a stage failed, and records the hang-up", () => {
    const { tracer, feed } = setup();
    feed({ type: "hangup", at: T0 + 100 }, { type: "error", stage: "tts", error: new TypeError("socket closed: key=secret") });
    const [call] = byName(tracer.spans("tts-provider-error"), "call");
    expect(call?.status).toEqual({ code: "error", message: "tts: TypeError" });
    expect(call?.events).toEqual([{ name: "hangup", at: T0 + 100 }]);
  });

  it("sees the frames as a pipeline observer", () => {
    const { tracer } = setup();
    const p = new Pipeline([], () => {}, [tracer.observer]);
    for (const f of callerTurn(1, T0 + 1000, 200, 100)) p.push(f);
    p.push({
      type: "first-audio",
      reply: 1,
      at: T0 + 1800,
      latency: latency({ endpointingMs: 200, sttMs: 100, llmMs: 200, ttsMs: 200 }, 800),
    });
    p.push({ type: "interruption", reply: 1, at: T0 + 2000 });
    const spans = tracer.spans();
    expect(byName(spans, "turn")).toHaveLength(1);
    expect(byName(spans, "call")[0]?.attributes["call.interruptions"]).toBe(1);
  });

  it("does nothing without a collector", async () => {
    const { tracer, feed, posted } = setup({ otlp: null });
    feed(...callerTurn(1, T0 + 1000, 200, 100));
    expect(tracer.spans()).toEqual([]);
    await tracer.finish("customer-ended-call");
    expect(posted).toEqual([]);
  });

  it("never rejects when the collector fails", async () => {
    const lines: string[] = [];
    const failing = (async () => {
      throw new TypeError("network down");
    }) as typeof fetch;
    const { tracer, feed } = setup({ fetch: failing, log: (l) => lines.push(l) });
    feed(...callerTurn(1, T0 + 1000, 200, 100));
    await expect(tracer.finish("customer-ended-call")).resolves.toBeUndefined();
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain("x-api-key");
  });
});

describe("the providers a trace names", () => {
  const base = { DATABASE_URL: "postgres://u@h/db", UPSTASH_REDIS_REST_URL: "https://r.example", UPSTASH_REDIS_REST_TOKEN: "t" };
  const kek = `k1:${btoa(String.fromCharCode(...new Uint8Array(32)))}`;
  const parse = (env: Record<string, string>) => envSchema.parse({ ...base, SECRETS_KEK: kek, ...env });

  it("are the stages' own: streaming or batch transcription, the agent's model, the voice's provider", () => {
    const streaming = parse({ DEEPGRAM_API_KEY: "d", OPENAI_API_KEY: "o" });
    expect(traceProviders(streaming, providersOf(streaming), { llmModel: "gpt-4.1-mini" }, { provider: "elevenlabs" })).toEqual({
      stt: { provider: "deepgram", model: "flux-general-en" },
      llm: { provider: "openai-compatible", model: "gpt-4.1-mini" },
      tts: { provider: "elevenlabs", model: "eleven_multilingual_v2" },
    });
    const batch = parse({ CALL_TRANSCRIPTION: "batch", DEEPGRAM_API_KEY: "d" });
    expect(traceProviders(batch, providersOf(batch), { llmModel: "m" }, null)).toEqual({
      stt: { provider: undefined, model: "whisper-1" }, // no OPENAI_API_KEY: not configured
      llm: { provider: undefined, model: "m" },
      tts: { provider: "openai", model: "tts-1" },
    });
  });
});
