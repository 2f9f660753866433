// Cartesia's text-to-speech API (Sonic) as the provider sandbox speaks it, so the platform's
// Cartesia adapter (src/providers/cartesia.ts) runs unchanged on a laptop and in CI: only its base
// URL differs. On the provider sandbox's port, at Cartesia's paths:
//
// - `POST /tts/bytes`: a JSON body `{model_id, transcript, voice: {mode: "id", id}, output_format:
//   {container, encoding, sample_rate}, generation_config?}`, the audio back;
// - the WebSocket `/tts/websocket`: generation requests on contexts (`context_id`), `continue: true`
//   while more text may follow (transcripts are joined verbatim; an empty transcript with
//   `continue: false` closes the context), `{context_id, cancel: true}`; answered with `chunk`
//   messages (base64 audio), then `done`, or an `error` message.
//
// Every request names the API version (`Cartesia-Version`, or `?cartesia_version=` on the
// WebSocket, which wins) and the key (`X-API-Key`, `Authorization: Bearer`, or `?api_key=` on the
// WebSocket). A wrong key is a 401, on the bytes endpoint and on the WebSocket's upgrade alike.
// Errors follow the version: up to 2025-04-16 an `error` string, from 2026-03-01 `title`, `message`
// and `error_code`.
//
// The speech is the same eSpeak audio as the rest of the sandbox (one voice per known Cartesia
// voice id, a stable pick for any other UUID). Cartesia buffers streamed text until it can speak
// it well; the sandbox speaks a context's text a clause at a time (up to `, ; : . ! ?` followed by
// a space or the end of the text), so the first clause is heard before the sentence is complete,
// and the rest when the context is closed. With `max_buffer_delay_ms: 0` (Cartesia's "custom
// buffering": the client sends whole clauses) every input is spoken as it comes. See docs/sandbox.md.
import { createHash, randomUUID, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { type WebSocket, WebSocketServer } from "ws";
import { mulawEncode, pcm16FromBytes, resample } from "../../src/calls/codec";
import type { Synthesizer, VoiceProfile } from "./audio";
import { jittered, type LatencyProfile } from "./latency";
import type { SpeechMemory } from "./recognize";
import { buildWav, resample16 } from "./wav";

/** The API versions Cartesia publishes (docs.cartesia.ai/api-reference: `Cartesia-Version`). */
export const CARTESIA_VERSIONS = ["2024-06-10", "2024-11-13", "2025-04-16", "2026-03-01"] as const;
/** From this version on, errors carry `title`, `message` and `error_code` instead of one `error` string. */
const TITLED_ERRORS_FROM = "2026-03-01";

/** Cartesia voices the sandbox knows by id (from Cartesia's docs and SDK readme), each a different eSpeak voice. */
export const CARTESIA_VOICES: Record<string, { name: string; profile: VoiceProfile }> = {
  "f786b574-daa5-4673-aa0c-cbe3e8534c02": { name: "Katie", profile: { voice: "en/en-us", variant: "f2", pitch: 60 } },
  "a0e99841-438c-4a64-b679-ae501e7d6091": { name: "Barbershop Man", profile: { voice: "en/en-us", variant: "m4", pitch: 32 } },
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Sonic models: `sonic`, `sonic-2`, `sonic-3`, `sonic-3.5`, `sonic-turbo`, dated snapshots (`sonic-2-2025-06-11`)… */
const MODEL = /^sonic(-[a-z0-9.]+)*$/;
const SAMPLE_RATES = [8000, 16000, 22050, 24000, 44100, 48000];
export const CARTESIA_BYTES_PATH = "/tts/bytes";
export const CARTESIA_WEBSOCKET_PATH = "/tts/websocket";
/** Bytes of audio per `chunk` message (and per write of the bytes endpoint with a latency profile). */
export const CHUNK_BYTES = 4096;

/** A Cartesia error: its HTTP status (or `status_code` on the WebSocket), a code and a message. */
export class CartesiaError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly title: string,
    message: string,
  ) {
    super(message);
  }

  /** The error's fields as this API version words them. */
  fields(version: string | null): Record<string, unknown> {
    return version !== null && version >= TITLED_ERRORS_FROM
      ? { title: this.title, message: this.message, error_code: this.code }
      : { error: `${this.title}: ${this.message}` };
  }
}

const bad = (code: string, title: string, message: string) => new CartesiaError(400, code, title, message);

export type CartesiaFormat = { container: "raw" | "wav"; encoding: "pcm_s16le" | "pcm_mulaw"; rate: number };

/** What a generation request asks, except its transcript. */
export interface CartesiaVoicing {
  model: string;
  voiceId: string;
  profile: VoiceProfile;
  format: CartesiaFormat;
  /** generation_config.speed (0.6 to 1.5), 1 by default. */
  speed: number;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The voice for an id: a known one, or any other UUID (a stable pick among them). */
export function cartesiaVoice(id: string): VoiceProfile {
  const known = CARTESIA_VOICES[id];
  if (known) return known.profile;
  if (!UUID.test(id)) throw new CartesiaError(404, "voice_not_found", "Voice not found", `No voice with id '${id}'.`);
  const all = Object.values(CARTESIA_VOICES);
  const pick = createHash("sha256").update(id).digest().readUInt32BE(0) % all.length;
  return (all[pick] as { profile: VoiceProfile }).profile;
}

/** Checks a generation request's fields as Cartesia does; `websocket` allows only the raw container. */
export function parseVoicing(body: Record<string, unknown>, websocket: boolean): CartesiaVoicing {
  const model = body.model_id;
  if (typeof model !== "string" || model === "") throw bad("invalid_request", "Invalid request", "model_id is required.");
  if (!MODEL.test(model)) throw bad("model_not_found", "Invalid model", "The model is not valid, make sure it is a valid model ID.");
  const voice = body.voice;
  if (!isObject(voice) || voice.mode !== "id" || typeof voice.id !== "string")
    throw bad("invalid_request", "Invalid request", 'voice must be {"mode": "id", "id": "<voice id>"}.');
  const profile = cartesiaVoice(voice.id);
  const of = body.output_format;
  if (!isObject(of)) throw bad("invalid_request", "Invalid request", "output_format is required.");
  const container = of.container;
  if (container === "mp3")
    throw bad("unsupported_output_format", "Unsupported output format", "The provider sandbox does not encode MP3: use raw or wav.");
  if (container !== "raw" && container !== "wav")
    throw bad("invalid_request", "Invalid request", "output_format.container must be raw, wav or mp3.");
  if (websocket && container !== "raw") throw bad("invalid_request", "Invalid request", "The WebSocket streams the raw container only.");
  const encoding = of.encoding;
  if (encoding === "pcm_f32le" || encoding === "pcm_alaw")
    throw bad(
      "unsupported_output_format",
      "Unsupported output format",
      `The provider sandbox does not encode ${encoding}: use pcm_s16le or pcm_mulaw.`,
    );
  if (encoding !== "pcm_s16le" && encoding !== "pcm_mulaw")
    throw bad("invalid_request", "Invalid request", "output_format.encoding must be pcm_f32le, pcm_s16le, pcm_mulaw or pcm_alaw.");
  const rate = of.sample_rate;
  if (typeof rate !== "number" || !SAMPLE_RATES.includes(rate))
    throw bad("invalid_request", "Invalid request", `output_format.sample_rate must be one of ${SAMPLE_RATES.join(", ")}.`);
  if (encoding === "pcm_mulaw" && rate !== 8000)
    throw bad("invalid_request", "Invalid request", "pcm_mulaw is produced at 8000 Hz only in the provider sandbox.");
  let speed = 1;
  const config = body.generation_config;
  if (config !== undefined && config !== null) {
    if (!isObject(config)) throw bad("invalid_request", "Invalid request", "generation_config must be an object.");
    if (config.speed !== undefined) {
      if (typeof config.speed !== "number" || config.speed < 0.6 || config.speed > 1.5)
        throw bad("invalid_request", "Invalid request", "generation_config.speed must be a number from 0.6 to 1.5.");
      speed = config.speed;
    }
  }
  return { model, voiceId: voice.id, profile, format: { container, encoding, rate }, speed };
}

/** The speech of `text` in the asked format (a WAV only for the wav container); remembered so a call's capture can be transcribed. */
export async function speakCartesia(synth: Synthesizer, voicing: CartesiaVoicing, text: string, memory?: SpeechMemory): Promise<Buffer> {
  const { pcm, sampleRate } = await synth.speak(text, voicing.profile, voicing.speed);
  const samples = pcm16FromBytes(new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.length));
  memory?.remember(JSON.stringify(["cartesia", voicing.voiceId, voicing.speed, text]), text, samples, sampleRate);
  const { format } = voicing;
  const audio =
    format.encoding === "pcm_mulaw"
      ? Buffer.from(mulawEncode(resample(samples, sampleRate, 8000)))
      : resample16(pcm, sampleRate, format.rate);
  return format.container === "wav" && format.encoding === "pcm_s16le" ? buildWav(audio, format.rate) : audio;
}

/** Bytes per second of audio in this format (for pacing by a latency profile). */
const bytesPerSecond = (format: CartesiaFormat) => (format.encoding === "pcm_mulaw" ? 8000 : format.rate * 2);

/** The request's key (X-API-Key, a Bearer token, or `?api_key=` on the WebSocket) checked against the sandbox's. */
function authorize(req: IncomingMessage, query: URLSearchParams | null, expected: Buffer): void {
  const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
  const given = (req.headers["x-api-key"] as string | undefined) ?? bearer ?? query?.get("api_key") ?? undefined;
  if (!given) throw new CartesiaError(401, "unauthorized", "Unauthorized", "No API key: send it in the X-API-Key header.");
  const key = Buffer.from(given);
  if (key.length !== expected.length || !timingSafeEqual(key, expected))
    throw new CartesiaError(
      401,
      "unauthorized",
      "Unauthorized",
      "Invalid API key. The provider sandbox accepts only the Cartesia key it was started with.",
    );
}

/** The API version: `?cartesia_version=` (WebSocket; it wins) or the `Cartesia-Version` header; required. */
function versionOf(req: IncomingMessage, query: URLSearchParams | null): string {
  const version = query?.get("cartesia_version") ?? (req.headers["cartesia-version"] as string | undefined);
  if (!version) throw bad("missing_version", "Missing version", "Send the API version in the Cartesia-Version header.");
  if (!(CARTESIA_VERSIONS as readonly string[]).includes(version))
    throw bad("invalid_version", "Invalid version", `Unknown Cartesia-Version ${version}: use one of ${CARTESIA_VERSIONS.join(", ")}.`);
  return version;
}

export interface BytesAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** With a latency profile: when the first byte goes out, and the real-time factor of the rest. */
  pacing?: { ttfbMs: number; rtf: number; bytesPerSecond: number };
  model?: string;
}

/** Pieces of a context's text that can be spoken now: up to the last clause end; the rest waits. */
export function speakable(text: string, final: boolean): { now: string[]; rest: string } {
  if (final) return { now: text.trim() ? [text.trim()] : [], rest: "" };
  const now: string[] = [];
  const clause = /[,;:.!?]+(\s+|$)/g;
  let from = 0;
  for (let m = clause.exec(text); m; m = clause.exec(text)) {
    const piece = text.slice(from, m.index + m[0].length).trim();
    if (piece) now.push(piece);
    from = m.index + m[0].length;
  }
  return { now, rest: text.slice(from) };
}

/** One context of a WebSocket: its text so far, and its speech, spoken in order. */
interface Context {
  id: string;
  voicing: CartesiaVoicing;
  /** The voicing fields as sent, which every later input of the context must repeat unchanged. */
  fingerprint: string;
  pending: string;
  /** `max_buffer_delay_ms: 0`: each input is spoken at once, whole. */
  immediate: boolean;
  closed: boolean;
  canceled: boolean;
  /** The speech in order: each clause waits for the one before. */
  chain: Promise<void>;
  /** When the context's first audio may go out (the latency profile's time to first byte). */
  firstAudioAt: number | null;
}

export interface CartesiaTtsServer {
  /** `POST /tts/bytes` (the profile prefix already removed from the path). */
  bytes(req: IncomingMessage, raw: Buffer, profile: LatencyProfile): Promise<BytesAnswer>;
  /** Takes an upgrade for `/tts/websocket`; `record` gets the status (101, or the refusal's). */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, profile: LatencyProfile, record: (status: number) => void): void;
  stop(): void;
}

/** Writes an HTTP refusal of a WebSocket upgrade with Cartesia's JSON error body, then closes the socket. */
function refuseUpgrade(socket: Duplex, err: CartesiaError, version: string | null): void {
  const body = JSON.stringify({ ...err.fields(version), request_id: randomUUID() });
  const reason = { 400: "Bad Request", 401: "Unauthorized", 404: "Not Found" } as Record<number, string>;
  socket.end(
    `HTTP/1.1 ${err.status} ${reason[err.status] ?? "Error"}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

export function cartesiaTtsServer(opts: { apiKey: string; synth: Synthesizer; memory: SpeechMemory }): CartesiaTtsServer {
  const expected = Buffer.from(opts.apiKey);
  const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  const sockets = new Set<WebSocket>();
  const timers = new Set<NodeJS.Timeout>();
  const sleepUntil = (at: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(
        () => {
          timers.delete(t);
          resolve();
        },
        Math.max(0, at - Date.now()),
      );
      timers.add(t);
    });

  const session = (ws: WebSocket, version: string, profile: LatencyProfile) => {
    const contexts = new Map<string, Context>();
    const timing = profile.speech?.cartesia ?? null;
    const send = (msg: Record<string, unknown>) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(msg));
    };
    const fail = (err: CartesiaError, contextId?: string) =>
      send({ type: "error", done: true, status_code: err.status, ...err.fields(version), ...(contextId ? { context_id: contextId } : {}) });

    /** Speaks one clause of a context: its audio in chunks, paced by the latency profile. */
    const speak = async (ctx: Context, text: string) => {
      if (ctx.canceled) return;
      const audio = await speakCartesia(opts.synth, ctx.voicing, text, opts.memory);
      const perSecond = bytesPerSecond(ctx.voicing.format);
      let at = Math.max(Date.now(), ctx.firstAudioAt ?? 0);
      for (let i = 0; i < audio.length; i += CHUNK_BYTES) {
        if (timing) await sleepUntil(at);
        if (ctx.canceled || ws.readyState !== ws.OPEN) return;
        const chunk = audio.subarray(i, i + CHUNK_BYTES);
        send({ type: "chunk", data: chunk.toString("base64"), done: false, status_code: 206, step_time: 0, context_id: ctx.id });
        if (timing) at += timing.rtf * (chunk.length / perSecond) * 1000;
      }
    };

    const input = (msg: Record<string, unknown>) => {
      const contextId = typeof msg.context_id === "string" && msg.context_id ? msg.context_id : null;
      if (msg.cancel === true) {
        const ctx = contextId ? contexts.get(contextId) : undefined;
        if (ctx) ctx.canceled = true;
        return;
      }
      const transcript = msg.transcript;
      if (typeof transcript !== "string")
        return fail(bad("invalid_request", "Invalid request", "transcript is required."), contextId ?? undefined);
      const more = msg.continue === true;
      const id = contextId ?? randomUUID();
      let ctx = contexts.get(id);
      const { transcript: _t, continue: _c, context_id: _id, ...rest } = msg;
      const fingerprint = JSON.stringify(rest);
      if (!ctx) {
        let voicing: CartesiaVoicing;
        const delay = msg.max_buffer_delay_ms;
        try {
          voicing = parseVoicing(msg, true);
          if (delay !== undefined && (typeof delay !== "number" || delay < 0 || delay > 5000))
            throw bad("invalid_request", "Invalid request", "max_buffer_delay_ms must be a number from 0 to 5000.");
        } catch (err) {
          return fail(err instanceof CartesiaError ? err : bad("invalid_request", "Invalid request", String(err)), contextId ?? undefined);
        }
        ctx = {
          id,
          voicing,
          fingerprint,
          pending: "",
          immediate: delay === 0,
          closed: false,
          canceled: false,
          chain: Promise.resolve(),
          firstAudioAt: timing ? Date.now() + jittered(timing.ttfbMs, profile.sigma) : null,
        };
        contexts.set(id, ctx);
      } else if (ctx.closed) {
        return fail(bad("context_closed", "Context closed", `Context ${id} was closed (continue: false); start a new context.`), id);
      } else if (ctx.fingerprint !== fingerprint) {
        return fail(
          bad("invalid_request", "Invalid request", "Inputs on one context must keep every field but transcript and continue the same."),
          id,
        );
      }
      if (ctx.canceled) return;
      const current = ctx;
      const { now, rest: left } = speakable(current.pending + transcript, !more || current.immediate);
      current.pending = left;
      if (!more) current.closed = true;
      for (const text of now) current.chain = current.chain.then(() => speak(current, text));
      if (!more)
        current.chain = current.chain.then(
          () => {
            contexts.delete(current.id);
            if (!current.canceled) send({ type: "done", done: true, status_code: 206, context_id: current.id });
          },
          (err) => {
            contexts.delete(current.id);
            fail(
              new CartesiaError(500, "internal_error", "Internal error", `The provider sandbox failed: ${(err as Error).message}`),
              current.id,
            );
          },
        );
      else
        current.chain = current.chain.catch((err) => {
          current.canceled = true;
          fail(
            new CartesiaError(500, "internal_error", "Internal error", `The provider sandbox failed: ${(err as Error).message}`),
            current.id,
          );
        });
    };

    ws.on("message", (data, isBinary) => {
      if (isBinary) return fail(bad("invalid_request", "Invalid request", "Send JSON text messages."));
      const text = (Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer)).toString("utf8");
      let msg: unknown;
      try {
        msg = JSON.parse(text);
      } catch {
        return fail(bad("invalid_request", "Invalid request", "The message is not valid JSON."));
      }
      if (!isObject(msg)) return fail(bad("invalid_request", "Invalid request", "The message must be a JSON object."));
      input(msg);
    });
    ws.on("close", () => {
      for (const ctx of contexts.values()) ctx.canceled = true;
      contexts.clear();
    });
  };

  return {
    async bytes(req, raw, profile) {
      // The version words every answer, a refused key's included.
      let version: string | null = (req.headers["cartesia-version"] as string | undefined) ?? null;
      try {
        authorize(req, null, expected);
        version = versionOf(req, null);
        if (req.method !== "POST") throw new CartesiaError(405, "method_not_allowed", "Method not allowed", "Use POST.");
        let body: unknown;
        try {
          body = JSON.parse(raw.toString("utf8"));
        } catch {
          throw bad("invalid_request", "Invalid request", "The body is not valid JSON.");
        }
        if (!isObject(body)) throw bad("invalid_request", "Invalid request", "The body must be a JSON object.");
        const voicing = parseVoicing(body, false);
        if (typeof body.transcript !== "string" || body.transcript.trim() === "")
          throw bad("invalid_request", "Invalid request", "transcript is required and must not be empty.");
        const audio = await speakCartesia(opts.synth, voicing, body.transcript, opts.memory);
        const timing = profile.speech?.cartesia;
        return {
          status: 200,
          model: voicing.model,
          headers: { "content-type": voicing.format.container === "wav" ? "audio/wav" : "application/octet-stream" },
          body: audio,
          ...(timing && {
            pacing: { ttfbMs: jittered(timing.ttfbMs, profile.sigma), rtf: timing.rtf, bytesPerSecond: bytesPerSecond(voicing.format) },
          }),
        };
      } catch (err) {
        const e =
          err instanceof CartesiaError
            ? err
            : new CartesiaError(500, "internal_error", "Internal error", `The provider sandbox failed: ${(err as Error).message}`);
        return {
          status: e.status,
          headers: { "content-type": "application/json" },
          body: Buffer.from(JSON.stringify({ ...e.fields(version), request_id: randomUUID() })),
        };
      }
    },

    upgrade(req, socket, head, profile, record) {
      const query = new URL(req.url ?? "/", "http://sandbox").searchParams;
      let version: string | null = query.get("cartesia_version") ?? (req.headers["cartesia-version"] as string | undefined) ?? null;
      try {
        authorize(req, query, expected);
        version = versionOf(req, query);
      } catch (err) {
        const e =
          err instanceof CartesiaError
            ? err
            : new CartesiaError(500, "internal_error", "Internal error", `The provider sandbox failed: ${(err as Error).message}`);
        record(e.status);
        return refuseUpgrade(socket, e, version);
      }
      const agreed = version;
      wss.handleUpgrade(req, socket, head, (ws) => {
        record(101);
        sockets.add(ws);
        ws.on("close", () => sockets.delete(ws));
        ws.on("error", () => ws.terminate());
        session(ws, agreed, profile);
      });
    },

    stop() {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      for (const ws of sockets) ws.terminate();
      sockets.clear();
      wss.close();
    },
  };
}
