// The TTS stage with a scripted synthesizer: every chunk's speech requested as it arrives, audio
// sent in chunk order, the first audio carrying the turn's latency, tool turns on the chunk they
// precede, the reply's end after its last audio, and cancellation.
import { describe, expect, it } from "vitest";
import type { FrameOf, ToolTurn } from "../../../../src/calls/pipeline/frames";
import { Pipeline } from "../../../../src/calls/pipeline/pipeline";
import { TtsStage } from "../../../../src/calls/pipeline/tts";
import { ProviderError } from "../../../../src/providers/http";
import { fakeClock, flushed, Probe } from "./audio";

interface Job {
  text: string;
  audio: (ms: number) => void;
  finish: () => void;
  fail: (e: unknown) => void;
  signal: AbortSignal;
}

/** 24 kHz PCM bytes of `ms` of a constant sample. */
const pcm24 = (ms: number) => new Uint8Array(new Int16Array((24_000 * ms) / 1000).fill(1000).buffer);

function setup() {
  const clock = fakeClock(100_000);
  const jobs: Job[] = [];
  const head = new Probe();
  const tail = new Probe();
  const tts = new TtsStage(
    (text, onAudio, signal) =>
      new Promise((finish, fail) => {
        jobs.push({ text, audio: (ms) => onAudio(pcm24(ms)), finish: () => finish(undefined), fail, signal });
        signal.addEventListener("abort", () => fail(new ProviderError("canceled", "cancelled")));
      }),
    8_000,
    clock,
  );
  const pipeline = new Pipeline([head, tts, tail], () => undefined);
  const text = (t: string, tools: ToolTurn[] = [], reply = 1) =>
    head.send({
      type: "llm-text",
      reply,
      text: t,
      tools,
      llmMs: 300,
      firstAt: 0,
      at: 0,
      timing: { speechEndAt: 99_000, endpointingMs: 250, sttMs: 40, discarded: 1 },
    });
  return { clock, jobs, head, tail, pipeline, text };
}

const tool = { role: "tool", text: "t", at: "", tool: {} } as unknown as ToolTurn;

describe("the TTS stage", () => {
  it("asks for each chunk's speech as it arrives and sends the audio in chunk order, the first carrying the latency", async () => {
    const { clock, jobs, tail, text, head } = setup();
    text("Sure,");
    text("it is booked.", [tool]);
    expect(jobs.map((j) => j.text)).toEqual(["Sure,", "it is booked."]); // both requested at once
    clock.t += 50;
    jobs[1]?.audio(200); // the second chunk's audio first: held back
    jobs[1]?.finish();
    await flushed();
    expect(tail.of("audio-out")).toHaveLength(0);
    clock.t += 150;
    jobs[0]?.audio(300);
    jobs[0]?.finish();
    await flushed();
    await flushed();
    const [first] = tail.of("first-audio") as FrameOf<"first-audio">[];
    // 100 200 − 99 000 = 1 200 ms voice to voice: 250 endpointing + 40 STT + 300 LLM + 200 TTS, the rest the platform's
    expect(first?.latency).toEqual({
      voiceToVoiceMs: 1200,
      endpointingMs: 250,
      sttMs: 40,
      llmMs: 300,
      ttsMs: 200,
      platformMs: 410,
      discardedTranscriptions: 1,
    });
    expect(tail.of("chunk-started").map((c) => [c.text, c.tools.length])).toEqual([
      ["Sure,", 0],
      ["it is booked.", 1],
    ]);
    const audio = tail.of("audio-out");
    expect(audio.map((a) => a.samples.length)).toEqual([2400, 1600]); // 8 kHz: 300 ms, then 200 ms
    expect(audio[1]?.playhead).toBe(100_200 + 500);
    head.send({ type: "llm-done", reply: 1, after: { ended: true, transfer: null }, tools: [] });
    await flushed();
    expect(tail.of("speech-done")).toEqual([
      { type: "speech-done", reply: 1, after: { ended: true, transfer: null }, tools: [], cut: false },
    ]);
  });

  it("an interruption cancels what is still being made: the requests abort, no more audio, the reply ends cut, and no error", async () => {
    const { jobs, tail, text, head, pipeline } = setup();
    text("First sentence.");
    text("Second sentence.");
    jobs[0]?.audio(100);
    await flushed();
    pipeline.push({ type: "interruption", reply: 1, at: 0 });
    jobs[1]?.audio(100);
    head.send({ type: "llm-done", reply: 1, after: { ended: false, transfer: null }, tools: [] });
    await flushed();
    await flushed();
    expect(jobs.every((j) => j.signal.aborted)).toBe(true);
    expect(tail.of("audio-out")).toHaveLength(1);
    expect(tail.of("speech-done")[0]?.cut).toBe(true);
    expect(tail.of("error")).toHaveLength(0);
  });

  it("a synthesis failure is a TTS error frame, and the rest of the reply is cancelled", async () => {
    const { jobs, tail, text, head } = setup();
    text("One.");
    text("Two.");
    head.send({ type: "llm-done", reply: 1, after: { ended: false, transfer: null }, tools: [] });
    jobs[0]?.fail(new ProviderError("upstream", "voice service down", 503));
    await flushed();
    await flushed();
    expect(tail.of("error")[0]).toMatchObject({ stage: "tts" });
    expect(jobs[1]?.signal.aborted).toBe(true);
    expect(tail.of("speech-done")[0]?.cut).toBe(true);
  });

  it("speaks known text: prepared audio as it is (no request), otherwise its sentences; no latency for either", async () => {
    const { jobs, tail, head } = setup();
    head.send({ type: "say", reply: 1, text: "Hello! How are you?", prepared: pcm24(100) });
    await flushed();
    await flushed();
    expect(jobs).toHaveLength(0);
    expect(tail.of("audio-out")[0]?.samples.length).toBe(800);
    expect(tail.of("first-audio")[0]?.latency).toBeNull();
    expect(tail.of("speech-done")[0]).toMatchObject({ reply: 1, cut: false });
    head.send({ type: "say", reply: 2, text: "Hello! How are you?" });
    expect(jobs.map((j) => j.text)).toEqual(["Hello!", "How are you?"]);
  });
});

describe("the TTS stage's speculative replies", () => {
  it("synthesizes nothing until the commit; then the latency counts the endpointing to the commit and only the LLM after it", async () => {
    const { clock, jobs, tail, head } = setup();
    head.send({ type: "reply", reply: 1, messages: [], timing: null, speculative: true });
    const timing = { speechEndAt: 100_000, endpointingMs: 110, sttMs: 0, discarded: 0 };
    head.send({ type: "llm-text", reply: 1, text: "Sure.", tools: [], llmMs: 200, firstAt: 100_200, at: 100_200, timing });
    head.send({ type: "llm-done", reply: 1, after: { ended: false, transfer: null }, tools: [] });
    expect(jobs).toHaveLength(0);
    clock.t = 100_260;
    head.send({ type: "commit", reply: 1, at: 100_260 });
    expect(jobs.map((j) => j.text)).toEqual(["Sure."]);
    clock.t = 100_400;
    jobs[0]?.audio(100);
    jobs[0]?.finish();
    await flushed();
    await flushed();
    // 400 ms voice to voice: 260 until the turn's end, no LLM left after it (its words were in at 200), 140 of speech
    expect(tail.of("first-audio")[0]?.latency).toMatchObject({
      voiceToVoiceMs: 400,
      endpointingMs: 260,
      llmMs: 0,
      ttsMs: 140,
      platformMs: 0,
    });
    expect(tail.of("speech-done")[0]).toMatchObject({ reply: 1, cut: false });
  });

  it("a discarded reply is never spoken: its held words are dropped and it ends cut", () => {
    const { jobs, tail, head } = setup();
    head.send({ type: "reply", reply: 2, messages: [], timing: null, speculative: true });
    head.send({ type: "llm-text", reply: 2, text: "Sure.", tools: [], llmMs: 200, firstAt: 0, at: 0, timing: null });
    head.send({ type: "discard", reply: 2 });
    head.send({ type: "llm-done", reply: 2, after: { ended: false, transfer: null }, tools: [] });
    expect(jobs).toHaveLength(0);
    expect(tail.of("audio-out")).toHaveLength(0);
    expect(tail.of("speech-done")).toEqual([
      { type: "speech-done", reply: 2, after: { ended: false, transfer: null }, tools: [], cut: true },
    ]);
  });
});
