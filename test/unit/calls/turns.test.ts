// Turn-taking (docs/calls.md, "Turn-taking"): the detector's pauses inside a turn and what ends a
// sentence. The speculative transcription on the pauses is the STT stage's (pipeline/stt.test.ts).
import { describe, expect, it } from "vitest";
import { endsSentence, TurnDetector, type TurnEvent } from "../../../src/calls/turns";

const tone = (n: number, amplitude: number) =>
  Int16Array.from({ length: n }, (_, i) => Math.round(amplitude * Math.sin((2 * Math.PI * 440 * i) / 8000)));
const SPEECH = tone(160, 8000);
const SILENCE = new Int16Array(160);

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
