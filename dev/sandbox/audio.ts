// POST /v1/audio/speech and POST /v1/audio/transcriptions of the provider sandbox.
// Speech is real: eSpeak (the `mespeak` npm package) in a worker thread. Transcription is not
// recognition: the sandbox writes the spoken text into the WAVs it produces (a LIST/INFO chunk
// that players ignore) and reads it back; audio without that chunk (its `pcm` output after a phone
// line's 8 kHz μ-law, say) is matched by loudness envelope against the speech it synthesized
// recently (recognize.ts) and gets that text when one matches closely. Any other audio is measured
// and gets an empty transcript.
import { Worker } from "node:worker_threads";
import { pcm16FromBytes } from "../../src/calls/codec";
import { invalid } from "./errors";
import type { SpeechMemory } from "./recognize";
import { buildWav, infoChunk, parseWav, resample16, SANDBOX_SOFTWARE, WavError, wavSamples } from "./wav";

// ---------------------------------------------------------------------------------------------
// Voices: each OpenAI voice name is an eSpeak voice + variant + pitch, so they sound different.

export interface VoiceProfile {
  voice: "en/en-us" | "en/en" | "en/en-rp" | "en/en-sc";
  variant: string;
  pitch: number;
}

export const VOICES: Record<string, VoiceProfile> = {
  alloy: { voice: "en/en-us", variant: "m3", pitch: 50 },
  ash: { voice: "en/en-us", variant: "m1", pitch: 40 },
  ballad: { voice: "en/en-rp", variant: "m2", pitch: 55 },
  cedar: { voice: "en/en", variant: "m6", pitch: 35 },
  coral: { voice: "en/en-us", variant: "f2", pitch: 55 },
  echo: { voice: "en/en-us", variant: "m6", pitch: 30 },
  fable: { voice: "en/en-rp", variant: "m4", pitch: 50 },
  marin: { voice: "en/en-us", variant: "f5", pitch: 50 },
  nova: { voice: "en/en-us", variant: "f1", pitch: 60 },
  onyx: { voice: "en/en-us", variant: "m4", pitch: 20 },
  sage: { voice: "en/en", variant: "f3", pitch: 50 },
  shimmer: { voice: "en/en-us", variant: "f4", pitch: 70 },
  verse: { voice: "en/en-sc", variant: "m5", pitch: 50 },
};

export const SPEECH_MAX_CHARS = 4096;
/** OpenAI's `pcm`: 16-bit signed little-endian mono at 24 kHz, no header. */
export const PCM_SAMPLE_RATE = 24_000;
const ESPEAK_WPM = 175; // eSpeak's normal rate: OpenAI speed 1.0
const ESPEAK_MIN_WPM = 80; // eSpeak goes no slower; below, word gaps stretch the speech

// ---------------------------------------------------------------------------------------------
// The synthesizer worker

interface Job {
  text: string;
  voice: string;
  variant: string;
  pitch: number;
  wpm: number;
  wordgap: number;
}

/**
 * mespeak grows an internal array on every call: its thread dies with a V8 "invalid size" error
 * after 50 to 100 syntheses. So each worker thread serves this many jobs, then is retired (ended
 * once its last job is answered) and a fresh one takes the next job.
 */
export const JOBS_PER_WORKER = 25;

/** Speeches the sandbox keeps (a few MB): the lines a bench or a test repeats are rendered once. */
export const REMEMBERED_SPEECHES = 256;

export class Synthesizer {
  /**
   * The speech of each (text, voice, speed) made so far, most recent last, in flight included, so
   * that concurrent asks for the same line share one rendering. eSpeak is deterministic, so the
   * audio is the same either way; what changes is that 32 simultaneous calls saying the same line
   * no longer queue on the one eSpeak thread (a hosted provider serves them in parallel), and the
   * sandbox's speech time is the latency profile's, not this machine's CPU.
   */
  private readonly remembered = new Map<string, Promise<{ pcm: Buffer; sampleRate: number }>>();
  /** Speeches rendered by eSpeak (not served from memory). */
  rendered = 0;
  private worker: Worker | undefined;

  constructor(private readonly remember = REMEMBERED_SPEECHES) {}

  private served = 0;
  private nextId = 1;
  /** In-flight jobs, per worker, so retiring or losing one worker never fails another's jobs. */
  private pending = new Map<Worker, Map<number, { resolve(wav: Buffer): void; reject(err: Error): void }>>();
  private retired = new Set<Worker>();

  private spawn(): Worker {
    const worker = new Worker(new URL("./tts-worker.cjs", import.meta.url));
    worker.unref(); // a forgotten stop() does not keep the process alive
    const jobs = new Map<number, { resolve(wav: Buffer): void; reject(err: Error): void }>();
    this.pending.set(worker, jobs);
    const finishIfRetired = () => {
      if (this.retired.has(worker) && jobs.size === 0) void worker.terminate();
    };
    worker.on("message", (msg: { id: number; wav?: ArrayBuffer; error?: string }) => {
      const p = jobs.get(msg.id);
      if (!p) return;
      jobs.delete(msg.id);
      if (msg.wav) p.resolve(Buffer.from(msg.wav));
      else {
        p.reject(new Error(`speech synthesis failed: ${msg.error ?? "unknown error"}`));
        // eSpeak's state after a failure is not trusted: the next job gets a fresh worker.
        this.retire(worker);
      }
      finishIfRetired();
    });
    const fail = (err: Error) => {
      if (this.worker === worker) this.worker = undefined;
      for (const [id, p] of jobs) {
        jobs.delete(id);
        p.reject(err);
      }
      this.pending.delete(worker);
      this.retired.delete(worker);
    };
    worker.on("error", fail);
    worker.on("exit", (code) => fail(new Error(`speech synthesizer exited (${code})`)));
    return worker;
  }

  private retire(worker: Worker) {
    if (this.worker === worker) this.worker = undefined;
    this.retired.add(worker);
    if ((this.pending.get(worker)?.size ?? 0) === 0) void worker.terminate();
  }

  private run(job: Job): Promise<Buffer> {
    if (this.worker && this.served >= JOBS_PER_WORKER) this.retire(this.worker);
    if (!this.worker) {
      this.worker = this.spawn();
      this.served = 0;
    }
    this.served++;
    const id = this.nextId++;
    const worker = this.worker;
    const jobs = this.pending.get(worker);
    return new Promise((resolve, reject) => {
      jobs?.set(id, { resolve, reject });
      worker.postMessage({ id, ...job });
    });
  }

  /** Speech as 16-bit mono samples at `sampleRate` (22,050 Hz from eSpeak). */
  speak(text: string, profile: VoiceProfile, speed: number): Promise<{ pcm: Buffer; sampleRate: number }> {
    if (this.remember <= 0) return this.render(text, profile, speed);
    const key = JSON.stringify([text, profile, speed]);
    const known = this.remembered.get(key);
    if (known) {
      this.remembered.delete(key); // most recent last
      this.remembered.set(key, known);
      return known;
    }
    const made = this.render(text, profile, speed);
    this.remembered.set(key, made);
    made.catch(() => this.remembered.delete(key)); // a failure is not remembered
    if (this.remembered.size > this.remember) this.remembered.delete(this.remembered.keys().next().value as string);
    return made;
  }

  private async render(text: string, profile: VoiceProfile, speed: number): Promise<{ pcm: Buffer; sampleRate: number }> {
    this.rendered++;
    const job = (wpm: number, wordgap: number) => this.run({ text, ...profile, wpm, wordgap });
    const samples = (wav: Buffer) => {
      const w = parseWav(wav);
      return {
        pcm: wav.subarray(w.dataOffset, w.dataOffset + w.frames * w.blockAlign),
        sampleRate: w.sampleRate,
        seconds: w.durationSeconds,
      };
    };
    const wpm = Math.round(ESPEAK_WPM * speed);
    if (wpm >= ESPEAK_MIN_WPM) return samples(await job(wpm, 0));
    // Slower than eSpeak's minimum rate: keep 80 wpm and widen the gaps between words until the
    // length is about what `speed` asks for (the gap's effect is measured, then applied).
    const plain = samples(await job(ESPEAK_MIN_WPM, 0));
    const probe = samples(await job(ESPEAK_MIN_WPM, 10));
    const perUnit = (probe.seconds - plain.seconds) / 10;
    const target = (plain.seconds * ESPEAK_MIN_WPM) / (ESPEAK_WPM * speed);
    const gap = perUnit > 0 ? Math.max(0, Math.round((target - plain.seconds) / perUnit)) : 0;
    if (gap === 0) return plain;
    if (gap === 10) return probe;
    return samples(await job(ESPEAK_MIN_WPM, gap));
  }

  async close(): Promise<void> {
    this.worker = undefined;
    await Promise.all([...this.pending.keys()].map((w) => w.terminate()));
  }
}

// ---------------------------------------------------------------------------------------------
// POST /v1/audio/speech

export interface SpeechRequest {
  model: string;
  input: string;
  voice: VoiceProfile;
  format: "wav" | "pcm";
  speed: number;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

export function parseSpeechRequest(body: unknown): SpeechRequest {
  if (!isObject(body)) throw invalid("The request body must be a JSON object.", null, "invalid_type");
  if (typeof body.model !== "string" || body.model === "")
    throw invalid("You must provide a model parameter.", "model", "missing_required_parameter");
  if (typeof body.input !== "string") throw invalid("Missing required parameter: 'input'.", "input", "missing_required_parameter");
  const length = [...body.input].length;
  if (body.input.trim() === "") throw invalid("Invalid 'input': the text to speak is empty.", "input", "string_below_min_length");
  if (length > SPEECH_MAX_CHARS)
    throw invalid(
      `Invalid 'input': string too long. Expected a string with maximum length ${SPEECH_MAX_CHARS}, but got a string with length ${length} instead.`,
      "input",
      "string_above_max_length",
    );
  const voiceName =
    typeof body.voice === "string" ? body.voice : isObject(body.voice) && typeof body.voice.id === "string" ? body.voice.id : undefined;
  if (voiceName === undefined) throw invalid("Missing required parameter: 'voice'.", "voice", "missing_required_parameter");
  const voice = VOICES[voiceName.toLowerCase()];
  if (!voice)
    throw invalid(
      `Invalid value: '${voiceName}'. Supported voices are: ${Object.keys(VOICES)
        .map((v) => `'${v}'`)
        .join(", ")}.`,
      "voice",
    );
  const format = body.response_format ?? "mp3"; // OpenAI's default, which the sandbox cannot produce
  if (format !== "wav" && format !== "pcm") {
    const known = ["mp3", "opus", "aac", "flac"].includes(String(format));
    throw invalid(
      `${known ? `The provider sandbox does not encode '${String(format)}'${body.response_format === undefined ? " (the default when response_format is omitted)" : ""}` : `Invalid value: '${String(format)}'`}. The sandbox supports response_format 'wav' and 'pcm'.`,
      "response_format",
      known ? "unsupported_value" : "invalid_value",
    );
  }
  const speed = body.speed ?? 1;
  if (typeof speed !== "number" || !(speed >= 0.25 && speed <= 4))
    throw invalid(`Invalid 'speed': ${String(speed)}. Expected a number between 0.25 and 4.0.`, "speed");
  if (body.stream_format !== undefined && body.stream_format !== "audio")
    throw invalid("The provider sandbox supports stream_format 'audio' only.", "stream_format", "unsupported_value");
  return { model: body.model, input: body.input, voice, format, speed };
}

/** Speaks the request; with `memory`, the speech is remembered so its audio can be transcribed without metadata. */
export async function synthesize(
  synth: Synthesizer,
  req: SpeechRequest,
  memory?: SpeechMemory,
): Promise<{ body: Buffer; contentType: string }> {
  const { pcm, sampleRate } = await synth.speak(req.input, req.voice, req.speed);
  memory?.remember(
    JSON.stringify([req.voice, req.speed, req.input]),
    req.input,
    pcm16FromBytes(new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.length)),
    sampleRate,
  );
  if (req.format === "pcm") return { body: resample16(pcm, sampleRate, PCM_SAMPLE_RATE), contentType: "audio/pcm" };
  const tag = infoChunk([
    ["ISFT", SANDBOX_SOFTWARE],
    ["ICMT", req.input],
  ]);
  return { body: buildWav(pcm, sampleRate, 1, [tag]), contentType: "audio/wav" };
}

// ---------------------------------------------------------------------------------------------
// POST /v1/audio/transcriptions

export const TRANSCRIPTION_MAX_BYTES = 25 * 1024 * 1024;
const MIN_SECONDS = 0.1; // OpenAI refuses shorter audio with audio_too_short
const FORMATS = ["json", "text", "srt", "verbose_json", "vtt"] as const;
type TranscriptionFormat = (typeof FORMATS)[number];

const LANGUAGES: Record<string, string> = {
  en: "english",
  de: "german",
  es: "spanish",
  fr: "french",
  it: "italian",
  ja: "japanese",
  ko: "korean",
  nl: "dutch",
  pl: "polish",
  pt: "portuguese",
  ru: "russian",
  sv: "swedish",
  tr: "turkish",
  uk: "ukrainian",
  zh: "chinese",
};

export interface TranscriptionRequest {
  model: string;
  file: Buffer;
  language: string;
  format: TranscriptionFormat;
}

export function parseTranscriptionForm(form: FormData, file: Buffer | undefined): TranscriptionRequest {
  const field = (k: string) => {
    const v = form.get(k);
    return typeof v === "string" ? v : undefined;
  };
  const model = field("model");
  if (!model) throw invalid("You must provide a model parameter.", "model", "missing_required_parameter");
  if (!file) throw invalid("Missing required parameter: 'file'.", "file", "missing_required_parameter");
  const format = (field("response_format") ?? "json") as TranscriptionFormat;
  if (!FORMATS.includes(format))
    throw invalid(`Invalid value: '${format}'. Supported values are: ${FORMATS.map((f) => `'${f}'`).join(", ")}.`, "response_format");
  const lang = field("language");
  if (lang !== undefined && lang !== "" && !/^[a-z]{2,3}$/i.test(lang))
    throw invalid(`Invalid language '${lang}'. Language parameter must be specified in ISO-639-1 format.`, "language");
  const language = lang ? (LANGUAGES[lang.toLowerCase()] ?? lang.toLowerCase()) : "english";
  return { model, file, language, format };
}

const stamp = (seconds: number, sep: "," | ".") => {
  const ms = Math.round(seconds * 1000);
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = Math.floor((ms % 60_000) / 1000);
  const pad = (n: number, w = 2) => String(n).padStart(w, "0");
  return `${pad(h)}:${pad(m)}:${pad(s)}${sep}${pad(ms % 1000, 3)}`;
};

export function transcribe(req: TranscriptionRequest, memory?: SpeechMemory): { body: string; contentType: string } {
  let wav: ReturnType<typeof parseWav>;
  try {
    wav = parseWav(req.file);
  } catch (err) {
    if (err instanceof WavError)
      throw invalid(
        `Invalid file format: ${err.message}. The provider sandbox decodes WAV (8- or 16-bit PCM, mono or stereo) only.`,
        "file",
        "invalid_file_format",
      );
    throw err;
  }
  const duration = wav.durationSeconds;
  if (duration < MIN_SECONDS)
    throw invalid(`Audio file is too short. Minimum audio length is ${MIN_SECONDS} seconds.`, "file", "audio_too_short");
  const ours = wav.info.ISFT === SANDBOX_SOFTWARE && typeof wav.info.ICMT === "string";
  const recalled = ours ? undefined : memory?.recall(wavSamples(req.file, wav), wav.sampleRate);
  const text = ours ? (wav.info.ICMT as string) : (recalled?.text ?? "");

  // One segment per sentence, timed in proportion to its length.
  const sentences = text.split(/(?<=[.!?…])\s+/).filter((s) => s.trim() !== "");
  const total = sentences.reduce((n, s) => n + s.length, 0);
  let at = 0;
  const segments = sentences.map((s, id) => {
    const start = (at / total) * duration;
    at += s.length;
    const end = id === sentences.length - 1 ? duration : (at / total) * duration;
    return {
      id,
      seek: 0,
      start: Math.round(start * 1000) / 1000,
      end: Math.round(end * 1000) / 1000,
      text: s,
      tokens: [] as number[],
      temperature: 0,
      avg_logprob: 0,
      compression_ratio: 1,
      no_speech_prob: 0,
    };
  });
  const usage = { type: "duration" as const, seconds: Math.ceil(duration) };

  switch (req.format) {
    case "text":
      return { body: text, contentType: "text/plain; charset=utf-8" };
    case "srt":
      return {
        body: segments.map((s, i) => `${i + 1}\n${stamp(s.start, ",")} --> ${stamp(s.end, ",")}\n${s.text}\n\n`).join(""),
        contentType: "text/plain; charset=utf-8",
      };
    case "vtt":
      return {
        body: `WEBVTT\n\n${segments.map((s) => `${stamp(s.start, ".")} --> ${stamp(s.end, ".")}\n${s.text}\n\n`).join("")}`,
        contentType: "text/plain; charset=utf-8",
      };
    case "verbose_json":
      return {
        body: JSON.stringify({
          task: "transcribe",
          language: req.language,
          duration,
          text,
          segments,
          usage,
          sandbox: ours
            ? { recognized: true, match: "metadata" }
            : recalled
              ? { recognized: true, match: "envelope", score: Math.round(recalled.score * 1000) / 1000 }
              : {
                  recognized: false,
                  note: "The provider sandbox recognises only audio it produced itself: a WAV from its /v1/audio/speech carries the spoken text, and other audio is matched by loudness envelope against the speech it synthesized recently. This audio matched none of it; it is measured, not transcribed.",
                },
        }),
        contentType: "application/json",
      };
    default:
      return { body: JSON.stringify({ text, usage }), contentType: "application/json" };
  }
}
