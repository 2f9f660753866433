// The streaming half of a call's voice loop (docs/calls.md, "The streaming loop"): the LLM's text
// cut into sentence-sized chunks, each chunk's speech requested as soon as the chunk is complete,
// and the audio sent to the caller in order as it arrives, the first chunk playing while the rest
// is generated. What the caller heard, when it is cut off, is worked out from where each chunk's
// audio sat on the playback timeline.
import { pcm16FromBytes, resample } from "./codec";

/** Words a period ends without ending the sentence. */
const ABBREVIATIONS = new Set(["mr", "mrs", "ms", "dr", "st", "jr", "sr", "vs", "etc", "e.g", "i.e", "approx", "no"]);
/** A chunk this long without a sentence end is cut at its last comma or space (a run-on reply still streams). */
const MAX_CHUNK_CHARS = 240;
/** The first chunk may end at a clause (a comma, colon, semicolon or dash) once it is this long. */
export const FIRST_CLAUSE_MIN_CHARS = 12;
/** A piece of a chunk (`pieces`) ends at a clause once it holds this many words (Cartesia: "at least 3 or 4 words" to start). */
export const PIECE_MIN_WORDS = 3;
/** ...or, with no clause mark, after this many whole words. */
export const PIECE_MAX_WORDS = 8;

/** Part of a chunk: `partial` while the chunk goes on (its words so far, up to a clause), else its end (maybe empty). */
export interface ChunkPiece {
  text: string;
  partial: boolean;
}

const wordsIn = (text: string) => text.split(/\s+/).filter(Boolean).length;

/**
 * Cuts streamed text into sentences: a chunk ends after `.`, `!`, `?` or `…` (and closing quotes)
 * followed by white space. The first chunk of a reply may end sooner, at its first clause of at
 * least FIRST_CLAUSE_MIN_CHARS ("Sure, I can do that." → "Sure, I can do that." but "Of course,
 * let me check" → "Of course," …): its speech is asked for a few tokens earlier, which is what the
 * caller waits for (Vapi's chunk plan cuts at commas too); later chunks are whole sentences, which
 * the voice reads with the better intonation while the first one plays.
 *
 * `pieces` gives the same chunks out as they are written, in clause-sized pieces (a voice fed text
 * as it comes speaks each at once): a piece ends at a clause mark once it holds PIECE_MIN_WORDS, or
 * after PIECE_MAX_WORDS whole words without one; the chunk's last piece is its end. One chunker
 * gives out chunks (`push`, `flush`) or pieces (`pieces`, `flushPieces`), not both.
 */
export class SentenceChunker {
  private buffer = "";
  private chunks = 0;
  /** How much of `buffer` was given out as partial pieces. */
  private given = 0;

  /** Adds a piece of text; returns the chunks it completed. */
  push(text: string): string[] {
    return this.take(text, false).map((p) => p.text);
  }

  /** Adds a piece of text; returns the pieces it completed, each chunk's last one not `partial`. */
  pieces(text: string): ChunkPiece[] {
    return this.take(text, true);
  }

  /** The rest, at the end of the reply; the next text starts a new reply (its first chunk may be a clause again). */
  flush(): string[] {
    return this.flushPieces().map((p) => p.text);
  }

  flushPieces(): ChunkPiece[] {
    const rest = this.buffer.slice(this.given).trim();
    const open = this.given > 0;
    this.buffer = "";
    this.chunks = 0;
    this.given = 0;
    return rest || open ? [{ text: rest, partial: false }] : [];
  }

  private take(text: string, partials: boolean): ChunkPiece[] {
    this.buffer += text;
    const out: ChunkPiece[] = [];
    const cut = (end: number) => {
      const chunk = this.buffer.slice(0, end).trim();
      const rest = this.buffer.slice(this.given, end).trim();
      this.buffer = this.buffer.slice(end);
      this.given = 0;
      if (chunk) {
        out.push({ text: rest, partial: false });
        this.chunks++;
      }
    };
    for (;;) {
      const end = this.chunks === 0 ? this.firstEnd() : this.sentenceEnd();
      if (end === -1) break;
      cut(end);
    }
    while (this.buffer.length > MAX_CHUNK_CHARS) {
      const head = this.buffer.slice(0, MAX_CHUNK_CHARS);
      const at = Math.max(head.lastIndexOf(", ") + 1, head.lastIndexOf(" "));
      cut(Math.max(at > 0 ? at : MAX_CHUNK_CHARS, this.given));
    }
    if (partials) this.partials(out);
    return out;
  }

  /** The chunk in progress, given out up to its last clause of enough words (or a long run of whole words). */
  private partials(out: ChunkPiece[]): void {
    const give = (end: number) => {
      out.push({ text: this.buffer.slice(this.given, end).trim(), partial: true });
      this.given = end;
    };
    const re = /[,;:—–]["'”’)\]]*(?=\s)/g;
    re.lastIndex = this.given;
    for (let m = re.exec(this.buffer); m; m = re.exec(this.buffer)) {
      const end = m.index + m[0].length;
      if (wordsIn(this.buffer.slice(this.given, end)) >= PIECE_MIN_WORDS) give(end);
    }
    const run = this.buffer.slice(this.given);
    const whole = run.search(/\s\S*$/); // the words before the last white space are complete
    if (whole > 0 && wordsIn(run.slice(0, whole)) >= PIECE_MAX_WORDS) give(this.given + whole);
  }

  /** The first chunk's end: the sentence's, or an earlier clause's once the chunk is long enough. */
  private firstEnd(): number {
    const sentence = this.sentenceEnd();
    const re = /[,;:—–]["'”’)\]]*(?=\s)/g;
    for (let m = re.exec(this.buffer); m; m = re.exec(this.buffer)) {
      const end = m.index + m[0].length;
      if (sentence !== -1 && end > sentence) break;
      if (this.buffer.slice(0, end).trim().length >= FIRST_CLAUSE_MIN_CHARS) return end;
    }
    return sentence;
  }

  /** Index just past the first complete sentence (its end mark and closing quotes), or -1. */
  private sentenceEnd(): number {
    const re = /[.!?…]+["'”’)\]]*(?=\s)/g;
    for (let m = re.exec(this.buffer); m; m = re.exec(this.buffer)) {
      const before = this.buffer.slice(0, m.index);
      const word = /([\p{L}.]+)$/u.exec(before)?.[1]?.toLowerCase() ?? "";
      if (m[0].startsWith(".") && m[0].length === 1 && (ABBREVIATIONS.has(word) || /^\p{L}$/u.test(word))) continue; // "Dr." "J."
      return m.index + m[0].length;
    }
    return -1;
  }
}

/**
 * 16-bit PCM bytes at `from` Hz arriving in chunks of any length (a chunk may split a sample)
 * resampled to `to` Hz in whole blocks, so the chunk boundaries leave no seams.
 */
export class PcmResampler {
  private carry = new Uint8Array(0);
  private readonly block: number;

  constructor(
    private readonly from: number,
    private readonly to: number,
  ) {
    const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
    this.block = from / gcd(from, to); // input samples that map to a whole number of output samples
  }

  push(bytes: Uint8Array): Int16Array {
    const joined = new Uint8Array(this.carry.length + bytes.length);
    joined.set(this.carry);
    joined.set(bytes, this.carry.length);
    const samples = Math.floor(joined.length / 2);
    const usable = samples - (samples % this.block);
    this.carry = joined.slice(usable * 2);
    if (usable === 0) return new Int16Array(0);
    return resample(pcm16FromBytes(joined.subarray(0, usable * 2)), this.from, this.to);
  }

  flush(): Int16Array {
    const rest = this.carry;
    this.carry = new Uint8Array(0);
    return rest.length >= 2
      ? resample(pcm16FromBytes(rest.subarray(0, rest.length - (rest.length % 2))), this.from, this.to)
      : new Int16Array(0);
  }
}

/** One chunk of an utterance on the playback timeline (epoch ms). */
export interface PlayedChunk {
  text: string;
  startAt: number;
  endAt: number;
}

/** What the caller heard of the chunks by `at`: whole chunks that finished, and the share of words of the one playing. */
export function heardText(chunks: PlayedChunk[], at: number): string {
  return wordsPlayed(chunks, at, Math.floor);
}

/**
 * What the caller heard of a reply they cut into, their speech starting at `at`: whole chunks that
 * finished, and of the one playing its words up to the cut, the word being said included. At least
 * its first word: the reply played until the cut was heard, always after its audio began, so a
 * greeting cut in its first word (or by a caller already speaking when it started) is not an empty
 * turn. A hang-up uses heardText (nothing, or the whole text when it was shown; transport-out.ts).
 */
export function heardBeforeCut(chunks: PlayedChunk[], at: number): string {
  const first = chunks[0];
  return first ? wordsPlayed(chunks, Math.max(at, first.startAt + 1), Math.ceil) : "";
}

function wordsPlayed(chunks: PlayedChunk[], at: number, round: (share: number) => number): string {
  const parts: string[] = [];
  for (const c of chunks) {
    if (at >= c.endAt) parts.push(c.text);
    else if (at > c.startAt) {
      const words = c.text.split(/\s+/).filter(Boolean);
      const n = round((words.length * (at - c.startAt)) / Math.max(1, c.endAt - c.startAt));
      if (n > 0) parts.push(words.slice(0, n).join(" "));
      break;
    } else break;
  }
  return parts.join(" ");
}

/** Where an utterance's audio goes: to the caller, resampled from the provider's rate, until `signal` aborts. */
export interface SpeechOutput {
  /** Sends audio (at `rate`) to the caller; called in order. */
  send(samples: Int16Array): void;
  /** The provider's rate (24 kHz) and the transport's. */
  fromRate: number;
  rate: number;
  signal: AbortSignal;
  now?: () => number;
}

export interface UtteranceOptions extends SpeechOutput {
  /** The speech of one chunk, metered, streamed to `onAudio` (24 kHz PCM bytes); rejects on failure or cancel. */
  synthesize(text: string, onAudio: (bytes: Uint8Array) => void, signal: AbortSignal): Promise<unknown>;
}

interface Slot {
  text: string;
  /** Called when the chunk's audio starts going out, before onChunkStart. */
  before: (() => void) | null;
  pieces: Int16Array[];
  done: boolean;
  error: unknown;
  wake: (() => void) | null;
  requestedAt: number;
  firstAudioAt: number | null;
}

/**
 * Speech for chunks added one by one: each chunk's request starts when it is added (so chunk n+1
 * is made while chunk n plays), and the audio goes out in chunk order as it arrives.
 */
export class Utterance {
  private readonly slots: Slot[] = [];
  private ended = false;
  private wakeReader: (() => void) | null = null;
  private readonly now: () => number;
  /** Where each chunk sits on the caller's playback timeline. */
  readonly timeline: PlayedChunk[] = [];
  /** When the first audio was sent, and how long its chunk's speech took to its first byte. */
  firstAudio: { at: number; ttsMs: number } | null = null;
  /** When the audio sent so far ends playing (epoch ms). */
  playhead = 0;
  /** Fires once, when the first audio goes out. */
  onFirstAudio: (() => void) | null = null;
  /** Fires when a chunk's audio starts going out. */
  onChunkStart: ((text: string) => void) | null = null;
  /** Resolves when every chunk was sent (or rejects with the first failure, cancels included). */
  readonly done: Promise<void>;

  constructor(private readonly opts: UtteranceOptions) {
    this.now = opts.now ?? Date.now;
    this.done = this.play();
    this.done.catch(() => undefined); // the owner awaits it; no unhandled rejection meanwhile
  }

  get chunks(): number {
    return this.slots.length;
  }

  /** Adds a chunk: its speech is requested now. `before` runs when its audio starts going out (in playback order). */
  add(text: string, before?: () => void): void {
    if (this.ended) throw new Error("the utterance is closed");
    const slot: Slot = {
      text,
      before: before ?? null,
      pieces: [],
      done: false,
      error: null,
      wake: null,
      requestedAt: this.now(),
      firstAudioAt: null,
    };
    this.slots.push(slot);
    const resampler = new PcmResampler(this.opts.fromRate, this.opts.rate);
    const wake = () => {
      const w = slot.wake;
      slot.wake = null;
      w?.();
    };
    this.opts
      .synthesize(
        text,
        (bytes) => {
          slot.firstAudioAt ??= this.now();
          const samples = resampler.push(bytes);
          if (samples.length > 0) slot.pieces.push(samples);
          wake();
        },
        this.opts.signal,
      )
      .then(
        () => {
          const rest = resampler.flush();
          if (rest.length > 0) slot.pieces.push(rest);
        },
        (err: unknown) => {
          slot.error = err;
        },
      )
      .finally(() => {
        slot.done = true;
        wake();
      });
    const w = this.wakeReader;
    this.wakeReader = null;
    w?.();
  }

  /** No more chunks will come. */
  end(): void {
    this.ended = true;
    const w = this.wakeReader;
    this.wakeReader = null;
    w?.();
  }

  private async play(): Promise<void> {
    for (let i = 0; ; i++) {
      while (this.slots.length <= i && !this.ended) await new Promise<void>((r) => (this.wakeReader = r));
      const slot = this.slots[i];
      if (!slot) return; // ended, every chunk sent
      let started = false;
      for (;;) {
        const piece = slot.pieces.shift();
        if (piece) {
          if (this.opts.signal.aborted) throw this.opts.signal.reason ?? new Error("cancelled");
          const at = this.now();
          if (!this.firstAudio) {
            this.firstAudio = { at, ttsMs: (slot.firstAudioAt ?? at) - slot.requestedAt };
            this.playhead = at;
            this.onFirstAudio?.();
          }
          if (!started) {
            started = true;
            const startAt = Math.max(at, this.playhead);
            this.timeline.push({ text: slot.text, startAt, endAt: startAt });
            slot.before?.();
            this.onChunkStart?.(slot.text);
          }
          this.playhead = Math.max(this.playhead, at) + (piece.length / this.opts.rate) * 1000;
          (this.timeline.at(-1) as PlayedChunk).endAt = this.playhead;
          this.opts.send(piece);
          continue;
        }
        if (slot.done) {
          if (slot.error !== null) throw slot.error;
          break;
        }
        await new Promise<void>((r) => (slot.wake = r));
      }
    }
  }
}
