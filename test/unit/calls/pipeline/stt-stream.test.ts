// Streaming STT with a scripted provider stream: audio streamed from the first frame (held until
// the stream is open), the provider's end of turn making the transcript, and what interrupts the
// agent: a word that is not a backchannel, or sound that lasts; a cough or an "mhm" does not, and
// a turn of only backchannels said over the agent is not answered. Every streamed second is metered.
import { describe, expect, it } from "vitest";
import { substantiveWords } from "../../../../src/calls/pipeline/backchannels";
import type { Frame, FrameOf } from "../../../../src/calls/pipeline/frames";
import { Pipeline } from "../../../../src/calls/pipeline/pipeline";
import { StreamingSttStage } from "../../../../src/calls/pipeline/stt-stream";
import type { Eagerness } from "../../../../src/calls/pipeline/turn-plan";
import type { SttStream, SttStreamEvent } from "../../../../src/providers/types";
import { fakeClock, flushed, Probe } from "./audio";

function setup(opts: { failOpen?: Error; minInterruptionWords?: number; eagerness?: Eagerness } = {}) {
  const clock = fakeClock(10_000);
  const sent: number[] = [];
  const metered: number[] = [];
  let emit: (e: SttStreamEvent) => void = () => undefined;
  let closed = false;
  let open: () => void = () => undefined;
  const opened = new Promise<void>((r) => {
    open = r;
  });
  const stream: SttStream = {
    send: (pcm) => sent.push(pcm.length),
    finalize: () => undefined,
    close: async () => {
      closed = true;
      return 0;
    },
    get closed() {
      return closed;
    },
  };
  const head = new Probe();
  const tail = new Probe();
  const out: Frame[] = [];
  const stt = new StreamingSttStage(
    {
      async open(onEvent) {
        await opened;
        if (opts.failOpen) throw opts.failOpen;
        emit = onEvent;
        return stream;
      },
      async meter(seconds) {
        metered.push(seconds);
      },
    },
    clock,
    { sampleRate: 8000, minInterruptionMs: 600, minInterruptionWords: opts.minInterruptionWords, eagerness: opts.eagerness },
  );
  const pipeline = new Pipeline([head, stt, tail], (f) => out.push(f));
  /** `ms` of the caller's audio: sound (voiced, as turn detection marks it) or the quiet after it. */
  const audio = (ms: number, voiced = true) => {
    for (let t = 0; t < ms; t += 20) {
      clock.t += 20;
      head.send({ type: "audio-in", samples: new Int16Array(160), at: clock.t, voiced });
    }
  };
  const down = (frame: Frame) => head.send(frame);
  const agentSpeaking = (speaking: boolean) => tail.send({ type: "agent-speaking", speaking, at: clock.t }, "up");
  const vadEnd = () =>
    down({
      type: "turn-ended",
      endedBy: "silence",
      end: { type: "turn-end", audio: new Int16Array(0), speechStartAt: 0, speechEndAt: clock.t, at: clock.t, pause: null },
    });
  return {
    clock,
    sent,
    metered,
    head,
    tail,
    out,
    stt,
    pipeline,
    audio,
    down,
    agentSpeaking,
    vadEnd,
    open,
    emit: (e: SttStreamEvent) => emit(e),
    isClosed: () => closed,
  };
}

describe("backchannels", () => {
  it("are not substantive words; anything else is", () => {
    expect(substantiveWords("Mhm. Yeah, right.")).toEqual([]);
    expect(substantiveWords("uh-huh, okay")).toEqual([]);
    expect(substantiveWords("Wait, stop.")).toEqual(["wait", "stop"]);
    expect(substantiveWords("Yeah, but I need Tuesday")).toEqual(["but", "need", "tuesday"]);
  });
});

describe("the streaming STT stage", () => {
  it("streams the audio from the first frame (held until the stream opens), and the provider's end of turn is the transcript", async () => {
    const s = setup();
    s.down({ type: "speech-started", at: 10_020 });
    s.audio(400);
    expect(s.sent).toEqual([]);
    s.open();
    await flushed();
    expect(s.sent).toHaveLength(20); // the backlog, in order
    s.audio(100);
    expect(s.sent).toHaveLength(25);
    s.vadEnd(); // 10 500: the caller stopped
    s.emit({ type: "update", text: "Book me in" });
    s.clock.t += 260;
    s.emit({ type: "end-of-turn", text: "Book me in for Tuesday." });
    const [t] = s.tail.of("transcript") as FrameOf<"transcript">[];
    expect(t?.text).toBe("Book me in for Tuesday.");
    expect(t?.sttMs).toBe(0); // the end of turn brings the transcript: the wait is endpointing
    expect(t?.end).toMatchObject({ speechStartAt: 10_020, speechEndAt: 10_500 });
    expect(t?.turnTaking).toMatchObject({ endedBy: "model", waitMs: 260, transcriptions: 0 });
    expect(s.tail.of("speech-started")).toHaveLength(1); // nothing playing: passed on at once
    await flushed();
    expect(s.metered).toEqual([0.5]); // 25 frames of 20 ms, billed once
  });

  it("Nova: finals add up, speech_final ends the turn; an UtteranceEnd ends one without it", async () => {
    const s = setup();
    s.open();
    s.audio(20);
    await flushed();
    s.emit({ type: "final", text: "I would like", speechFinal: false });
    s.emit({ type: "final", text: "a table.", speechFinal: true });
    s.emit({ type: "final", text: "For two.", speechFinal: false });
    s.emit({ type: "utterance-end" });
    s.emit({ type: "utterance-end" }); // nothing new: no turn
    expect(s.tail.of("transcript").map((t) => [t.text, t.turnTaking.endedBy])).toEqual([
      ["I would like a table.", "silence"],
      ["For two.", "silence"],
    ]);
  });

  it("Nova: a segment's end that does not sound finished waits for the UtteranceEnd; eagerness decides what sounds finished", async () => {
    for (const [eagerness, text, endsAtSegment] of [
      ["normal", "I would like to", false],
      ["normal", "Next Tuesday.", true],
      ["eager", "next Tuesday", true],
      ["eager", "next Tuesday and", false],
      ["patient", "Next Tuesday.", false],
    ] as const) {
      const s = setup({ eagerness });
      s.open();
      s.audio(20);
      await flushed();
      s.emit({ type: "final", text, speechFinal: true });
      expect(s.tail.of("transcript").length, `${eagerness}: ${text}`).toBe(endsAtSegment ? 1 : 0);
      s.emit({ type: "utterance-end" }); // the longest wait: the turn ends whatever it sounds like
      expect(s.tail.of("transcript").map((t) => t.text)).toEqual([text]);
    }
  });

  it("over the agent: the agent's interruptionMinWords words are needed; fewer interrupt nothing", async () => {
    const s = setup({ minInterruptionWords: 2 });
    s.open();
    s.audio(20);
    await flushed();
    s.agentSpeaking(true);
    const at = s.clock.t;
    s.down({ type: "speech-started", at });
    s.audio(200);
    s.emit({ type: "interim", text: "Yeah sure, wait" });
    expect(s.tail.of("speech-started")).toHaveLength(0); // one word that is not a backchannel
    s.emit({ type: "interim", text: "Yeah sure, wait, stop" });
    expect(s.tail.of("speech-started")).toEqual([{ type: "speech-started", at }]);
    expect(s.stt.totals.interruptions).toBe(1);
  });

  it("over the agent: a backchannel or a cough interrupts nothing and is not answered; a real word interrupts at once", async () => {
    const s = setup();
    s.open();
    s.audio(20);
    await flushed();
    s.agentSpeaking(true);
    s.down({ type: "speech-started", at: s.clock.t });
    s.audio(300);
    s.emit({ type: "interim", text: "Mhm" });
    s.vadEnd();
    s.emit({ type: "final", text: "Mhm.", speechFinal: true });
    expect(s.tail.of("speech-started")).toHaveLength(0);
    expect(s.tail.of("transcript")).toHaveLength(0);
    expect(s.stt.totals).toMatchObject({ ignoredSounds: 1, droppedBackchannels: 1, interruptions: 0 });
    // "wait, stop": the first real word interrupts, from when the sound started
    const startedAt = s.clock.t + 20;
    s.down({ type: "speech-started", at: startedAt });
    s.audio(100);
    s.emit({ type: "interim", text: "Yeah wait" });
    expect(s.tail.of("speech-started")).toEqual([{ type: "speech-started", at: startedAt }]);
    s.emit({ type: "end-of-turn", text: "Yeah, wait, stop." });
    expect(s.tail.of("transcript").map((t) => t.text)).toEqual(["Yeah, wait, stop."]);
  });

  it("over the agent: sound that lasts interrupts even before a word is recognized", async () => {
    const s = setup();
    s.open();
    await flushed();
    s.agentSpeaking(true);
    const at = s.clock.t;
    s.down({ type: "speech-started", at });
    s.audio(580);
    await flushed(); // the stream is open
    expect(s.tail.of("speech-started")).toHaveLength(0);
    s.audio(40);
    expect(s.tail.of("speech-started")).toEqual([{ type: "speech-started", at }]);
    expect(s.stt.totals.interruptions).toBe(1);
    // only sound counts, not the quiet after it: a 500 ms "mm-hm" and 300 ms of silence interrupt nothing
    s.vadEnd();
    s.down({ type: "speech-started", at: s.clock.t });
    s.audio(500);
    s.audio(300, false);
    s.vadEnd();
    expect(s.stt.totals.interruptions).toBe(1);
    s.emit({ type: "end-of-turn", text: "Mm-hm." }); // not a turn to answer
    expect(s.stt.totals.droppedBackchannels).toBe(1);
    // the agent stopped: a later "yes" is an answer, not a backchannel to drop
    s.agentSpeaking(false);
    s.vadEnd();
    s.emit({ type: "end-of-turn", text: "Yes." });
    s.down({ type: "speech-started", at: s.clock.t });
    s.emit({ type: "end-of-turn", text: "Yes." });
    expect(s.tail.of("transcript").map((t) => t.text)).toEqual(["Yes.", "Yes."]);
  });

  it("a stream that cannot open is an STT error; the call's end closes the stream and meters the rest; last words are kept", async () => {
    const bad = setup({ failOpen: new Error("401 from the provider") });
    bad.audio(20);
    bad.open();
    await flushed();
    await flushed();
    expect((bad.tail.of("error")[0] as FrameOf<"error">).stage).toBe("stt");
    const s = setup();
    s.open();
    s.down({ type: "speech-started", at: 10_000 });
    s.audio(200);
    await flushed();
    s.emit({ type: "interim", text: "Actually one more" });
    expect(s.stt.lastWords()).toMatchObject({ text: "Actually one more", startAt: 10_000 });
    s.pipeline.push({ type: "end" });
    await s.pipeline.settled();
    expect(s.isClosed()).toBe(true);
    expect(s.metered).toEqual([0.2]);
    s.emit({ type: "end-of-turn", text: "Too late." });
    expect(s.tail.of("transcript")).toHaveLength(0);
  });
});

describe("speculation on Flux's early end of turn", () => {
  async function speaking() {
    const s = setup();
    s.open();
    s.down({ type: "speech-started", at: 10_020 });
    s.audio(400);
    await flushed();
    s.vadEnd();
    return s;
  }

  it("sends the eager transcript as speculative; the final end of turn with the same words confirms it", async () => {
    const s = await speaking();
    s.clock.t += 110;
    s.emit({ type: "eager-end-of-turn", text: "Book me for Tuesday" });
    const [spec] = s.tail.of("transcript") as FrameOf<"transcript">[];
    expect(spec).toMatchObject({ text: "Book me for Tuesday", speculative: true });
    expect(spec?.turnTaking).toMatchObject({ waitMs: 110, committed: true, speculations: 1, discarded: 0 });
    s.clock.t += 150;
    s.emit({ type: "end-of-turn", text: "Book me for Tuesday." }); // repunctuated: the same words
    const [outcome] = s.tail.of("turn-outcome");
    expect(outcome).toMatchObject({ confirmed: true, at: s.clock.t });
    expect(outcome?.transcript).toMatchObject({ text: "Book me for Tuesday.", turnTaking: { waitMs: 260 } });
    expect(outcome?.transcript?.speculative).toBeUndefined();
    expect(s.tail.of("transcript")).toHaveLength(1); // no second transcript
    expect(s.stt.totals).toMatchObject({ speculations: 1, committed: 1, discarded: 0, turns: 1 });
  });

  it("the caller going on discards it; other final words discard it and are the turn", async () => {
    const s = await speaking();
    s.emit({ type: "eager-end-of-turn", text: "I want to" });
    s.emit({ type: "turn-resumed" });
    expect(s.tail.of("turn-outcome").map((o) => o.confirmed)).toEqual([false]);
    s.emit({ type: "eager-end-of-turn", text: "I want to book" });
    s.emit({ type: "end-of-turn", text: "I want to book a cleaning." });
    expect(s.tail.of("turn-outcome").map((o) => o.confirmed)).toEqual([false, false]);
    const final = s.tail.of("transcript").at(-1);
    expect(final).toMatchObject({ text: "I want to book a cleaning." });
    expect(final?.speculative).toBeUndefined();
    expect(final?.turnTaking).toMatchObject({ speculations: 2, discarded: 2, committed: false });
    expect(s.stt.totals).toMatchObject({ speculations: 2, committed: 0, discarded: 2 });
  });

  it("no speculation over the agent's speech, nor on backchannels", async () => {
    const s = await speaking();
    s.emit({ type: "eager-end-of-turn", text: "Mhm." });
    s.agentSpeaking(true);
    s.emit({ type: "eager-end-of-turn", text: "Tell me more" });
    expect(s.tail.of("transcript")).toHaveLength(0);
    expect(s.stt.totals.speculations).toBe(0);
  });
});

describe("the speech end a streamed turn is measured from", () => {
  it("is the last voiced frame's end when the provider's end of turn comes before voice activity closes the stretch", async () => {
    const s = setup();
    s.open();
    s.down({ type: "speech-started", at: 10_020 });
    s.audio(400); // voiced frames to the one stamped 10 400 (as voice activity counts them: its end, 10 420)
    await flushed();
    s.audio(120, false); // 120 ms of quiet: voice activity (200 ms) has not ended the stretch
    s.emit({ type: "end-of-turn", text: "That is all." });
    const [t] = s.tail.of("transcript") as FrameOf<"transcript">[];
    expect(t?.end.speechEndAt).toBe(10_420);
    expect(t?.turnTaking.waitMs).toBe(100);
  });
});
