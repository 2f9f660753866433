// Turn detection, the floor the issue sets: voice activity by frame energy against an adaptive
// noise floor, with a start delay (so a click is not speech) and an end-of-turn silence
// (endpointing). Frames are 20 ms of 16-bit samples at the transport's rate. A shorter silence
// inside the turn is a pause: the STT stage transcribes the turn so far on it (speculatively), and
// may end the turn before the endpointing wait when that transcript ends a sentence
// (src/calls/pipeline/stt.ts; docs/calls.md, "Turn-taking").
import { FRAME_MS, rms } from "./codec";

export interface TurnOptions {
  sampleRate: number;
  /** Silence after speech that ends the turn. */
  endpointingMs: number;
  /**
   * Silence after speech that makes a pause (the turn still open): a `pause` event, then `resume`
   * when speech comes back before the turn ended. No pauses when unset or not shorter than `endpointingMs`.
   */
  pauseMs?: number;
  /** Speech must last this long to count (and to interrupt the agent). */
  startMs?: number;
  /** Audio kept from before the detected start, so the first syllable is not clipped. */
  preRollMs?: number;
  /** A turn longer than this is cut and handed on (a caller who never pauses). */
  maxTurnMs?: number;
  /** Loudness (RMS of 16-bit samples) below which a frame is never speech. */
  minThreshold?: number;
}

// What a turn's taking records is stored with the transcript, so its type lives with the schema.
export type { TurnTaking } from "../db/schema/calls";

export type TurnEnd = {
  type: "turn-end";
  audio: Int16Array;
  speechStartAt: number;
  speechEndAt: number;
  at: number;
  /** The pause the turn ended in (its id), null when it was cut while the caller spoke. */
  pause: number | null;
};

export type TurnEvent =
  | { type: "speech-start"; at: number }
  /** The caller paused: `audio` is the turn so far (its trailing silence included). */
  | { type: "pause"; pause: number; audio: Int16Array; speechStartAt: number; speechEndAt: number; at: number }
  /** Speech came back within the turn: the pause is over, what was made of its audio is stale. */
  | { type: "resume"; pause: number; at: number }
  | TurnEnd;

/** Words a final period follows without ending the sentence ("Dr." waits for the name). Not "No.": as an answer it is whole. */
const OPEN_ABBREVIATIONS = new Set(["mr", "mrs", "ms", "dr", "st", "vs", "e.g", "i.e"]);

/**
 * Whether a transcript ends a sentence: `.`, `?` or `!` (closing quotes allowed), not an
 * abbreviation or an initial ("Dr.", "J."), not a trailing-off ellipsis ("…", "...").
 */
export function endsSentence(text: string): boolean {
  const t = text.trim();
  const m = /([.?!]+)["'”’)\]]*$/.exec(t);
  if (!m?.[1] || m[1].startsWith("..")) return false;
  if (m[1] === ".") {
    const word = /([\p{L}.]+)$/u.exec(t.slice(0, m.index))?.[1]?.toLowerCase() ?? "";
    if (OPEN_ABBREVIATIONS.has(word) || /^\p{L}$/u.test(word)) return false;
  }
  return true;
}

export class TurnDetector {
  private readonly startFrames: number;
  private readonly endFrames: number;
  private readonly pauseFrames: number;
  private readonly preRollFrames: number;
  private readonly maxFrames: number;
  private readonly minThreshold: number;
  private noise = 0;
  private voiced = 0;
  private quiet = 0;
  private speaking = false;
  private loud = false;
  private speechStartAt = 0;
  private lastSpeechAt = 0;
  private recent: Int16Array[] = [];
  private turn: Int16Array[] = [];
  private pauses = 0;
  /** The pause the caller is in (its id), null while they speak. */
  private paused: number | null = null;

  constructor(opts: TurnOptions) {
    this.startFrames = Math.max(1, Math.round((opts.startMs ?? 60) / FRAME_MS));
    this.endFrames = Math.max(1, Math.round(opts.endpointingMs / FRAME_MS));
    const pause = opts.pauseMs ? Math.max(1, Math.round(opts.pauseMs / FRAME_MS)) : 0;
    this.pauseFrames = pause < this.endFrames ? pause : 0;
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

  /** Whether the last frame pushed was loud (speech or noise above the floor). */
  get lastLoud(): boolean {
    return this.loud;
  }

  push(frame: Int16Array, at: number): TurnEvent[] {
    const level = rms(frame);
    const loud = level > this.threshold();
    this.loud = loud;
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
      if (this.paused !== null) {
        events.push({ type: "resume", pause: this.paused, at });
        this.paused = null;
      }
    } else this.quiet++;
    if (this.quiet >= this.endFrames || this.turn.length >= this.maxFrames) events.push(this.close(at));
    else if (this.pauseFrames > 0 && this.quiet === this.pauseFrames) {
      this.paused = ++this.pauses;
      events.push({
        type: "pause",
        pause: this.paused,
        audio: this.audio(),
        speechStartAt: this.speechStartAt,
        speechEndAt: this.lastSpeechAt + FRAME_MS,
        at,
      });
    }
    return events;
  }

  /**
   * Ends the turn now, inside the endpointing wait, when the caller is still in pause `pause`
   * (nothing was said since): its transcript ended a sentence. Null when speech came back or the
   * turn already ended.
   */
  endInPause(pause: number, at: number): TurnEnd | null {
    return this.speaking && this.paused === pause ? this.close(at) : null;
  }

  /**
   * The caller's turn in progress, closed now: the call is ending (they hung up) inside the
   * endpointing wait, so this speech would otherwise never become a turn. Null when not speaking.
   */
  flush(at: number): TurnEnd | null {
    return this.speaking ? this.close(at) : null;
  }

  private audio(): Int16Array {
    const total = this.turn.reduce((n, f) => n + f.length, 0);
    const audio = new Int16Array(total);
    let o = 0;
    for (const f of this.turn) {
      audio.set(f, o);
      o += f.length;
    }
    return audio;
  }

  private close(at: number): TurnEnd {
    const event: TurnEnd = {
      type: "turn-end",
      audio: this.audio(),
      speechStartAt: this.speechStartAt,
      speechEndAt: this.lastSpeechAt + FRAME_MS,
      at,
      pause: this.paused,
    };
    this.speaking = false;
    this.voiced = 0;
    this.quiet = 0;
    this.paused = null;
    this.turn = [];
    return event;
  }
}
