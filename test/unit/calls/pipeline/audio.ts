// Scripted caller audio for the pipeline's unit tests: 20 ms frames at 8 kHz, speech (a loud
// tone) or silence, on a clock the test moves.
export const tone = (n: number, amplitude: number) =>
  Int16Array.from({ length: n }, (_, i) => Math.round(amplitude * Math.sin((2 * Math.PI * 440 * i) / 8000)));
export const SPEECH = tone(160, 8000);
export const SILENCE = new Int16Array(160);
/** Lets settled promises' continuations run. */
export const flushed = () => new Promise((r) => setTimeout(r, 0));

export function caller(push: (frame: Int16Array, at: number) => void) {
  const clock = { t: 0 };
  const frames = (n: number, frame: Int16Array) => {
    for (let i = 0; i < n; i++) {
      clock.t += 20;
      push(frame, clock.t);
    }
  };
  return { clock, speak: (ms: number) => frames(ms / 20, SPEECH), silent: (ms: number) => frames(ms / 20, SILENCE) };
}

/** A fake clock the stages read. */
export function fakeClock(start = 0) {
  const clock = { t: start, now: () => clock.t };
  return clock;
}

import type { Direction, Frame } from "../../../../src/calls/pipeline/frames";
import { Stage } from "../../../../src/calls/pipeline/pipeline";

/** A stage that keeps every frame it is given (and passes none on): the neighbour a stage under test talks to. */
export class Probe extends Stage {
  readonly name = "probe";
  readonly frames: Array<{ frame: Frame; direction: Direction }> = [];

  process(frame: Frame, direction: Direction): boolean {
    this.frames.push({ frame, direction });
    return true;
  }

  /** The frames of one type, in the order they came. */
  of<T extends Frame["type"]>(type: T): Array<Extract<Frame, { type: T }>> {
    return this.frames.map((f) => f.frame).filter((f): f is Extract<Frame, { type: T }> => f.type === type);
  }

  /** Sends a frame on from here. */
  send(frame: Frame, direction: Direction = "down"): void {
    this.push(frame, direction);
  }
}
