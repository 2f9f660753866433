// Cartesia (Sonic) text-to-speech, as Cartesia publishes its API (docs.cartesia.ai, API version
// CARTESIA_VERSION): `POST /tts/bytes` for a whole file, and the WebSocket `/tts/websocket` for
// audio as it is made. Every request names the version (`Cartesia-Version`; on the WebSocket also
// `?cartesia_version=`, which Cartesia lets win) and carries the key in `X-API-Key` (never in a URL,
// where logs would keep it). On the WebSocket a generation is a *context*: inputs
// `{model_id, transcript, voice: {mode: "id", id}, output_format, context_id, continue}` whose
// transcripts Cartesia joins verbatim, `continue: true` while more text may follow, and an empty
// transcript with `continue: false` to close it; it answers `chunk` (base64 audio), `done` and
// `error` messages carrying the context id, and `{context_id, cancel: true}` stops a context.
//
// `openStream` feeds one context text as it comes (an LLM's clauses), so the first clause is heard
// before the sentence is written. Cartesia holds streamed text back until it has enough to speak
// well, or `max_buffer_delay_ms` (3 s by default) passed; a caller that cuts its text into clauses
// itself asks for 0 (`bufferDelayMs`: Cartesia's "custom buffering"), or each clause could wait. The socket is opened as every provider's is (./socket.ts: the
// Workers fetch upgrade by default; Node callers, the tests, pass their own `connect`).
import { pcmToWav } from "../lib/audio";
import { type CallOptions, canceled, ProviderError, providerFetch, safeDetail } from "./http";
import { openSocket, type ProviderSocket, type SocketConnector, workersConnect } from "./socket";
import type { SpeechRequest, SpeechStream, SpeechStreamOptions, TtsProvider } from "./types";

/** The API version this adapter was written and tested against. */
export const CARTESIA_VERSION = "2025-04-16";
/** Sonic 3: Cartesia's current model (the base name routes to its latest stable snapshot). */
export const CARTESIA_DEFAULT_MODEL = "sonic-3";
export const CARTESIA_SAMPLE_RATE = 24_000;

const RAW_PCM = { container: "raw", encoding: "pcm_s16le", sample_rate: CARTESIA_SAMPLE_RATE } as const;

/** A Cartesia model id; anything else (an OpenAI or ElevenLabs model a caller defaulted to) means "the default". */
const modelOf = (model: string) => (/^sonic(?:$|-)/.test(model) ? model : CARTESIA_DEFAULT_MODEL);

/** A server message on the WebSocket (versions differ in how an error is worded: `error`, or `title` + `message`). */
interface ServerMessage {
  type?: string;
  context_id?: string;
  data?: string;
  done?: boolean;
  status_code?: number;
  error?: string;
  title?: string;
  message?: string;
  error_code?: string;
}

function base64Bytes(data: string): Uint8Array {
  const bin = atob(data);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

function textOf(data: unknown): string {
  if (typeof data === "string") return data;
  if (data instanceof ArrayBuffer) return new TextDecoder().decode(data);
  if (ArrayBuffer.isView(data)) return new TextDecoder().decode(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
  return String(data);
}

/** Cartesia's `error` message as our ProviderError: its status decides whether a retry could help. */
function errorOf(msg: ServerMessage): ProviderError {
  const status = typeof msg.status_code === "number" && msg.status_code >= 400 ? msg.status_code : 400;
  const what = safeDetail(JSON.stringify({ message: msg.message ?? msg.error ?? msg.title ?? "error" }));
  if (status === 429) return new ProviderError("rate_limited", "cartesia is rate limiting requests", 429);
  if (status >= 500) return new ProviderError("upstream", `cartesia failed (${status}): ${what}`, status);
  return new ProviderError("rejected", `cartesia refused the request (${status}): ${what}`, status);
}

/** A queue of audio an async iterator drains; ended by `finish`, or broken by `fail`. */
class AudioQueue {
  private readonly items: Uint8Array[] = [];
  private wake: (() => void) | null = null;
  private ended = false;
  private failure: unknown = null;

  push(chunk: Uint8Array) {
    if (this.ended) return;
    this.items.push(chunk);
    this.notify();
  }

  finish() {
    this.ended = true;
    this.notify();
  }

  fail(err: unknown) {
    if (this.ended) return;
    this.failure = err;
    this.ended = true;
    this.notify();
  }

  get closed() {
    return this.ended;
  }

  private notify() {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  async *drain(): AsyncGenerator<Uint8Array> {
    for (;;) {
      const next = this.items.shift();
      if (next) {
        yield next;
        continue;
      }
      if (this.ended) {
        if (this.failure) throw this.failure;
        return;
      }
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
  }
}

export class Cartesia implements TtsProvider {
  readonly name = "cartesia";
  private readonly baseUrl: string;

  constructor(
    baseUrl: string,
    private readonly apiKey: string,
    private readonly call: CallOptions,
    private readonly connect: SocketConnector = workersConnect,
  ) {
    this.baseUrl = baseUrl.replace(/\/$/, "");
  }

  private headers(): Record<string, string> {
    return { "Cartesia-Version": CARTESIA_VERSION, "X-API-Key": this.apiKey };
  }

  /** The fields every input of one generation repeats (Cartesia requires them unchanged across a context). */
  private generation(request: SpeechRequest, outputFormat: Record<string, unknown>, contextId?: string) {
    const speed = request.speed && request.speed !== 1 ? Math.min(1.5, Math.max(0.6, request.speed)) : null;
    return {
      model_id: modelOf(request.model),
      voice: { mode: "id", id: request.voice },
      output_format: outputFormat,
      ...(contextId ? { context_id: contextId } : {}),
      ...(speed ? { generation_config: { speed } } : {}),
    };
  }

  /** `POST /tts/bytes`: the whole audio in one answer (raw PCM at 24 kHz, WAV, or MP3). */
  async synthesize(request: SpeechRequest, signal?: AbortSignal): Promise<ArrayBuffer> {
    // WAV is asked as raw PCM and wrapped here, so its header always has the real length.
    const outputFormat = request.format === "mp3" ? { container: "mp3", sample_rate: 44_100, bit_rate: 128_000 } : RAW_PCM;
    const res = await providerFetch(
      this.name,
      `${this.baseUrl}/tts/bytes`,
      {
        method: "POST",
        headers: { ...this.headers(), "content-type": "application/json", accept: "*/*" },
        body: JSON.stringify({ ...this.generation(request, outputFormat), transcript: request.text }),
        signal,
      },
      this.call,
    );
    const audio = new Uint8Array(await res.arrayBuffer());
    if (audio.length === 0) throw new ProviderError("bad_response", "cartesia answered empty audio");
    if (request.format === "wav") {
      const wav = pcmToWav(audio, CARTESIA_SAMPLE_RATE);
      return wav.buffer.slice(wav.byteOffset, wav.byteOffset + wav.byteLength) as ArrayBuffer;
    }
    return audio.buffer.slice(audio.byteOffset, audio.byteOffset + audio.byteLength) as ArrayBuffer;
  }

  /** The whole text in one context of the WebSocket; the audio (raw PCM, 24 kHz) as it is made. */
  async *synthesizeStream(request: SpeechRequest, signal?: AbortSignal): AsyncGenerator<Uint8Array> {
    if (request.format !== "pcm") throw new ProviderError("rejected", "cartesia streams pcm only here");
    const stream = await this.openStream(request, signal);
    stream.push(request.text);
    stream.end();
    let bytes = 0;
    for await (const chunk of stream.audio) {
      bytes += chunk.length;
      yield chunk;
    }
    if (bytes === 0) throw new ProviderError("bad_response", "cartesia answered empty audio");
  }

  /**
   * One context on a new WebSocket, fed text as it comes: `push` sends a piece (`continue: true`),
   * `end` closes the context (an empty transcript, `continue: false`), and `audio` yields the raw
   * PCM (24 kHz, 16-bit) in order, ending with Cartesia's `done`. `signal` cancels the context
   * (`cancel: true`) and closes the socket; `audio` then throws a `canceled` ProviderError. Leaving
   * `audio` early does the same. `request.text` is not sent: the pieces are.
   */
  async openStream(request: SpeechRequest, signal?: AbortSignal, options: SpeechStreamOptions = {}): Promise<SpeechStream> {
    if (request.format !== "pcm") throw new ProviderError("rejected", "cartesia streams pcm only here");
    const socket = await this.open(signal);
    const contextId = crypto.randomUUID();
    const delay = options.bufferDelayMs;
    const base = {
      ...this.generation(request, RAW_PCM, contextId),
      ...(delay !== undefined && { max_buffer_delay_ms: Math.min(5000, Math.max(0, Math.round(delay))) }),
    };
    const queue = new AudioQueue();
    let ended = false;
    let idle: ReturnType<typeof setTimeout> | undefined;

    const settle = (fail?: unknown) => {
      if (queue.closed) return;
      if (idle) clearTimeout(idle);
      signal?.removeEventListener("abort", onAbort);
      if (fail) queue.fail(fail);
      else queue.finish();
      try {
        socket.close(1000, "done");
      } catch {
        // already closed
      }
    };
    /** No message for a whole provider timeout: the generation is given up. */
    const armIdle = () => {
      if (idle) clearTimeout(idle);
      idle = setTimeout(
        () => settle(new ProviderError("timeout", `cartesia did not answer within ${this.call.timeoutMs} ms`)),
        this.call.timeoutMs,
      );
    };
    const cancel = (reason: unknown) => {
      if (queue.closed) return;
      try {
        socket.send(JSON.stringify({ context_id: contextId, cancel: true }));
      } catch {
        // the socket is gone already
      }
      settle(reason);
    };
    const onAbort = () => cancel(canceled(this.name));

    socket.addEventListener("message", (event) => {
      let msg: ServerMessage;
      try {
        msg = JSON.parse(textOf(event.data)) as ServerMessage;
      } catch {
        return settle(new ProviderError("bad_response", "cartesia sent a message that is not JSON"));
      }
      if (msg.context_id !== undefined && msg.context_id !== contextId) return;
      armIdle();
      if (msg.type === "chunk" && typeof msg.data === "string") {
        const audio = base64Bytes(msg.data);
        if (audio.length > 0) queue.push(audio);
        if (msg.done) settle();
      } else if (msg.type === "done") settle();
      else if (msg.type === "error") settle(errorOf(msg));
      // timestamps, phoneme_timestamps and flush_done carry nothing we use
    });
    socket.addEventListener("close", (event) => {
      if (!queue.closed) settle(new ProviderError("upstream", `cartesia closed the connection before the speech was done (${event.code})`));
    });
    socket.addEventListener("error", () => settle(new ProviderError("upstream", "cartesia's connection failed")));
    signal?.addEventListener("abort", onAbort, { once: true });
    if (signal?.aborted) onAbort();

    const send = (transcript: string, more: boolean) => {
      if (ended) throw new Error("this speech stream was ended: push no more text");
      if (queue.closed) return; // canceled or failed: `audio` says why
      if (!more) ended = true;
      armIdle(); // waiting on Cartesia from now; a slow writer is not Cartesia's silence
      socket.send(JSON.stringify({ ...base, transcript, continue: more }));
    };
    const drain = queue.drain();
    return {
      push: (text) => {
        if (text !== "") send(text, true);
      },
      end: () => {
        if (!ended) send("", false);
      },
      audio: {
        [Symbol.asyncIterator]: () => ({
          next: () => drain.next(),
          return: async () => {
            // The consumer stopped listening: stop the generation too.
            cancel(canceled(this.name));
            return drain.return(undefined);
          },
        }),
      },
    };
  }

  /** The WebSocket handshake, retried like any provider call on 429, 5xx and unreachable servers. */
  private open(signal?: AbortSignal): Promise<ProviderSocket> {
    const url = `${this.baseUrl}/tts/websocket?cartesia_version=${CARTESIA_VERSION}`;
    return openSocket(this.name, this.connect, url, this.headers(), this.call, signal);
  }
}
