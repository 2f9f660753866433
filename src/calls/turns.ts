// Turn detection, the floor the issue sets: voice activity by frame energy against an adaptive
// noise floor, with a start delay (so a click is not speech) and an end-of-turn silence
// (endpointing). Frames are 20 ms of 16-bit samples at the transport's rate.
import { FRAME_MS, rms } from "./codec";

export interface TurnOptions {
  sampleRate: number;
  /** Silence after speech that ends the turn. */
  endpointingMs: number;
  /** Speech must last this long to count (and to interrupt the agent). */
  startMs?: number;
  /** Audio kept from before the detected start, so the first syllable is not clipped. */
  preRollMs?: number;
  /** A turn longer than this is cut and handed on (a caller who never pauses). */
  maxTurnMs?: number;
  /** Loudness (RMS of 16-bit samples) below which a frame is never speech. */
  minThreshold?: number;
}

export type TurnEvent =
  | { type: "speech-start"; at: number }
  | { type: "turn-end"; audio: Int16Array; speechStartAt: number; speechEndAt: number; at: number };

export class TurnDetector {
  private readonly startFrames: number;
  private readonly endFrames: number;
  private readonly preRollFrames: number;
  private readonly maxFrames: number;
  private readonly minThreshold: number;
  private noise = 0;
  private voiced = 0;
  private quiet = 0;
  private speaking = false;
  private speechStartAt = 0;
  private lastSpeechAt = 0;
  private recent: Int16Array[] = [];
  private turn: Int16Array[] = [];

  constructor(opts: TurnOptions) {
    this.startFrames = Math.max(1, Math.round((opts.startMs ?? 60) / FRAME_MS));
    this.endFrames = Math.max(1, Math.round(opts.endpointingMs / FRAME_MS));
    this.preRollFrames = Math.round((opts.preRollMs ?? 200) / FRAME_MS);
    this.maxFrames = Math.round((opts.maxTurnMs ?? 30_000) / FRAME_MS);
    this.minThreshold = opts.minThreshold ?? 400;
  }

  /** True while the caller is speaking (after the start delay). */
  get inSpeech(): boolean {
    return this.speaking;
  }

  private threshold(): number {
    return Math.max(this.minThreshold, this.noise * 3);
  }

  push(frame: Int16Array, at: number): TurnEvent[] {
    const level = rms(frame);
    const loud = level > this.threshold();
    const events: TurnEvent[] = [];
    if (!this.speaking) {
      // Track the background level only outside speech, slowly.
      if (!loud) this.noise = this.noise === 0 ? level : this.noise * 0.95 + level * 0.05;
      this.recent.push(frame);
      if (this.recent.length > this.preRollFrames + this.startFrames) this.recent.shift();
      this.voiced = loud ? this.voiced + 1 : 0;
      if (this.voiced >= this.startFrames) {
        this.speaking = true;
        this.quiet = 0;
        this.turn = this.recent;
        this.recent = [];
        this.speechStartAt = at - (this.startFrames - 1) * FRAME_MS;
        this.lastSpeechAt = at;
        events.push({ type: "speech-start", at: this.speechStartAt });
      }
      return events;
    }
    this.turn.push(frame);
    if (loud) {
      this.quiet = 0;
      this.lastSpeechAt = at;
    } else this.quiet++;
    if (this.quiet >= this.endFrames || this.turn.length >= this.maxFrames) events.push(this.close(at));
    return events;
  }

  /**
   * The caller's turn in progress, closed now: the call is ending (they hung up) inside the
   * endpointing wait, so this speech would otherwise never become a turn. Null when not speaking.
   */
  flush(at: number): Extract<TurnEvent, { type: "turn-end" }> | null {
    return this.speaking ? this.close(at) : null;
  }

  private close(at: number): Extract<TurnEvent, { type: "turn-end" }> {
    const total = this.turn.reduce((n, f) => n + f.length, 0);
    const audio = new Int16Array(total);
    let o = 0;
    for (const f of this.turn) {
      audio.set(f, o);
      o += f.length;
    }
    const event: Extract<TurnEvent, { type: "turn-end" }> = {
      type: "turn-end",
      audio,
      speechStartAt: this.speechStartAt,
      speechEndAt: this.lastSpeechAt + FRAME_MS,
      at,
    };
    this.speaking = false;
    this.voiced = 0;
    this.quiet = 0;
    this.turn = [];
    return event;
  }
}
