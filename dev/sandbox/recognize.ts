// Acoustic recall for the provider sandbox's transcription: the sandbox remembers every speech it
// synthesized (the last SPEECH_MEMORY_SIZE) by its loudness envelope, and a transcription of audio
// without the sandbox's metadata (a phone call's μ-law audio captured by the worker, for example)
// gets the remembered text when its envelope matches one closely. It is a match against the
// sandbox's own recent speech, not recognition: anything else (another sentence, noise, silence, a
// fragment) matches nothing and gets the empty transcript.
//
// The envelope: the audio resampled to 8 kHz (the telephone rate, the lowest any path uses), the
// RMS of each 20 ms frame in dB, floored 50 dB under the loudest frame, with the frames quieter
// than 26 dB under the loudest trimmed from both ends. Two envelopes of similar length (within
// 20%) are compared by Pearson correlation over their overlap, at the best of ±5 frames of offset.
import { FRAME_MS, resample, rms, TELEPHONY_RATE } from "../../src/calls/codec";

/** Speeches remembered; the oldest is forgotten first. */
export const SPEECH_MEMORY_SIZE = 1_000;
/**
 * Similarity at or above which a remembered speech is the transcript. Measured over 13 voices ×
 * 20 sentences × 5 ways of capturing them from a phone line (8 kHz μ-law, back at 8 or 16 kHz,
 * 0 to 100 ms of the onset clipped, up to 500 ms of silence around): the right sentence scores
 * 0.93 to 1.00 (1st percentile 0.99); another sentence of similar length at most 0.76; noise,
 * noise bursts and tones at most 0.56. See docs/sandbox.md.
 */
export const MATCH_THRESHOLD = 0.85;
/** Envelopes shorter than this (0.5 s of speech) never match: "Yes." and "No." look alike. */
export const MIN_MATCH_FRAMES = 25;
/** The lengths (after trimming) may differ by this ratio at most. */
const MAX_LENGTH_RATIO = 1.2;
const MAX_LAG_FRAMES = 5;
/** A runner-up with another text this close to the best makes the match ambiguous: no transcript. */
const AMBIGUITY_MARGIN = 0.05;
const TRIM_DB = 26;
const FLOOR_DB = 50;
/** Frames under this RMS (16-bit scale) are silence whatever the loudest frame is. */
const SILENCE_RMS = 30;

const FRAME_SAMPLES = (TELEPHONY_RATE * FRAME_MS) / 1000;

/** The trimmed dB loudness envelope of mono 16-bit samples (one value per 20 ms at 8 kHz). Empty for silence. */
export function loudnessEnvelope(samples: Int16Array, sampleRate: number): Float64Array {
  const s = resample(samples, sampleRate, TELEPHONY_RATE);
  const levels: number[] = [];
  for (let at = 0; at + FRAME_SAMPLES <= s.length; at += FRAME_SAMPLES) levels.push(rms(s.subarray(at, at + FRAME_SAMPLES)));
  const peak = levels.reduce((m, v) => Math.max(m, v), 0);
  const keep = Math.max(peak * 10 ** (-TRIM_DB / 20), SILENCE_RMS);
  let start = 0;
  let end = levels.length;
  while (start < end && (levels[start] as number) < keep) start++;
  while (end > start && (levels[end - 1] as number) < keep) end--;
  const floor = peak * 10 ** (-FLOOR_DB / 20);
  return Float64Array.from(levels.slice(start, end), (v) => 20 * Math.log10(Math.max(v, floor)));
}

/** Pearson correlation of two envelopes over their overlap, at the best small offset (-1 to 1). */
export function envelopeSimilarity(a: Float64Array, b: Float64Array): number {
  let best = -1;
  for (let lag = -MAX_LAG_FRAMES; lag <= MAX_LAG_FRAMES; lag++) {
    const from = Math.max(0, -lag);
    const to = Math.min(a.length, b.length - lag);
    const n = to - from;
    if (n < MIN_MATCH_FRAMES - MAX_LAG_FRAMES) continue;
    let sa = 0;
    let sb = 0;
    for (let i = from; i < to; i++) {
      sa += a[i] as number;
      sb += b[i + lag] as number;
    }
    const ma = sa / n;
    const mb = sb / n;
    let sab = 0;
    let saa = 0;
    let sbb = 0;
    for (let i = from; i < to; i++) {
      const da = (a[i] as number) - ma;
      const db = (b[i + lag] as number) - mb;
      sab += da * db;
      saa += da * da;
      sbb += db * db;
    }
    if (saa === 0 || sbb === 0) continue;
    const r = sab / Math.sqrt(saa * sbb);
    if (r > best) best = r;
  }
  return best;
}

export interface Recall {
  text: string;
  /** The similarity of the best candidate (0 to 1). */
  score: number;
}

export class SpeechMemory {
  /** Insertion-ordered, so the first key is the oldest. */
  private entries = new Map<string, { text: string; envelope: Float64Array }>();

  constructor(private readonly size = SPEECH_MEMORY_SIZE) {}

  /** Remembers a speech. `key` identifies identical audio (the same text, voice and speed) so it is stored once. */
  remember(key: string, text: string, samples: Int16Array, sampleRate: number): void {
    const envelope = loudnessEnvelope(samples, sampleRate);
    if (envelope.length < MIN_MATCH_FRAMES) return;
    this.entries.delete(key);
    this.entries.set(key, { text, envelope });
    while (this.entries.size > this.size) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }

  /**
   * The remembered text whose envelope matches these samples, or undefined: too short, nothing
   * close enough, or two different texts about equally close.
   */
  recall(samples: Int16Array, sampleRate: number): Recall | undefined {
    const query = loudnessEnvelope(samples, sampleRate);
    if (query.length < MIN_MATCH_FRAMES) return undefined;
    const byText = new Map<string, number>(); // the best score of each text
    for (const { text, envelope } of this.entries.values()) {
      const ratio = query.length / envelope.length;
      if (ratio > MAX_LENGTH_RATIO || ratio < 1 / MAX_LENGTH_RATIO) continue;
      const score = envelopeSimilarity(query, envelope);
      if (score > (byText.get(text) ?? -1)) byText.set(text, score);
    }
    const [best, runnerUp] = [...byText].sort((x, y) => y[1] - x[1]);
    if (!best || best[1] < MATCH_THRESHOLD || (runnerUp && best[1] - runnerUp[1] < AMBIGUITY_MARGIN)) return undefined;
    return { text: best[0], score: best[1] };
  }

  /**
   * The remembered speech this audio is the beginning of, or the whole of (a stream's recognition
   * while the caller is still speaking): its text, the score, and `coverage`, the part of the
   * remembered envelope the audio spans (0 to 1). The audio's envelope is compared with the same
   * length of each remembered one's start, by the same correlation and threshold as `recall`; a
   * remembered speech shorter than the audio (beyond the length ratio) is not a candidate.
   * Undefined: under 0.5 s of speech, nothing close enough, or two texts about equally close (many
   * sentences begin alike: "Hello" is no one's prefix until it goes on).
   */
  recallPrefix(samples: Int16Array, sampleRate: number): (Recall & { coverage: number }) | undefined {
    const query = loudnessEnvelope(samples, sampleRate);
    if (query.length < MIN_MATCH_FRAMES) return undefined;
    const byText = new Map<string, { score: number; coverage: number }>();
    for (const { text, envelope } of this.entries.values()) {
      if (query.length > envelope.length * MAX_LENGTH_RATIO) continue;
      const score = envelopeSimilarity(query, envelope.subarray(0, Math.min(envelope.length, query.length + MAX_LAG_FRAMES)));
      if (score > (byText.get(text)?.score ?? -1)) byText.set(text, { score, coverage: Math.min(1, query.length / envelope.length) });
    }
    const [best, runnerUp] = [...byText].sort((x, y) => y[1].score - x[1].score);
    if (!best || best[1].score < MATCH_THRESHOLD || (runnerUp && best[1].score - runnerUp[1].score < AMBIGUITY_MARGIN)) return undefined;
    return { text: best[0], score: best[1].score, coverage: best[1].coverage };
  }

  get count(): number {
    return this.entries.size;
  }
}
