// The TTS stage with a voice that takes text as it is written (input streaming, a Cartesia
// context): one scripted session per reply, fed each piece as it arrives, its audio sent as it
// comes; the first audio before the first sentence is complete, barge-in cancelling the session,
// speculative replies held until their commit, known text, tool turns, and where each piece's
// words sit on the timeline.
import { describe, expect, it } from "vitest";
import type { Frame, FrameOf, ToolTurn } from "../../../../src/calls/pipeline/frames";
import { Pipeline } from "../../../../src/calls/pipeline/pipeline";
import { type Synthesize, TtsStage } from "../../../../src/calls/pipeline/tts";
import { type OpenSpeech, SPOKEN_CHARS_PER_SECOND } from "../../../../src/calls/pipeline/tts-input";
import { heardText } from "../../../../src/calls/utterance";
import { ProviderError } from "../../../../src/providers/http";
import { fakeClock, flushed, Probe } from "./audio";

/** 24 kHz PCM bytes of `ms` of a constant sample. */
const pcm24 = (ms: number) => new Uint8Array(new Int16Array((24_000 * ms) / 1000).fill(1000).buffer);
const settle = async () => {
  for (let i = 0; i < 4; i++) await flushed();
};

/** A provider session the test drives: what was pushed, and audio when the test says. */
class FakeSession {
  readonly pushed: string[] = [];
  ended = false;
  private readonly items: Uint8Array[] = [];
  private done = false;
  private failure: unknown = null;
  private wake: (() => void) | null = null;

  constructor(readonly signal: AbortSignal) {
    signal.addEventListener("abort", () => this.fail(new ProviderError("canceled", "cancelled")));
  }

  push = (text: string) => {
    if (this.ended) throw new Error("pushed after the end");
    this.pushed.push(text);
  };
  end = () => {
    this.ended = true;
  };
  audio = (async function* (self: FakeSession) {
    for (;;) {
      const next = self.items.shift();
      if (next) yield next;
      else if (self.failure) throw self.failure;
      else if (self.done) return;
      else await new Promise<void>((r) => (self.wake = r));
    }
  })(this);

  speak(ms: number) {
    this.items.push(pcm24(ms));
    this.poke();
  }
  finish() {
    this.done = true;
    this.poke();
  }
  fail(err: unknown) {
    this.failure ??= err;
    this.poke();
  }
  private poke() {
    const w = this.wake;
    this.wake = null;
    w?.();
  }
}

const TIMING = { speechEndAt: 99_000, endpointingMs: 250, sttMs: 40, discarded: 0 };

function setup() {
  const clock = fakeClock(100_000);
  const sessions: FakeSession[] = [];
  const chunkRequests: string[] = [];
  const head = new Probe();
  const tail = new Probe();
  const synthesize: Synthesize = async (text) => {
    chunkRequests.push(text);
  };
  const openSpeech: OpenSpeech = (signal) => {
    const s = new FakeSession(signal);
    sessions.push(s);
    return s;
  };
  const tts = new TtsStage(synthesize, 8_000, clock, openSpeech);
  const pipeline = new Pipeline([head, tts, tail], () => undefined);
  let firstAt: number | null = null;
  /** A piece from the LLM stage, cut now; `partial` while its sentence goes on. */
  const piece = (text: string, o: { partial?: boolean; tools?: ToolTurn[]; reply?: number; llmMs?: number } = {}) => {
    firstAt ??= clock.t;
    const frame: Frame = {
      type: "llm-text",
      reply: o.reply ?? 1,
      text,
      tools: o.tools ?? [],
      llmMs: o.llmMs ?? 300,
      firstAt,
      at: clock.t,
      timing: TIMING,
      ...(o.partial && { partial: true }),
    };
    head.send(frame);
  };
  const done = (reply = 1) => head.send({ type: "llm-done", reply, after: { ended: false, transfer: null }, tools: [] });
  return { clock, sessions, chunkRequests, head, tail, pipeline, piece, done };
}

const tool = { role: "tool", text: "t", at: "", tool: {} } as unknown as ToolTurn;

describe("the TTS stage with input streaming", () => {
  it("feeds each piece to one session as it arrives: the first audio plays before the first sentence is complete", async () => {
    const { clock, sessions, chunkRequests, tail, piece, done } = setup();
    piece("Of course, I can check that,", { partial: true });
    expect(sessions).toHaveLength(1);
    expect(sessions[0]?.pushed).toEqual(["Of course, I can check that,"]);
    clock.t += 120;
    sessions[0]?.speak(300);
    await settle();
    // The sentence is not complete yet, and its first clause is playing.
    const [first] = tail.of("first-audio") as FrameOf<"first-audio">[];
    // 100 120 − 99 000 = 1 120 ms: 250 endpointing + 40 STT + 300 LLM + 120 from the first text in to its first audio
    expect(first?.latency).toMatchObject({ voiceToVoiceMs: 1120, llmMs: 300, ttsMs: 120, platformMs: 410 });
    expect(tail.of("audio-out")).toHaveLength(1);
    clock.t += 80;
    piece("for you.", { tools: [tool] });
    piece("It is booked.");
    expect(sessions).toHaveLength(1); // one context for the whole reply
    expect(sessions[0]?.pushed).toEqual(["Of course, I can check that,", " for you.", " It is booked."]);
    expect(sessions[0]?.ended).toBe(false);
    done();
    expect(sessions[0]?.ended).toBe(true);
    sessions[0]?.speak(2_000);
    sessions[0]?.finish();
    await settle();
    expect(chunkRequests).toEqual([]); // nothing went through the per-chunk path
    expect(tail.of("chunk-started").map((c) => [c.text, c.tools.length])).toEqual([
      ["Of course, I can check that,", 0],
      ["for you.", 1],
      ["It is booked.", 0],
    ]);
    expect(tail.of("speech-done")).toEqual([
      { type: "speech-done", reply: 1, after: { ended: false, transfer: null }, tools: [], cut: false },
    ]);
  });

  it("places each piece's words on the audio at a spoken pace, so a cut keeps what was heard", async () => {
    const { clock, sessions, tail, piece, done } = setup();
    piece("One two three four,", { partial: true }); // 19 characters
    piece("five six seven eight.");
    done();
    clock.t = 100_100;
    sessions[0]?.speak(3_000);
    sessions[0]?.finish();
    await settle();
    const starts = tail.of("chunk-started").map((c) => c.startAt);
    const boundary = (19 / SPOKEN_CHARS_PER_SECOND) * 1000; // the second piece starts after the first's characters
    expect(starts[0]).toBe(100_100);
    expect(starts[1]).toBeCloseTo(100_100 + boundary, 0);
    // The audio is cut at the boundary: the frames before it end there.
    const audio = tail.of("audio-out");
    expect(audio).toHaveLength(2);
    expect(audio[0]?.playhead).toBeCloseTo(100_100 + boundary, 0);
    expect(audio[1]?.playhead).toBeCloseTo(103_100, 6);
    const chunks = [
      { text: "One two three four,", startAt: starts[0] as number, endAt: starts[1] as number },
      { text: "five six seven eight.", startAt: starts[1] as number, endAt: 103_100 },
    ];
    expect(heardText(chunks, 100_100 + boundary + 700)).toBe("One two three four, five");
  });

  it("an interruption cancels the session (its signal aborts), nothing more is pushed, the reply ends cut without an error", async () => {
    const { sessions, tail, piece, done, pipeline } = setup();
    piece("This is a long answer,", { partial: true });
    sessions[0]?.speak(200);
    await settle();
    pipeline.push({ type: "interruption", reply: 1, at: 0 });
    expect(sessions[0]?.signal.aborted).toBe(true);
    piece("which goes on."); // already on its way from the LLM stage: never sent, never billed
    done();
    sessions[0]?.speak(200);
    await settle();
    expect(sessions[0]?.pushed).toEqual(["This is a long answer,"]);
    expect(tail.of("audio-out")).toHaveLength(1);
    expect(tail.of("speech-done")[0]?.cut).toBe(true);
    expect(tail.of("error")).toHaveLength(0);
  });

  it("a session that fails is a TTS error frame, and the reply ends cut", async () => {
    const { sessions, tail, piece, done } = setup();
    piece("Hello there.");
    done();
    sessions[0]?.fail(new ProviderError("upstream", "voice service down", 503));
    await settle();
    expect(tail.of("error")[0]).toMatchObject({ stage: "tts" });
    expect(sessions[0]?.signal.aborted).toBe(true);
    expect(tail.of("speech-done")[0]?.cut).toBe(true);
  });

  it("a reply with no words opens no session", async () => {
    const { sessions, tail, done } = setup();
    done();
    await settle();
    expect(sessions).toHaveLength(0);
    expect(tail.of("speech-done")[0]).toMatchObject({ reply: 1, cut: false });
  });

  it("known text goes through one session too; prepared audio through none", async () => {
    const { sessions, tail, head } = setup();
    head.send({ type: "say", reply: 1, text: "Hello! How are you?", prepared: pcm24(100) });
    await settle();
    expect(sessions).toHaveLength(0);
    expect(tail.of("audio-out")[0]?.samples.length).toBe(800);
    head.send({ type: "say", reply: 2, text: "Hello! How are you today?" });
    expect(sessions).toHaveLength(1);
    expect(sessions[0]?.pushed).toEqual(["Hello!", " How are you today?"]);
    expect(sessions[0]?.ended).toBe(true);
    sessions[0]?.speak(500);
    sessions[0]?.finish();
    await settle();
    expect(tail.of("first-audio").map((f) => f.latency)).toEqual([null, null]);
    expect(tail.of("speech-done").map((d) => [d.reply, d.cut])).toEqual([
      [1, false],
      [2, false],
    ]);
  });
});

describe("the TTS stage with input streaming: speculative replies", () => {
  it("opens nothing until the commit, then sends what was held; the latency counts from the commit", async () => {
    const { clock, sessions, tail, head, piece, done } = setup();
    head.send({ type: "reply", reply: 1, messages: [], timing: null, speculative: true });
    clock.t = 100_200;
    piece("Let me see,", { partial: true, llmMs: 200 });
    piece("yes.");
    done();
    expect(sessions).toHaveLength(0);
    clock.t = 100_260;
    head.send({ type: "commit", reply: 1, at: 100_260 });
    expect(sessions).toHaveLength(1);
    expect(sessions[0]?.pushed).toEqual(["Let me see,", " yes."]);
    expect(sessions[0]?.ended).toBe(true);
    clock.t = 100_360;
    sessions[0]?.speak(300);
    sessions[0]?.finish();
    await settle();
    // 1 360 ms from the speech's end: 1 260 to the commit (its endpointing), no LLM after it, 100 of speech
    expect(tail.of("first-audio")[0]?.latency).toMatchObject({ voiceToVoiceMs: 1360, endpointingMs: 1260, llmMs: 0, ttsMs: 100 });
  });

  it("a discarded reply never opens a session: nothing is sent", async () => {
    const { sessions, tail, head, piece, done } = setup();
    head.send({ type: "reply", reply: 2, messages: [], timing: null, speculative: true });
    piece("Sure,", { partial: true, reply: 2 });
    head.send({ type: "discard", reply: 2 });
    piece("it is done.", { reply: 2 });
    done(2);
    await settle();
    expect(sessions).toHaveLength(0);
    expect(tail.of("speech-done")).toEqual([
      { type: "speech-done", reply: 2, after: { ended: false, transfer: null }, tools: [], cut: true },
    ]);
  });
});

describe("the TTS stage without input streaming", () => {
  it("joins a sentence's pieces into one chunk, requested when the sentence is complete, its time counted to then", async () => {
    const clock = fakeClock(100_000);
    const requested: string[] = [];
    const head = new Probe();
    const tail = new Probe();
    new Pipeline(
      [
        head,
        new TtsStage(
          async (text, onAudio) => {
            requested.push(text);
            clock.t += 100;
            onAudio(pcm24(100));
          },
          8_000,
          clock,
        ),
        tail,
      ],
      () => undefined,
    );
    const base = { type: "llm-text", reply: 1, llmMs: 300, firstAt: 100_000, timing: TIMING } as const;
    head.send({ ...base, text: "Of course, I can check that,", tools: [tool], at: 100_000, partial: true });
    expect(requested).toEqual([]);
    clock.t = 100_150;
    head.send({ ...base, text: "for you.", tools: [], at: 100_150 });
    expect(requested).toEqual(["Of course, I can check that, for you."]);
    head.send({ type: "llm-done", reply: 1, after: { ended: false, transfer: null }, tools: [] });
    await settle();
    // The LLM's time runs to the sentence's end (300 to its first piece, then 150 more); the speech's from there.
    expect(tail.of("first-audio")[0]?.latency).toMatchObject({ llmMs: 450, ttsMs: 100 });
    expect(tail.of("chunk-started").map((c) => [c.text, c.tools.length])).toEqual([["Of course, I can check that, for you.", 1]]);
  });
});
