// Input streaming for the TTS stage (docs/calls.md, "Input streaming"): a reply's speech made by
// one provider utterance (a Cartesia context) fed the reply's clauses as they are written, its
// audio sent to the caller as it comes. The provider's audio is one stream, not cut per piece, so
// where each piece's words sit on the playback timeline (what the caller heard, when cut) is
// placed by their characters at a spoken pace.
import type { SpeechStream } from "../../providers/types";
import { PcmResampler, type PlayedChunk, type SpeechOutput, type Utterance } from "../utterance";

/** One utterance of a provider fed text as it is written, metered (src/metering/speech.ts: `speechSession`). */
export type SpeechSession = SpeechStream;
/** Opens a session for one reply; `signal` cancels it (the provider's context, its socket). */
export type OpenSpeech = (signal: AbortSignal) => SpeechSession;

/** What the TTS stage speaks a reply with: an Utterance (a request per chunk) or an InputUtterance. */
export type Speech = Pick<Utterance, "add" | "end" | "done" | "timeline" | "firstAudio" | "playhead" | "onFirstAudio" | "onChunkStart">;

/** The pace a piece's words are placed at on the audio: about 15 characters a second, a conversational 160 words a minute. */
export const SPOKEN_CHARS_PER_SECOND = 15;

export interface InputUtteranceOptions extends SpeechOutput {
  /** Called on the first text: a reply with no words opens nothing. */
  open: OpenSpeech;
}

interface Piece {
  text: string;
  before: (() => void) | null;
  /** Where its words start in the session's audio (ms), estimated. */
  startMs: number;
}

/** A reply's speech through one session: pieces go in as they are added, audio goes out as it comes. */
export class InputUtterance implements Speech {
  readonly timeline: PlayedChunk[] = [];
  firstAudio: { at: number; ttsMs: number } | null = null;
  playhead = 0;
  onFirstAudio: (() => void) | null = null;
  onChunkStart: ((text: string) => void) | null = null;
  readonly done: Promise<void>;
  private readonly now: () => number;
  private session: SpeechSession | null = null;
  private readonly pieces: Piece[] = [];
  /** Pieces whose audio has started going out. */
  private started = 0;
  /** Characters given to the session so far, and the audio sent so far (ms). */
  private chars = 0;
  private sentMs = 0;
  /** When the first text went in: the speech's time counts from there. */
  private requestedAt = 0;
  /** Tool turns of an empty piece, run with the next words. */
  private before: (() => void) | null = null;
  private ended = false;
  private wake: (() => void) | null = null;

  constructor(private readonly opts: InputUtteranceOptions) {
    this.now = opts.now ?? Date.now;
    this.done = this.play();
    this.done.catch(() => undefined); // the owner awaits it; no unhandled rejection meanwhile
  }

  /** Adds a piece (its words go to the provider now, a space between pieces); `before` runs when its audio starts. */
  add(text: string, before?: () => void): void {
    if (this.ended) throw new Error("the utterance is closed");
    if (this.opts.signal.aborted) return; // cancelled: nothing more goes to the provider
    const words = text.trim();
    const run = before ?? this.before;
    if (!words) {
      this.before = run;
      return;
    }
    this.before = null;
    if (!this.session) {
      this.requestedAt = this.now();
      this.session = this.opts.open(this.opts.signal);
    }
    const sent = this.chars > 0 ? ` ${words}` : words;
    this.pieces.push({ text: words, before: run, startMs: (this.chars / SPOKEN_CHARS_PER_SECOND) * 1000 });
    this.chars += [...sent].length;
    this.session.push(sent);
    this.wakeUp();
  }

  /** No more pieces will come. */
  end(): void {
    this.ended = true;
    this.session?.end();
    this.wakeUp();
  }

  private wakeUp(): void {
    const w = this.wake;
    this.wake = null;
    w?.();
  }

  private async play(): Promise<void> {
    while (!this.session && !this.ended) await new Promise<void>((r) => (this.wake = r));
    if (!this.session) return; // nothing was said
    const resampler = new PcmResampler(this.opts.fromRate, this.opts.rate);
    let firstByteAt: number | null = null;
    for await (const bytes of this.session.audio) {
      firstByteAt ??= this.now();
      this.out(resampler.push(bytes), firstByteAt);
    }
    this.out(resampler.flush(), firstByteAt ?? this.now());
    // Words the estimate placed past the audio's end were said within it.
    if (this.firstAudio) while (this.started < this.pieces.length) this.startPiece(this.now());
  }

  /** Sends samples, starting each piece whose estimated place they reach. */
  private out(samples: Int16Array, firstByteAt: number): void {
    if (samples.length === 0) return;
    if (this.opts.signal.aborted) throw this.opts.signal.reason ?? new Error("cancelled");
    if (!this.firstAudio) {
      const at = this.now();
      this.firstAudio = { at, ttsMs: firstByteAt - this.requestedAt };
      this.playhead = at;
      this.onFirstAudio?.();
    }
    const { rate } = this.opts;
    for (let from = 0; from < samples.length; ) {
      const next = this.pieces[this.started];
      const until = next ? Math.ceil(((next.startMs - this.sentMs) * rate) / 1000) : Number.POSITIVE_INFINITY;
      if (next && (until <= 0 || this.started === 0)) {
        this.startPiece(this.now());
        continue;
      }
      const part = samples.subarray(from, from + Math.min(samples.length - from, until));
      from += part.length;
      const ms = (part.length / rate) * 1000;
      this.sentMs += ms;
      this.playhead = Math.max(this.playhead, this.now()) + ms;
      const last = this.timeline.at(-1);
      if (last) last.endAt = this.playhead;
      this.opts.send(part);
    }
  }

  private startPiece(at: number): void {
    const piece = this.pieces[this.started++] as Piece;
    const startAt = Math.max(at, this.playhead);
    this.timeline.push({ text: piece.text, startAt, endAt: startAt });
    piece.before?.();
    this.onChunkStart?.(piece.text);
  }
}
