// The keypad stage: the caller's key presses (`key` frames from the transport) grouped into entries
// (src/calls/keypad.ts), each a caller turn for the context. The first key of an entry cuts the
// agent off, as speech does; `#` ends the entry at once, a pause ends it on the session's tick.
import { KeypadBuffer, type KeypadEntry } from "../keypad";
import type { Direction, Frame } from "./frames";
import { Stage } from "./pipeline";

export class KeypadStage extends Stage {
  readonly name = "keypad";

  constructor(private readonly buffer = new KeypadBuffer()) {
    super();
  }

  /** No entry is being typed. */
  get idle(): boolean {
    return !this.buffer.open;
  }

  process(frame: Frame, _direction: Direction): boolean {
    if (frame.type !== "key") return false;
    if (!this.buffer.open) this.push({ type: "keys-pressed", at: frame.at });
    const entry = this.buffer.press(frame.digit, frame.at);
    if (entry) this.entered(entry);
    return true;
  }

  /** The session's clock: an entry whose pause is over ends. */
  tick(now: number): void {
    const entry = this.buffer.due(now);
    if (entry) this.entered(entry);
  }

  private entered(e: KeypadEntry): void {
    this.push({ type: "keypad", digits: e.digits, startAt: e.startAt, endAt: e.endAt, waitMs: e.endAt - e.lastAt });
  }
}
