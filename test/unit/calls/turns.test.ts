// Turn-taking (docs/calls.md, "Turn-taking"): the detector's pauses inside a turn, and the
// speculative transcription on them: discarded when the caller speaks again, committed (the turn
// transcribed once) when the turn ends in the same pause, and the turn ended early when that
// transcript ends a sentence.
import { describe, expect, it } from "vitest";
import { endsSentence, type Turn, TurnDetector, type TurnEvent, TurnTaker } from "../../../src/calls/turns";

const tone = (n: number, amplitude: number) =>
  Int16Array.from({ length: n }, (_, i) => Math.round(amplitude * Math.sin((2 * Math.PI * 440 * i) / 8000)));
const SPEECH = tone(160, 8000);
const SILENCE = new Int16Array(160);
const flushed = () => new Promise((r) => setTimeout(r, 0));

/** 20 ms frames at 8 kHz with a clock the test moves. */
function caller(push: (frame: Int16Array, at: number) => TurnEvent[]) {
  const events: TurnEvent[] = [];
  const clock = { t: 0 };
  const frames = (n: number, frame: Int16Array) => {
    for (let i = 0; i < n; i++) {
      clock.t += 20;
      events.push(...push(frame, clock.t));
    }
  };
  return { events, clock, speak: (ms: number) => frames(ms / 20, SPEECH), silent: (ms: number) => frames(ms / 20, SILENCE) };
}

describe("the detector's pauses", () => {
  it("a pause inside the turn, then resume when speech comes back, then the turn's end in its last pause", () => {
    const d = new TurnDetector({ sampleRate: 8000, endpointingMs: 500, pauseMs: 200 });
    const c = caller((f, at) => d.push(f, at));
    c.silent(200);
    c.speak(600);
    c.silent(180);
    expect(c.events.map((e) => e.type)).toEqual(["speech-start"]); // 180 ms: not a pause yet
    c.silent(20);
    const pause = c.events[1];
    if (pause?.type !== "pause") throw new Error(`expected a pause, got ${pause?.type}`);
    expect(pause.speechEndAt).toBe(800 + 20 * 1); // the last loud frame arrived at 800 ms and lasts 20 ms
    expect(pause.at - pause.speechEndAt).toBe(180); // counted like the endpointing wait: a frame after the last loud one
    // the turn so far: pre-roll, speech and the pause's silence
    expect(pause.audio.length).toBeGreaterThanOrEqual(((600 + 200) / 20) * 160);
    c.silent(100);
    c.speak(400);
    expect(c.events.map((e) => e.type)).toEqual(["speech-start", "pause", "resume"]);
    expect(c.events[2]).toMatchObject({ type: "resume", pause: pause.pause });
    c.silent(500);
    expect(c.events.map((e) => e.type)).toEqual(["speech-start", "pause", "resume", "pause", "turn-end"]);
    const second = c.events[3];
    const end = c.events[4];
    if (second?.type !== "pause" || end?.type !== "turn-end") throw new Error("unreachable");
    expect(second.pause).not.toBe(pause.pause);
    expect(end.pause).toBe(second.pause); // it ended in the second pause, nothing said since
    expect(end.at - end.speechEndAt).toBe(480);
    expect(d.inSpeech).toBe(false);
  });

  it("no pauses without pauseMs, nor when it is not shorter than the endpointing wait", () => {
    for (const pauseMs of [undefined, 500, 800]) {
      const d = new TurnDetector({ sampleRate: 8000, endpointingMs: 500, pauseMs });
      const c = caller((f, at) => d.push(f, at));
      c.speak(400);
      c.silent(300);
      c.speak(400);
      c.silent(500);
      expect(c.events.map((e) => e.type)).toEqual(["speech-start", "turn-end"]);
      expect(c.events[1]).toMatchObject({ pause: null });
    }
  });

  it("ends the turn inside its pause only while the caller stays in it", () => {
    const d = new TurnDetector({ sampleRate: 8000, endpointingMs: 500, pauseMs: 200 });
    const c = caller((f, at) => d.push(f, at));
    c.speak(400);
    c.silent(200);
    const pause = c.events.at(-1);
    if (pause?.type !== "pause") throw new Error("expected a pause");
    c.speak(100);
    expect(d.endInPause(pause.pause, c.clock.t)).toBeNull(); // resumed: that pause is over
    c.silent(200);
    const next = c.events.at(-1);
    if (next?.type !== "pause") throw new Error("expected a pause");
    const end = d.endInPause(next.pause, c.clock.t + 5);
    expect(end).toMatchObject({ type: "turn-end", pause: next.pause, at: c.clock.t + 5 });
    expect(d.inSpeech).toBe(false);
    expect(d.endInPause(next.pause, c.clock.t)).toBeNull(); // once
    c.silent(600);
    expect(c.events.at(-1)).toBe(next); // and the wait does not end it a second time
  });
});

describe("sentence ends", () => {
  it("a full stop, a question or an exclamation ends one; a comma, no mark, an ellipsis, a title or an initial does not", () => {
    for (const t of ["Tuesday morning works for me.", "Can you hear me?", "No!", '"Yes."', "No.", "It costs 3.5 dollars.  "])
      expect(endsSentence(t), t).toBe(true);
    for (const t of ["", "Hi, I would like", "Well,", "I was thinking...", "I was thinking…", "Please ask Dr.", "It is J.", "Mr."])
      expect(endsSentence(t), t).toBe(false);
  });
});

describe("speculative transcription", () => {
  /** A TurnTaker over a detector, with a transcription the test answers by hand. */
  function setup(pauseMs: number | null = 200) {
    const requests: Array<{ audio: Int16Array; speculative: boolean; answer: (text: string) => void; fail: (e: Error) => void }> = [];
    const turns: Turn[] = [];
    let now = 0;
    const taker = new TurnTaker({
      detector: new TurnDetector({ sampleRate: 8000, endpointingMs: 500, pauseMs: pauseMs ?? undefined }),
      transcribe: (audio, speculative) =>
        new Promise<string>((answer, fail) => {
          requests.push({ audio, speculative, answer, fail });
        }),
      onTurn: (t) => turns.push(t),
      now: () => now,
    });
    const c = caller((f, at) => {
      now = at;
      return taker.push(f, at);
    });
    return { taker, requests, turns, c, setNow: (t: number) => (now = t) };
  }

  it("a caller who speaks again discards it (a late transcript of it ends nothing); the discarded requests still count", async () => {
    const { taker, requests, turns, c } = setup();
    c.speak(600);
    c.silent(200);
    expect(requests).toHaveLength(1);
    expect(requests[0]?.speculative).toBe(true);
    c.silent(100);
    c.speak(400); // resumed within the wait
    requests[0]?.answer("Hi, I would like to."); // a sentence, but stale: it must neither end the turn nor be used
    await flushed();
    expect(turns).toHaveLength(0);
    c.silent(200); // a second pause: a second speculation
    expect(requests).toHaveLength(2);
    c.speak(200); // and again the caller goes on
    requests[1]?.answer("Hi, I would like to book.");
    await flushed();
    c.silent(500); // the third pause lasts: its speculation is the turn's
    expect(requests).toHaveLength(3);
    expect(turns).toHaveLength(1);
    const turn = turns[0] as Turn;
    expect(turn.turnTaking).toEqual({ waitMs: 480, endedBy: "silence", speculations: 3, discarded: 2, committed: true, transcriptions: 3 });
    const text = turn.transcript();
    requests[2]?.answer("Hi, I would like to book an appointment.");
    expect(await text).toBe("Hi, I would like to book an appointment.");
    expect(requests).toHaveLength(3); // not transcribed again
    expect(taker.totals).toMatchObject({ turns: 1, speculations: 3, committed: 1, discarded: 2, transcriptions: 3 });
  });

  it("a turn cut while the caller speaks (max length) discards the speculation and is transcribed whole", async () => {
    const requests: string[] = [];
    const turns: Turn[] = [];
    const taker = new TurnTaker({
      detector: new TurnDetector({ sampleRate: 8000, endpointingMs: 500, pauseMs: 200, maxTurnMs: 2_000 }),
      transcribe: async (_audio, speculative) => {
        requests.push(speculative ? "speculative" : "turn");
        return "text";
      },
      onTurn: (t) => turns.push(t),
    });
    const c = caller((f, at) => taker.push(f, at));
    c.speak(600);
    c.silent(200);
    c.speak(1_400); // past 2 s of turn: cut mid-speech
    expect(turns).toHaveLength(1);
    expect(turns[0]?.turnTaking).toMatchObject({ speculations: 1, discarded: 1, committed: false, transcriptions: 2 });
    await turns[0]?.transcript();
    expect(requests).toEqual(["speculative", "turn"]);
  });

  it("a turn that ends in the pause of its speculation commits it: one transcription, its text", async () => {
    const { taker, requests, turns, c } = setup();
    c.speak(600);
    c.silent(200);
    expect(requests).toHaveLength(1);
    c.silent(300); // the endpointing wait ends before the transcript is in (a slow provider)
    expect(turns).toHaveLength(1);
    const turn = turns[0] as Turn;
    expect(turn.turnTaking).toMatchObject({ endedBy: "silence", speculations: 1, discarded: 0, committed: true, transcriptions: 1 });
    const text = turn.transcript();
    requests[0]?.answer(" Tuesday morning works for me. ");
    expect(await text).toBe("Tuesday morning works for me.");
    expect(await turn.transcript()).toBe("Tuesday morning works for me."); // asked again: still the one request
    expect(requests).toHaveLength(1);
    // the speculation's audio is the turn's up to the pause; the turn's own audio only adds silence
    const spec = requests[0]?.audio as Int16Array;
    expect(turn.end.audio.subarray(0, spec.length)).toEqual(spec);
    expect(turn.end.audio.subarray(spec.length).every((s) => s === 0)).toBe(true);
    expect(taker.totals).toMatchObject({ turns: 1, speculations: 1, committed: 1, discarded: 0, transcriptions: 1 });
  });

  it("a transcript that ends a sentence ends the turn as soon as it is in", async () => {
    const { requests, turns, c, setNow } = setup();
    c.speak(600);
    c.silent(200); // speech ended at 620 ms; the pause at 800
    setNow(c.clock.t + 90);
    requests[0]?.answer("Tuesday morning works for me.");
    await flushed();
    expect(turns).toHaveLength(1);
    const turn = turns[0] as Turn;
    expect(turn.turnTaking).toMatchObject({ endedBy: "sentence", committed: true, transcriptions: 1, waitMs: 180 + 90 });
    expect(await turn.transcript()).toBe("Tuesday morning works for me.");
    c.silent(600);
    expect(turns).toHaveLength(1); // the wait running out later ends nothing more
    expect(requests).toHaveLength(1);
  });

  it("an unfinished or empty transcript keeps the whole wait, then commits", async () => {
    for (const said of ["Hi, I would like", ""]) {
      const { requests, turns, c } = setup();
      c.speak(600);
      c.silent(200);
      requests[0]?.answer(said);
      await flushed();
      c.silent(280);
      expect(turns).toHaveLength(0);
      c.silent(20);
      expect(turns).toHaveLength(1);
      expect(turns[0]?.turnTaking).toMatchObject({ endedBy: "silence", committed: true, waitMs: 480 });
      expect(await turns[0]?.transcript()).toBe(said);
      expect(requests).toHaveLength(1);
    }
  });

  it("a failed speculation fails the turn that commits it, like its own transcription would", async () => {
    const { requests, turns, c } = setup();
    c.speak(600);
    c.silent(200);
    requests[0]?.fail(new Error("provider down"));
    c.silent(300);
    await expect(turns[0]?.transcript()).rejects.toThrow("provider down");
    expect(requests).toHaveLength(1);
  });

  it("the caller hanging up inside the pause commits it (flush); outside speech there is nothing", async () => {
    const { taker, requests, c } = setup();
    expect(taker.flush(0)).toBeNull();
    c.speak(600);
    c.silent(300);
    const pending = taker.flush(c.clock.t);
    expect(pending?.turnTaking).toMatchObject({ committed: true, transcriptions: 1 });
    requests[0]?.answer("Sorry, I can't talk right now.");
    expect(await pending?.transcript()).toBe("Sorry, I can't talk right now.");
    expect(requests).toHaveLength(1);
    expect(taker.flush(c.clock.t)).toBeNull();
  });

  it("off (no pauses): every turn transcribed once, after the whole wait", async () => {
    const { taker, requests, turns, c } = setup(null);
    c.speak(600);
    c.silent(300);
    c.speak(400);
    c.silent(500);
    expect(requests).toHaveLength(0);
    expect(turns[0]?.turnTaking).toEqual({
      waitMs: 480,
      endedBy: "silence",
      speculations: 0,
      discarded: 0,
      committed: false,
      transcriptions: 1,
    });
    const text = turns[0]?.transcript();
    expect(requests).toHaveLength(1);
    expect(requests[0]?.speculative).toBe(false);
    requests[0]?.answer("Hello.");
    expect(await text).toBe("Hello.");
    expect(taker.totals).toMatchObject({ turns: 1, speculations: 0, transcriptions: 1 });
  });
});
