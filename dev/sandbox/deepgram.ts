// Deepgram's live transcription as the provider sandbox speaks it, so the platform's Deepgram
// adapter (src/providers/deepgram.ts) runs unchanged on a laptop and in CI: only its base URL
// differs. WebSockets at Deepgram's paths, on the provider sandbox's port: `/v1/listen` (Nova:
// `Results` with interim and final transcripts, `speech_final` after `endpointing` ms of silence,
// `UtteranceEnd` after `utterance_end_ms`, `Metadata` on `CloseStream`) and `/v2/listen` (Flux:
// `Connected`, then `TurnInfo` StartOfTurn / Update / EagerEndOfTurn / TurnResumed / EndOfTurn).
// The key goes in `Authorization: Token <key>`; audio is binary linear16 at the `sample_rate` of
// the query. See docs/sandbox.md#deepgram-live-transcription.
//
// It is a stand-in, not a model, like the rest of the sandbox: it hears speech by energy (a 20 ms
// frame at or above VAD_RMS is speech), and the words are those of a speech the sandbox itself
// synthesized recently (recognize.ts), matched by loudness envelope as the upload path does;
// while the speech goes on, the part of a remembered speech the audio so far matches gives the
// words in proportion. Unknown audio is heard (turns start and end) but gets empty transcripts.
// Everything is timed by the audio received (its samples, not the wall clock), plus the latency
// profile's delay for Nova's results, so a test that streams faster than real time gets the same
// events in the same order.
import { createHash, randomUUID, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { type WebSocket, WebSocketServer } from "ws";
import { jittered, type LatencyProfile } from "./latency";
import type { SpeechMemory } from "./recognize";

export type ListenApi = "nova" | "flux";

/** Deepgram's live paths, and the API each speaks. */
export const LISTEN_PATHS: Record<string, ListenApi> = { "/v1/listen": "nova", "/v2/listen": "flux" };

const FRAME_MS = 20;
/** A 20 ms frame whose RMS (16-bit scale) is at least this is loud; see `speech` below. */
export const VAD_RMS = 300;
/** Loud frames in a row that start speech after a silence (a click is not speech). */
const ONSET_FRAMES = 3;
/** Within this much silence after speech, one loud frame is speech again (the gaps between words). */
const CONTINUATION_MS = 200;
/** Frames kept before speech starts, so the first syllable's attack is part of what is recognized. */
const PREROLL_FRAMES = 5;
/** A remembered speech counts as said whole once the audio covers this much of its envelope. */
export const COMPLETE_COVERAGE = 0.95;
/** Speech after this much silence following a whole sentence is the next sentence. */
const NEXT_SENTENCE_GAP_MS = 100;
/** Audio the sandbox does not recognize: it can only go by the silence (eager at 300 ms, end at 600 ms). */
const UNKNOWN_EAGER_MS = 300;
const UNKNOWN_EOT_MS = 600;
/** Sound that matched nothing, then this much silence: what follows is recognized on its own. */
const UNKNOWN_GAP_MS = 500;
/** Unrecognized audio this long is given up on when its segment is finalized (a known sentence is recognized sooner). */
const UNKNOWN_DROP_MS = 1500;
/** Deepgram closes a stream that sends nothing for 10 s (1011, NET-0001). */
export const IDLE_TIMEOUT_MS = 10_000;
/** Audio kept for recognition; past it the oldest goes (a minute of unbroken unknown speech). */
const MAX_SPAN_FRAMES = 60_000 / FRAME_MS;
const SANDBOX_MODEL_UUID = "00000000-0000-4000-8000-5a4db0c5de9a";

/** A refused upgrade: the status, and Deepgram's body `{err_code, err_msg, request_id}`. */
export class DeepgramRefusal extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

const badRequest = (message: string) => new DeepgramRefusal(400, "Bad Request", message);

export interface ListenOptions {
  api: ListenApi;
  model: string;
  sampleRate: number;
  /** Nova: `punctuate` or `smart_format`; without them transcripts are lower case without punctuation. Flux always punctuates. */
  punctuate: boolean;
  interimResults: boolean;
  /** Nova: silence (ms) that ends a segment with `speech_final`; null: `endpointing=false`. Deepgram's default is 10. */
  endpointingMs: number | null;
  utteranceEndMs: number | null;
  eotThreshold: number;
  eagerEotThreshold: number | null;
  eotTimeoutMs: number;
  fault: "none" | "garbage" | "close-1011";
}

function numberParam(query: URLSearchParams, name: string, min: number, max: number, integer: boolean): number | null {
  const raw = query.get(name);
  if (raw === null || raw === "") return null;
  const n = Number(raw);
  if (!Number.isFinite(n) || (integer && !Number.isInteger(n)) || n < min || n > max)
    throw badRequest(`Invalid ${name} '${raw}': expected ${integer ? "an integer" : "a number"} from ${min} to ${max}.`);
  return n;
}

function booleanParam(query: URLSearchParams, name: string): boolean {
  const raw = query.get(name);
  if (raw === null || raw === "") return false;
  if (raw === "true" || raw === "false") return raw === "true";
  throw badRequest(`Invalid ${name} '${raw}': expected true or false.`);
}

/** The query of `/v1/listen` or `/v2/listen`, checked; the fault models (`fault-*`) as on the sandbox's other APIs. */
export function parseListenQuery(api: ListenApi, query: URLSearchParams): ListenOptions {
  const model = query.get("model") || (api === "flux" ? "" : "base");
  if (api === "flux" && !model) throw badRequest("The model parameter is required for /v2/listen (e.g. flux-general-en).");
  let fault: ListenOptions["fault"] = "none";
  if (model === "fault-500") throw new DeepgramRefusal(500, "INTERNAL_SERVER_ERROR", "The provider sandbox failed on purpose (fault-500).");
  if (model === "fault-429")
    throw new DeepgramRefusal(429, "TOO_MANY_REQUESTS", "Too many requests. Please try again later.", { "retry-after": "1" });
  if (model === "fault-garbage") fault = "garbage";
  else if (model === "fault-1011") fault = "close-1011";
  else if (model.startsWith("fault-"))
    throw badRequest(`Unknown fault model '${model}': the sandbox's are fault-500, fault-429, fault-garbage and fault-1011.`);
  else if (model.startsWith("missing")) throw badRequest(`No such model '${model}'.`);
  else if (api === "flux" && !model.startsWith("flux"))
    throw badRequest(`The model '${model}' is not a Flux model: /v2/listen serves flux-*.`);
  else if (api === "nova" && model.startsWith("flux")) throw badRequest(`Flux models are served at /v2/listen, not /v1/listen.`);
  const encoding = query.get("encoding");
  if (encoding !== "linear16")
    throw badRequest(
      `The provider sandbox decodes encoding=linear16 (16-bit little-endian PCM) only${encoding ? `, not '${encoding}'` : "; containerized audio is not detected"}.`,
    );
  const sampleRate = numberParam(query, "sample_rate", 8000, 48000, true);
  if (sampleRate === null) throw badRequest("sample_rate is required with encoding=linear16.");
  const channels = numberParam(query, "channels", 1, 8, true) ?? 1;
  if (channels !== 1) throw badRequest("The provider sandbox transcribes mono audio only (channels=1).");
  const endpointing = query.get("endpointing");
  const endpointingMs = endpointing === "false" ? null : (numberParam(query, "endpointing", 0, 60_000, true) ?? 10);
  const eotThreshold = numberParam(query, "eot_threshold", 0.5, 1, false) ?? 0.7;
  const eagerEotThreshold = numberParam(query, "eager_eot_threshold", 0.3, 0.9, false);
  if (eagerEotThreshold !== null && eagerEotThreshold > eotThreshold)
    throw badRequest("eager_eot_threshold must not be greater than eot_threshold.");
  return {
    api,
    model,
    sampleRate,
    punctuate: api === "flux" || booleanParam(query, "punctuate") || booleanParam(query, "smart_format"),
    interimResults: booleanParam(query, "interim_results"),
    endpointingMs,
    utteranceEndMs: numberParam(query, "utterance_end_ms", 0, 60_000, true),
    eotThreshold,
    eagerEotThreshold,
    eotTimeoutMs: numberParam(query, "eot_timeout_ms", 500, 60_000, true) ?? 5000,
    fault,
  };
}

function rms(samples: Int16Array): number {
  let sum = 0;
  for (const s of samples) sum += s * s;
  return Math.sqrt(sum / Math.max(1, samples.length));
}

function concat(frames: Int16Array[]): Int16Array {
  const out = new Int16Array(frames.reduce((n, f) => n + f.length, 0));
  let at = 0;
  for (const f of frames) {
    out.set(f, at);
    at += f.length;
  }
  return out;
}

const round3 = (n: number) => Math.round(n * 1000) / 1000;

type Kind = "complete" | "partial" | "unknown" | "empty";

/**
 * The words of a stream so far. The audio since the last whole sentence (the span) is matched
 * against the sandbox's remembered speech: a match covering the whole of one gives all its words
 * ("complete"); the beginning of one, its words in proportion to the part covered, never the
 * last ("partial"); nothing, no words ("unknown"). A sentence said whole moves to `done` when the
 * next speech starts, so several sentences with pauses between them are recognized one by one.
 * `taken` counts the words already given out as final (Nova).
 */
export class StreamTranscript {
  private done: string[] = [];
  private taken = 0;
  private span: Int16Array[] = [];
  private spanHasSpeech = false;
  private silenceMs = 0;
  private cached: { words: string[]; kind: Kind } | undefined;

  constructor(
    private readonly memory: SpeechMemory,
    private readonly sampleRate: number,
  ) {}

  push(frame: Int16Array, speech: boolean): void {
    if (speech) {
      if (this.spanHasSpeech && this.silenceMs >= NEXT_SENTENCE_GAP_MS) {
        const { kind, words } = this.hypothesis();
        // The sentence before the pause was said whole: this is the next one. Sound that matched
        // nothing before a long pause is not the start of what follows: it is left behind.
        if (kind === "complete") this.done.push(...words);
        if (kind === "complete" || (kind === "unknown" && this.silenceMs >= UNKNOWN_GAP_MS)) this.span = this.span.slice(-PREROLL_FRAMES);
      }
      this.spanHasSpeech = true;
      this.silenceMs = 0;
      this.cached = undefined;
    } else if (this.spanHasSpeech) {
      this.silenceMs += FRAME_MS;
    }
    this.span.push(frame);
    if (!this.spanHasSpeech && this.span.length > PREROLL_FRAMES) this.span.shift();
    if (this.span.length > MAX_SPAN_FRAMES) {
      this.span.shift();
      this.cached = undefined;
    }
  }

  hypothesis(): { words: string[]; kind: Kind } {
    if (!this.spanHasSpeech) return { words: [], kind: "empty" };
    if (this.cached) return this.cached;
    const match = this.memory.recallPrefix(concat(this.span), this.sampleRate);
    if (!match) this.cached = { words: [], kind: "unknown" };
    else {
      const all = match.text.split(/\s+/).filter((w) => w !== "");
      const complete = match.coverage >= COMPLETE_COVERAGE;
      const shown = complete ? all.length : Math.min(all.length - 1, Math.floor(match.coverage * all.length));
      this.cached = { words: all.slice(0, Math.max(0, shown)), kind: complete ? "complete" : "partial" };
    }
    return this.cached;
  }

  /** Every word so far (a Flux turn's transcript). */
  words(): string[] {
    return [...this.done, ...this.hypothesis().words];
  }

  /** The words not yet given out as final (a Nova interim's transcript). */
  untaken(): string[] {
    return this.words().slice(this.taken);
  }

  /**
   * Gives out the untaken words as final. A sentence said whole is done with; audio long enough to
   * be recognized that matched nothing is dropped (noise before speech must not spoil its match).
   */
  take(): string[] {
    const words = this.words();
    const out = words.slice(this.taken);
    this.taken = Math.max(this.taken, words.length);
    const { kind } = this.hypothesis();
    if (kind === "complete" || (kind === "unknown" && this.span.length * FRAME_MS >= UNKNOWN_DROP_MS)) {
      // Nothing of the span is left to finish: the next speech starts a new one.
      this.taken -= words.length;
      this.done = [];
      this.span = this.span.slice(-PREROLL_FRAMES);
      this.spanHasSpeech = false;
      this.silenceMs = 0;
      this.cached = undefined;
    } else if (this.taken >= this.done.length) {
      this.taken -= this.done.length;
      this.done = [];
    }
    this.taken = Math.max(0, this.taken);
    return out;
  }

  reset(): void {
    this.done = [];
    this.taken = 0;
    this.span = this.span.slice(-PREROLL_FRAMES);
    this.spanHasSpeech = false;
    this.silenceMs = 0;
    this.cached = undefined;
  }
}

/** Where a session's messages go: the WebSocket, or a test's array. */
export interface ListenSink {
  send(text: string): void;
  close(code: number, reason: string): void;
}

/** Text Deepgram gives without `punctuate`: lower case, no punctuation but apostrophes. */
const plain = (word: string) => word.toLowerCase().replace(/[^\p{L}\p{N}'’-]/gu, "");

const GARBAGE = [
  "this is not JSON {",
  "null",
  "[1, 2, 3]",
  "{}",
  JSON.stringify({ type: "Results" }),
  JSON.stringify({ type: "Results", is_final: true, channel: { alternatives: [] } }),
  JSON.stringify({ type: "Results", is_final: true, channel: { alternatives: [{ transcript: 42 }] } }),
  JSON.stringify({ type: "TurnInfo", event: "SomethingNew", transcript: "ignored" }),
  JSON.stringify({ type: "TurnInfo", event: "EndOfTurn" }),
  JSON.stringify({ type: "Metadata", duration: "long" }),
  JSON.stringify({ type: "SpeechStarted", channel: [0], timestamp: 0 }),
];

/**
 * One live transcription: audio in, Deepgram's messages out. Independent of the socket, so the
 * protocol's timing can be read (and tested) as a function of the audio.
 */
export class ListenSession {
  readonly requestId = randomUUID();
  private readonly frameSamples: number;
  private pending: number[] = [];
  private oddByte: number | null = null;
  private samplesIn = 0;
  private samplesReceived = 0;
  private sequence = 0;
  private readonly transcript: StreamTranscript;
  private readonly sha = createHash("sha256");
  // voice activity
  private loudRun = 0;
  private heardSpeech = false;
  private silenceMs = 0;
  // Nova
  private segmentOpen = false;
  private segmentStart = 0;
  private utteranceOpen = false;
  private lastWordEnd = 0;
  private sinceInterim = 0;
  // Flux
  private turn: "idle" | "ongoing" | "awaiting" = "idle";
  private turnIndex = 0;
  private turnStart = 0;
  private sinceUpdate = 0;
  private eotScale = 1;
  // the outbox: messages in order, each not before its time
  private queue: Array<{ due: number; run: () => void }> = [];
  private lastDue = 0;
  private timer: NodeJS.Timeout | undefined;
  private idle: NodeJS.Timeout | undefined;
  private ended = false;
  private faulted = false;

  constructor(
    readonly opts: ListenOptions,
    private readonly profile: LatencyProfile,
    memory: SpeechMemory,
    private readonly sink: ListenSink,
    private readonly random: () => number = Math.random,
  ) {
    this.frameSamples = Math.max(1, Math.round((opts.sampleRate * FRAME_MS) / 1000));
    this.transcript = new StreamTranscript(memory, opts.sampleRate);
    if (opts.api === "flux") this.emit({ type: "Connected", request_id: this.requestId, sequence_id: this.sequence++ });
    if (opts.fault === "garbage") for (const g of GARBAGE) this.out(() => this.sink.send(g), 0);
    this.touch();
  }

  /** Seconds of audio received. */
  get duration(): number {
    return this.samplesReceived / this.opts.sampleRate;
  }

  /** A binary frame: linear16 samples, little-endian (a frame may split a sample). */
  audio(bytes: Uint8Array): void {
    if (this.ended) return;
    this.touch();
    if (bytes.length === 0) {
      this.closeStream(); // Deepgram's old end-of-stream signal
      return;
    }
    if (this.opts.fault === "close-1011" && !this.faulted) {
      this.faulted = true;
      this.fail();
      return;
    }
    this.sha.update(bytes);
    this.samplesReceived += (bytes.length + (this.oddByte === null ? 0 : 1)) >> 1;
    const signed = (v: number) => (v >= 0x8000 ? v - 0x10000 : v);
    let i = 0;
    if (this.oddByte !== null) {
      this.pending.push(signed(this.oddByte | ((bytes[0] as number) << 8)));
      this.oddByte = null;
      i = 1;
    }
    for (; i + 1 < bytes.length; i += 2) this.pending.push(signed((bytes[i] as number) | ((bytes[i + 1] as number) << 8)));
    if (i < bytes.length) this.oddByte = bytes[i] as number;
    while (this.pending.length >= this.frameSamples) {
      const frame = Int16Array.from(this.pending.splice(0, this.frameSamples));
      this.samplesIn += frame.length;
      this.frame(frame);
      if (this.ended) return;
    }
  }

  /** A text frame: Deepgram's control messages. Anything else is ignored. */
  text(message: string): void {
    if (this.ended) return;
    this.touch();
    let type: unknown;
    try {
      type = (JSON.parse(message) as { type?: unknown } | null)?.type;
    } catch {
      return;
    }
    if (type === "CloseStream") this.closeStream();
    else if (type === "Finalize" && this.opts.api === "nova") this.finalize();
    else if (type === "ForceEndTurn" && this.opts.api === "flux" && this.turn !== "idle") this.endOfTurn(this.confidence());
    // KeepAlive (and anything else) only keeps the stream from timing out.
  }

  /** The socket went away: stop every timer. */
  stop(): void {
    this.ended = true;
    clearTimeout(this.timer);
    clearTimeout(this.idle);
    this.queue = [];
  }

  // -------------------------------------------------------------------------------------------

  private get now(): number {
    return this.samplesIn / this.opts.sampleRate;
  }

  private touch() {
    clearTimeout(this.idle);
    this.idle = setTimeout(() => {
      if (this.ended) return;
      this.out(() => this.sink.close(1011, "NET-0001"), 0);
      this.ended = true;
    }, IDLE_TIMEOUT_MS);
    this.idle.unref?.();
  }

  /** Runs `run` `delayMs` from now, after everything queued before it. */
  private out(run: () => void, delayMs: number) {
    const now = Date.now();
    const due = Math.max(this.lastDue, now + delayMs);
    this.lastDue = due;
    if (this.queue.length === 0 && due <= now) return run();
    this.queue.push({ due, run });
    this.drain();
  }

  private drain() {
    if (this.timer) return;
    const next = this.queue[0];
    if (!next) return;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        const now = Date.now();
        while (this.queue[0] && this.queue[0].due <= now) this.queue.shift()?.run();
        this.drain();
      },
      Math.max(0, next.due - Date.now()),
    );
  }

  private emit(message: Record<string, unknown>, delayMs = 0) {
    const text = JSON.stringify(message);
    this.out(() => this.sink.send(text), delayMs);
  }

  private get stream() {
    return this.profile.transcriptionStream;
  }

  private frame(frame: Int16Array) {
    const loud = rms(frame) >= VAD_RMS;
    this.loudRun = loud ? this.loudRun + 1 : 0;
    const speech = loud && ((this.heardSpeech && this.silenceMs < CONTINUATION_MS) || this.loudRun >= ONSET_FRAMES);
    if (speech) {
      this.heardSpeech = true;
      this.silenceMs = 0;
    } else if (this.heardSpeech) {
      this.silenceMs += FRAME_MS;
    }
    this.transcript.push(frame, speech);
    if (this.opts.api === "nova") this.nova(speech);
    else this.flux(speech);
  }

  // ---- Nova ---------------------------------------------------------------------------------

  private nova(speech: boolean) {
    const { endpointingMs, utteranceEndMs, interimResults } = this.opts;
    if (speech) {
      this.segmentOpen = true;
      this.utteranceOpen = true;
      this.lastWordEnd = this.now;
    }
    if (this.segmentOpen) {
      this.sinceInterim += FRAME_MS;
      if (!speech && endpointingMs !== null && this.silenceMs >= Math.max(FRAME_MS, endpointingMs)) {
        this.results(true, true, false);
      } else if (interimResults && this.sinceInterim >= this.stream.interimEveryMs) {
        this.results(false, false, false);
      }
    }
    if (!speech && utteranceEndMs !== null && this.utteranceOpen && this.silenceMs >= Math.max(FRAME_MS, utteranceEndMs)) {
      if (this.segmentOpen) this.results(true, false, false); // endpointing=false: the segment ends here
      this.emit({ type: "UtteranceEnd", channel: [0, 1], last_word_end: round3(this.lastWordEnd) }, this.delay());
      this.utteranceOpen = false;
      this.transcript.reset();
    }
  }

  private delay(): number {
    return jittered(this.stream.finalizeMs, this.profile.sigma, this.random);
  }

  private finalize() {
    this.results(true, false, true);
  }

  /** A `Results` message; a final one (is_final) gives out the segment's words and starts the next segment. */
  private results(isFinal: boolean, speechFinal: boolean, fromFinalize: boolean) {
    const words = isFinal ? this.transcript.take() : this.transcript.untaken();
    const start = this.segmentStart;
    const end = Math.max(start, this.now);
    const shown = this.opts.punctuate ? words : words.map(plain).filter((w) => w !== "");
    const step = shown.length ? (end - start) / shown.length : 0;
    this.emit(
      {
        type: "Results",
        channel_index: [0, 1],
        duration: round3(end - start),
        start: round3(start),
        is_final: isFinal,
        speech_final: speechFinal,
        channel: {
          alternatives: [
            {
              transcript: shown.join(" "),
              confidence: shown.length ? 0.99 : 0,
              words: shown.map((w, i) => ({
                word: plain(w),
                start: round3(start + i * step),
                end: round3(start + (i + 1) * step),
                confidence: 0.99,
                punctuated_word: w,
              })),
            },
          ],
        },
        metadata: {
          request_id: this.requestId,
          model_info: { name: this.opts.model, version: "sandbox", arch: "provider-sandbox" },
          model_uuid: SANDBOX_MODEL_UUID,
        },
        from_finalize: fromFinalize,
      },
      this.delay(),
    );
    this.sinceInterim = 0;
    if (isFinal) {
      this.segmentStart = end;
      this.segmentOpen = false;
    }
  }

  // ---- Flux ---------------------------------------------------------------------------------

  private flux(speech: boolean) {
    if (speech) {
      if (this.turn === "idle") {
        this.turn = "ongoing";
        this.turnStart = Math.max(0, this.now - (ONSET_FRAMES * FRAME_MS) / 1000);
        this.eotScale = jittered(1, this.profile.sigma, this.random);
        return this.turnInfo("StartOfTurn", 0);
      }
      if (this.turn === "awaiting") {
        this.turn = "ongoing";
        return this.turnInfo("TurnResumed", 0);
      }
    }
    if (this.turn === "idle") return;
    this.sinceUpdate += FRAME_MS;
    if (!speech) {
      const confidence = this.confidence();
      if (confidence >= this.opts.eotThreshold || this.silenceMs >= this.opts.eotTimeoutMs) return this.endOfTurn(confidence);
      const eager = this.opts.eagerEotThreshold;
      if (this.turn === "ongoing" && eager !== null && confidence >= eager && this.transcript.words().length > 0) {
        this.turn = "awaiting";
        return this.turnInfo("EagerEndOfTurn", confidence);
      }
    }
    if (this.sinceUpdate >= this.stream.interimEveryMs) this.turnInfo("Update", speech ? 0 : this.confidence());
  }

  /**
   * Flux's end-of-turn confidence after the silence so far: for a sentence said whole it reaches
   * 0.5 at the profile's `eagerEotMs` and 0.7 at `eotMs` (linear, at most 0.99); for the beginning
   * of one it stays at 0.1 (the sentence is not over: only `eot_timeout_ms` ends the turn); for
   * audio the sandbox does not know, the silence alone decides (0.5 at 300 ms, 0.7 at 600 ms).
   */
  private confidence(): number {
    const { kind } = this.transcript.hypothesis();
    if (kind === "partial") return 0.1;
    if (this.silenceMs <= 0) return 0.01;
    const [eager, eot] =
      kind === "complete"
        ? [this.stream.eagerEotMs * this.eotScale, this.stream.eotMs * this.eotScale]
        : [UNKNOWN_EAGER_MS, UNKNOWN_EOT_MS];
    const slope = 0.2 / Math.max(1, eot - eager);
    return round3(Math.min(0.99, Math.max(0.01, 0.5 + (this.silenceMs - eager) * slope)));
  }

  private endOfTurn(confidence: number) {
    this.turnInfo("EndOfTurn", confidence);
    this.turn = "idle";
    this.turnIndex++;
    this.transcript.reset();
  }

  private turnInfo(event: string, confidence: number) {
    const words = this.transcript.words();
    this.emit({
      type: "TurnInfo",
      request_id: this.requestId,
      sequence_id: this.sequence++,
      event,
      turn_index: this.turnIndex,
      audio_window_start: round3(this.turnStart),
      audio_window_end: round3(this.now),
      transcript: words.join(" "),
      words: words.map((word) => ({ word, confidence: 0.99 })),
      end_of_turn_confidence: confidence,
    });
    this.sinceUpdate = 0;
  }

  // ---- the end ------------------------------------------------------------------------------

  private closeStream() {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.idle);
    if (this.opts.api === "nova") {
      if (this.segmentOpen || this.transcript.untaken().length > 0) this.results(true, false, false);
      this.emit(
        {
          type: "Metadata",
          transaction_key: "deprecated",
          request_id: this.requestId,
          sha256: this.sha.digest("hex"),
          created: new Date().toISOString(),
          duration: round3(this.duration),
          channels: 1,
        },
        0,
      );
    }
    this.out(() => this.sink.close(1000, ""), 0);
  }

  /** fault-1011: the provider fails mid-stream (Flux says why first, as it does). */
  private fail() {
    this.ended = true;
    clearTimeout(this.idle);
    if (this.opts.api === "flux")
      this.emit({
        type: "Error",
        sequence_id: this.sequence++,
        code: "INTERNAL_SERVER_ERROR",
        description: "The provider sandbox failed on purpose (fault-1011).",
      });
    this.out(() => this.sink.close(1011, "NET-0000"), 0);
  }
}

// ---------------------------------------------------------------------------------------------
// The upgrade

export interface DeepgramListenServer {
  /**
   * Takes an upgrade for `path` (the profile prefix already removed); `record` gets the status:
   * 101, or the refusal's. Answers Deepgram's refusal (401 for a wrong key, 400 for a bad query).
   */
  upgrade(
    req: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    path: string,
    profile: LatencyProfile,
    record: (status: number, model?: string) => void,
  ): void;
  stop(): void;
}

/** Writes an HTTP refusal of a WebSocket upgrade with Deepgram's body and headers, then closes the socket. */
export function refuseUpgrade(socket: Duplex, refusal: DeepgramRefusal): void {
  const requestId = randomUUID();
  const body = JSON.stringify({ err_code: refusal.code, err_msg: refusal.message, request_id: requestId });
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "content-length": String(Buffer.byteLength(body)),
    "dg-request-id": requestId,
    "dg-error": refusal.message,
    connection: "close",
    ...refusal.headers,
  };
  const reason = { 400: "Bad Request", 401: "Unauthorized", 404: "Not Found", 429: "Too Many Requests", 500: "Internal Server Error" };
  const head = `HTTP/1.1 ${refusal.status} ${reason[refusal.status as keyof typeof reason] ?? "Error"}\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v.replace(/[\r\n]/g, " ")}`)
    .join("\r\n")}\r\n\r\n`;
  socket.end(head + body);
}

export function deepgramListenServer(apiKey: string, memory: SpeechMemory): DeepgramListenServer {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 8 * 1024 * 1024 });
  const sessions = new Set<{ session: ListenSession; ws: WebSocket }>();
  const expected = Buffer.from(`Token ${apiKey}`);
  return {
    upgrade(req, socket, head, path, profile, record) {
      const api = LISTEN_PATHS[path];
      let opts: ListenOptions;
      try {
        if (!api)
          throw new DeepgramRefusal(
            404,
            "NOT_FOUND",
            `No WebSocket at ${path}: the sandbox's Deepgram paths are /v1/listen and /v2/listen.`,
          );
        const auth = Buffer.from(req.headers.authorization ?? "");
        if (auth.length !== expected.length || !timingSafeEqual(auth, expected))
          throw new DeepgramRefusal(401, "INVALID_AUTH", "Invalid credentials.");
        opts = parseListenQuery(api, new URL(req.url ?? "/", "http://sandbox").searchParams);
      } catch (err) {
        const refusal =
          err instanceof DeepgramRefusal
            ? err
            : new DeepgramRefusal(500, "INTERNAL_SERVER_ERROR", `The provider sandbox failed: ${(err as Error).message}`);
        record(refusal.status, new URL(req.url ?? "/", "http://sandbox").searchParams.get("model") ?? undefined);
        return refuseUpgrade(socket, refusal);
      }
      wss.handleUpgrade(req, socket, head, (ws) => {
        record(101, opts.model);
        const session = new ListenSession(opts, profile, memory, {
          send: (text) => {
            if (ws.readyState === ws.OPEN) ws.send(text);
          },
          close: (code, reason) => ws.close(code, reason),
        });
        const entry = { session, ws };
        sessions.add(entry);
        ws.on("message", (data, isBinary) => {
          const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
          if (isBinary) session.audio(bytes);
          else session.text(bytes.toString("utf8"));
        });
        ws.on("close", () => {
          session.stop();
          sessions.delete(entry);
        });
        ws.on("error", () => ws.terminate());
      });
    },
    stop() {
      for (const { session, ws } of sessions) {
        session.stop();
        ws.terminate();
      }
      sessions.clear();
      wss.close();
    },
  };
}
