// Turn detection → STT as stages (docs/calls.md, "Turn-taking"), driven by scripted frames on a
// fake clock: the speculative transcription on a pause, discarded when the caller speaks again,
// committed (the turn transcribed once) when the turn ends in the same pause, the turn ended early
// (an `end-turn` frame up) when that transcript ends a sentence, and transcripts in turn order.
import { describe, expect, it } from "vitest";
import type { Frame, FrameOf } from "../../../../src/calls/pipeline/frames";
import { Pipeline } from "../../../../src/calls/pipeline/pipeline";
import { SttStage } from "../../../../src/calls/pipeline/stt";
import { TurnDetectionStage } from "../../../../src/calls/pipeline/turn-detection";
import type { Eagerness } from "../../../../src/calls/pipeline/turn-plan";
import { TurnDetector } from "../../../../src/calls/turns";
import { caller, fakeClock, flushed } from "./audio";

interface Request {
  audio: Int16Array;
  speculative: boolean;
  answer: (text: string) => void;
  fail: (e: Error) => void;
}

/** Turn detection and STT over a detector, with a transcription the test answers by hand. */
function setup(pauseMs: number | null = 200, maxTurnMs?: number, eagerness?: Eagerness) {
  const requests: Request[] = [];
  const clock = fakeClock();
  const out: Frame[] = [];
  const seen: Frame[] = [];
  const turns = new TurnDetectionStage(
    new TurnDetector({ sampleRate: 8000, endpointingMs: 500, pauseMs: pauseMs ?? undefined, maxTurnMs }),
    8000,
  );
  const charged: number[] = [];
  const stt = new SttStage(
    (audio, speculative) =>
      new Promise<string>((answer, fail) => {
        requests.push({ audio, speculative, answer, fail });
      }),
    clock,
    eagerness,
    async (audio) => {
      charged.push(audio.length);
    },
  );
  const pipeline = new Pipeline([turns, stt], (f) => out.push(f), [(f) => seen.push(f)]);
  const c = caller((samples, at) => {
    clock.t = at;
    pipeline.push({ type: "audio-in", samples, at });
  });
  const ended = () => seen.filter((f): f is FrameOf<"turn-ended"> => f.type === "turn-ended");
  const transcripts = () => out.filter((f): f is FrameOf<"transcript"> => f.type === "transcript");
  return { pipeline, turns, stt, requests, clock, out, seen, ended, transcripts, c, charged };
}

describe("the STT stage's speculative transcription", () => {
  it("a caller who speaks again discards it (a late transcript of it ends nothing); the discarded requests still count", async () => {
    const { stt, requests, ended, transcripts, c, charged } = setup();
    c.speak(600);
    c.silent(200);
    expect(requests).toHaveLength(1);
    expect(requests[0]?.speculative).toBe(true);
    c.silent(100);
    c.speak(400); // resumed within the wait
    requests[0]?.answer("Hi, I would like to."); // a sentence, but stale: it must neither end the turn nor be used
    await flushed();
    expect(ended()).toHaveLength(0);
    c.silent(200); // a second pause: a second speculation
    expect(requests).toHaveLength(2);
    c.speak(200); // and again the caller goes on
    requests[1]?.answer("Hi, I would like to book.");
    await flushed();
    c.silent(500); // the third pause lasts: its speculation is the turn's
    expect(requests).toHaveLength(3);
    expect(ended()).toHaveLength(1);
    expect(transcripts()).toHaveLength(0); // not until its transcript is in
    requests[2]?.answer("Hi, I would like to book an appointment.");
    await flushed();
    const [t] = transcripts();
    expect(t?.text).toBe("Hi, I would like to book an appointment.");
    expect(t?.turnTaking).toEqual({ waitMs: 480, endedBy: "silence", speculations: 3, discarded: 2, committed: true, transcriptions: 3 });
    expect(requests).toHaveLength(3); // not transcribed again
    expect(stt.totals).toMatchObject({ turns: 1, speculations: 3, committed: 1, discarded: 2, transcriptions: 3 });
    // three transcriptions, the turn charged once: for its own audio
    expect(charged).toEqual([t?.end.audio.length]);
  });

  it("a turn cut while the caller speaks (max length) discards the speculation and is transcribed whole", async () => {
    const { requests, transcripts, c } = setup(200, 2_000);
    c.speak(600);
    c.silent(200);
    c.speak(1_400); // past 2 s of turn: cut mid-speech
    expect(requests.map((r) => r.speculative)).toEqual([true, false]);
    requests[1]?.answer("text");
    await flushed();
    expect(transcripts()[0]?.turnTaking).toMatchObject({ speculations: 1, discarded: 1, committed: false, transcriptions: 2 });
  });

  it("a turn that ends in the pause of its speculation commits it: one transcription, its text, its time on the reply's path", async () => {
    const { stt, requests, ended, transcripts, clock, c } = setup();
    c.speak(600);
    c.silent(200);
    expect(requests).toHaveLength(1);
    c.silent(300); // the endpointing wait ends before the transcript is in (a slow provider)
    expect(ended()).toHaveLength(1);
    clock.t += 40;
    requests[0]?.answer(" Tuesday morning works for me. ");
    await flushed();
    const [t] = transcripts();
    expect(t).toMatchObject({ text: "Tuesday morning works for me.", sttMs: 40 });
    expect(t?.turnTaking).toMatchObject({ endedBy: "silence", speculations: 1, discarded: 0, committed: true, transcriptions: 1 });
    expect(requests).toHaveLength(1);
    // the speculation's audio is the turn's up to the pause; the turn's own audio only adds silence
    const spec = requests[0]?.audio as Int16Array;
    const audio = t?.end.audio as Int16Array;
    expect(audio.subarray(0, spec.length)).toEqual(spec);
    expect(audio.subarray(spec.length).every((s) => s === 0)).toBe(true);
    expect(stt.totals).toMatchObject({ turns: 1, speculations: 1, committed: 1, discarded: 0, transcriptions: 1 });
  });

  it("a transcript that ends a sentence ends the turn as soon as it is in (an end-turn frame up to turn detection)", async () => {
    const { requests, ended, transcripts, seen, clock, c } = setup();
    c.speak(600);
    c.silent(200); // speech ended at 620 ms; the pause at 800
    clock.t = c.clock.t + 90;
    requests[0]?.answer("Tuesday morning works for me.");
    await flushed();
    expect(seen.some((f) => f.type === "end-turn")).toBe(true);
    expect(ended()).toHaveLength(1);
    await flushed();
    expect(transcripts()[0]?.turnTaking).toMatchObject({ endedBy: "sentence", committed: true, transcriptions: 1, waitMs: 180 + 90 });
    expect(transcripts()[0]?.text).toBe("Tuesday morning works for me.");
    c.silent(600);
    expect(ended()).toHaveLength(1); // the wait running out later ends nothing more
    expect(requests).toHaveLength(1);
  });

  it("by the agent's eagerness: eager ends on a phrase that does not trail off, patient waits out the whole wait", async () => {
    for (const [eagerness, said, early] of [
      ["eager", "next Tuesday", true],
      ["normal", "next Tuesday", false],
      ["patient", "Next Tuesday works.", false],
    ] as const) {
      const { requests, ended, seen, c } = setup(200, undefined, eagerness);
      c.speak(600);
      c.silent(200);
      requests[0]?.answer(said);
      await flushed();
      expect(
        seen.some((f) => f.type === "end-turn"),
        `${eagerness}: ${said}`,
      ).toBe(early);
      expect(ended()).toHaveLength(early ? 1 : 0);
      c.silent(300);
      expect(ended()).toHaveLength(1); // the longest wait ends it anyway
    }
  });

  it("an unfinished or empty transcript keeps the whole wait, then commits", async () => {
    for (const said of ["Hi, I would like", ""]) {
      const { requests, ended, transcripts, c } = setup();
      c.speak(600);
      c.silent(200);
      requests[0]?.answer(said);
      await flushed();
      c.silent(280);
      expect(ended()).toHaveLength(0);
      c.silent(20);
      expect(ended()).toHaveLength(1);
      await flushed();
      expect(transcripts()[0]?.turnTaking).toMatchObject({ endedBy: "silence", committed: true, waitMs: 480 });
      expect(transcripts()[0]?.text).toBe(said);
      expect(requests).toHaveLength(1);
    }
  });

  it("a failed speculation fails the turn that commits it: an STT error frame, no transcript", async () => {
    const { requests, out, transcripts, c } = setup();
    c.speak(600);
    c.silent(200);
    requests[0]?.fail(new Error("provider down"));
    c.silent(300);
    await flushed();
    expect(transcripts()).toHaveLength(0);
    const error = out.find((f) => f.type === "error");
    expect(error).toMatchObject({ type: "error", stage: "stt" });
    expect(((error as FrameOf<"error">).error as Error).message).toBe("provider down");
    expect(requests).toHaveLength(1);
  });

  it("the call ending inside the pause: its speculation is the last words (flush); outside speech there is nothing", async () => {
    const { turns, stt, requests, c } = setup();
    expect(turns.flush(0)).toBeNull();
    c.speak(600);
    c.silent(300);
    const end = turns.flush(c.clock.t);
    expect(end).not.toBeNull();
    const last = stt.lastWords(end as NonNullable<typeof end>);
    expect(last.turnTaking).toMatchObject({ committed: true, transcriptions: 1 });
    requests[0]?.answer("Sorry, I can't talk right now.");
    expect(await last.transcript()).toBe("Sorry, I can't talk right now.");
    expect(requests).toHaveLength(1);
    expect(turns.flush(c.clock.t)).toBeNull();
  });

  it("off (no pauses): every turn transcribed once, after the whole wait", async () => {
    const { stt, requests, transcripts, c } = setup(null);
    c.speak(600);
    c.silent(300);
    c.speak(400);
    c.silent(500);
    expect(requests).toHaveLength(1);
    expect(requests[0]?.speculative).toBe(false);
    requests[0]?.answer("Hello.");
    await flushed();
    expect(transcripts()[0]).toMatchObject({ text: "Hello." });
    expect(transcripts()[0]?.turnTaking).toEqual({
      waitMs: 480,
      endedBy: "silence",
      speculations: 0,
      discarded: 0,
      committed: false,
      transcriptions: 1,
    });
    expect(stt.totals).toMatchObject({ turns: 1, speculations: 0, transcriptions: 1 });
  });

  it("sends transcripts down in the order their turns ended, whichever provider answer comes first", async () => {
    const { requests, transcripts, c } = setup(null);
    c.speak(400);
    c.silent(500);
    c.speak(400);
    c.silent(500);
    expect(requests).toHaveLength(2); // both requested as their turns end
    requests[1]?.answer("Second.");
    await flushed();
    expect(transcripts()).toHaveLength(0); // the second waits for the first
    requests[0]?.answer("First.");
    await flushed();
    expect(transcripts().map((t) => t.text)).toEqual(["First.", "Second."]);
  });

  it("after the call's end no transcript goes down, and a late sentence ends no turn", async () => {
    const { pipeline, stt, requests, transcripts, ended, c } = setup();
    c.speak(600);
    c.silent(200);
    pipeline.push({ type: "end" });
    requests[0]?.answer("Goodbye.");
    await flushed();
    expect(ended()).toHaveLength(0);
    c.silent(300);
    await flushed();
    expect(transcripts()).toHaveLength(0);
    expect(stt.pending).toBe(0);
  });
});
