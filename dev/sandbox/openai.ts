// The provider sandbox: a local HTTP server that speaks the subset of the OpenAI API the Models
// API uses (chat completions, speech, transcriptions, models), so the platform's
// OpenAI-compatible provider adapter runs unchanged on a laptop and in CI; and, on the same port,
// ElevenLabs' text-to-speech API (elevenlabs.ts) for the ElevenLabs adapter, Cartesia's (cartesia.ts:
// its bytes endpoint and its WebSocket) for the Cartesia adapter, and Deepgram's live
// transcription WebSockets (deepgram.ts) for the Deepgram adapter. It is a stand-in,
// not a model: chat replies follow fixed rules derived from the input, speech is real eSpeak
// audio, and transcription returns the text the sandbox embedded in its own WAVs, or the text of
// a speech it synthesized recently whose loudness envelope the audio matches. Failures are
// chosen per request through the model name (fault-500, fault-429, fault-timeout,
// fault-garbage, fault-prose, fault-flaky-N, fault-slow-MS). See docs/sandbox.md.
//
//   npx tsx dev/sandbox/openai.ts          # PORT (default 8790), SANDBOX_API_KEY, SANDBOX_ELEVENLABS_API_KEY, SANDBOX_CARTESIA_API_KEY, SANDBOX_DEEPGRAM_API_KEY (default random)
import { createHash, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import { realpathSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { fileURLToPath } from "node:url";
import { listenLocal } from "../listen";
import { parseSpeechRequest, parseTranscriptionForm, Synthesizer, synthesize, TRANSCRIPTION_MAX_BYTES, transcribe } from "./audio";
import { CARTESIA_BYTES_PATH, CARTESIA_WEBSOCKET_PATH, cartesiaTtsServer } from "./cartesia";
import { checkModel, complete, parseChatRequest, streamEvents } from "./chat";
import { DeepgramRefusal, deepgramListenServer, LISTEN_PATHS, refuseUpgrade } from "./deepgram";
import { ElevenLabsError, parseElevenLabsRequest, speakElevenLabs, ttsPath } from "./elevenlabs";
import { embed, parseEmbeddingRequest } from "./embeddings";
import { ApiError, invalid } from "./errors";
import {
  jittered,
  LATENCY_HEADER,
  LATENCY_PROFILES,
  type LatencyProfileName,
  PROFILES,
  parseProfileName,
  splitProfilePath,
} from "./latency";
import { SpeechMemory } from "./recognize";

export interface SandboxRequest {
  method: string;
  /** Path without the query string, e.g. "/v1/chat/completions". */
  path: string;
  /** Date.now() when the request arrived. */
  at: number;
  /** The model named in the body, when there was one. */
  model?: string;
  /** Text to speech (POST /v1/audio/speech): the voice named in the body. */
  voice?: string;
  /** The status answered; absent while the request is pending or held (fault-timeout). */
  status?: number;
  /** The latency profile that timed the answer (docs/sandbox.md#latency-profiles). */
  profile?: LatencyProfileName;
  /** The client went away before the whole answer was sent (an aborted stream). */
  aborted?: boolean;
}

export interface ProviderSandbox {
  /** Base URL ending in /v1, e.g. http://127.0.0.1:8790/v1 (the `baseURL` of the openai SDK). */
  url: string;
  apiKey: string;
  /** ElevenLabs' text-to-speech API on the same port: `url` is what https://api.elevenlabs.io is (no /v1); `apiKey` goes in `xi-api-key`. */
  elevenLabs: { url: string; apiKey: string };
  /** Cartesia's text-to-speech API on the same port: `url` is what https://api.cartesia.ai is; `apiKey` goes in `X-API-Key`. */
  cartesia: { url: string; apiKey: string };
  /** Deepgram's live transcription WebSockets on the same port: `url` is what https://api.deepgram.com is; `apiKey` goes in `Authorization: Token …`. */
  deepgram: { url: string; apiKey: string };
  /** Every request received, in arrival order, including refused ones. */
  requests: SandboxRequest[];
  /** The profile of requests that name none (option `latency`, else SANDBOX_LATENCY, else `instant`). */
  latency: LatencyProfileName;
  stop(): Promise<void>;
}

export const DEFAULT_SANDBOX_PORT = 8790;

/** Models listed by GET /v1/models. Any other id is served too, except `missing-*` (404). */
export const SANDBOX_MODELS = ["sandbox-chat", "gpt-4o-mini", "gpt-4o", "tts-1", "gpt-4o-mini-tts", "whisper-1", "gpt-4o-mini-transcribe"];
const MODEL_CREATED = 1_700_000_000;

const JSON_BODY_LIMIT = 8 * 1024 * 1024;
const MULTIPART_BODY_LIMIT = TRANSCRIPTION_MAX_BYTES + 1024 * 1024;
const FLAKY_MEMORY = 10_000;
const SLOW_MAX_MS = 60_000;
/** Bytes per write of ElevenLabs' streaming variant. */
const STREAM_CHUNK = 4096;

type Fault = { kind: "error"; error: ApiError } | { kind: "hold" } | { kind: "garbage" } | { kind: "delay"; ms: number } | { kind: "none" };

const serverError = () =>
  new ApiError(500, "The server had an error while processing your request. Sorry about that!", "server_error", "server_error");

class BodyTooLarge extends Error {}

/** Reads the body; past `limit` bytes it keeps draining (so the client can read the 413) and throws. */
async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size <= limit) chunks.push(chunk as Buffer);
    else if (size > limit * 8) {
      req.destroy();
      break;
    }
  }
  if (size > limit) throw new BodyTooLarge();
  return Buffer.concat(chunks);
}

const sha256 = (...parts: Array<string | Buffer>) => {
  const h = createHash("sha256");
  for (const p of parts) h.update(p).update("\0");
  return h.digest("hex");
};

export async function startProviderSandbox(
  opts: {
    port?: number;
    apiKey?: string;
    elevenLabsApiKey?: string;
    cartesiaApiKey?: string;
    deepgramApiKey?: string;
    latency?: LatencyProfileName;
  } = {},
): Promise<ProviderSandbox> {
  const fromEnv = process.env.SANDBOX_LATENCY;
  if (!opts.latency && fromEnv && !parseProfileName(fromEnv))
    throw new Error(`SANDBOX_LATENCY=${fromEnv} is not a latency profile: use one of ${LATENCY_PROFILES.join(", ")}`);
  const defaultProfile: LatencyProfileName = opts.latency ?? parseProfileName(fromEnv) ?? "instant";
  const apiKey = opts.apiKey ?? `sk-sandbox-${randomBytes(16).toString("hex")}`;
  const expected = Buffer.from(`Bearer ${apiKey}`);
  const elevenLabsApiKey = opts.elevenLabsApiKey ?? `sk_sandbox_${randomBytes(24).toString("hex")}`;
  const expectedXi = Buffer.from(elevenLabsApiKey);
  const requests: SandboxRequest[] = [];
  const synth = new Synthesizer();
  const memory = new SpeechMemory(); // what this sandbox said, so a phone call's audio of it can be transcribed
  const cartesiaApiKey = opts.cartesiaApiKey ?? `sk_car_sandbox_${randomBytes(20).toString("hex")}`;
  const cartesia = cartesiaTtsServer({ apiKey: cartesiaApiKey, synth, memory });
  const deepgramApiKey = opts.deepgramApiKey ?? `dg_sandbox_${randomBytes(20).toString("hex")}`;
  const deepgram = deepgramListenServer(deepgramApiKey, memory);
  const flaky = new Map<string, number>(); // request fingerprint -> times seen
  const held = new Set<ServerResponse>();
  const timers = new Set<NodeJS.Timeout>();

  /** The fault a model name selects; counts fault-flaky-N sightings of this request. */
  const faultFor = (model: string, fingerprint: () => string): Fault => {
    if (!model.startsWith("fault-")) return { kind: "none" };
    if (model === "fault-500") return { kind: "error", error: serverError() };
    if (model === "fault-429")
      return {
        kind: "error",
        error: new ApiError(
          429,
          `Rate limit reached for ${model} on requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in 1s.`,
          "requests",
          "rate_limit_exceeded",
          null,
          {
            "retry-after": "1",
            "x-ratelimit-limit-requests": "3",
            "x-ratelimit-remaining-requests": "0",
            "x-ratelimit-reset-requests": "1s",
          },
        ),
      };
    if (model === "fault-timeout") return { kind: "hold" };
    if (model === "fault-garbage") return { kind: "garbage" };
    // A well-formed answer whose text ignores the format asked for (dev/sandbox/agent-tests.ts): no fault at this level.
    if (model === "fault-prose") return { kind: "none" };
    const flakyN = /^fault-flaky-(\d{1,4})$/.exec(model);
    if (flakyN) {
      const key = fingerprint();
      const seen = (flaky.get(key) ?? 0) + 1;
      if (flaky.size >= FLAKY_MEMORY && !flaky.has(key)) flaky.clear();
      flaky.set(key, seen);
      return seen <= Number(flakyN[1]) ? { kind: "error", error: serverError() } : { kind: "none" };
    }
    const slow = /^fault-slow-(\d{1,5})$/.exec(model);
    if (slow) return { kind: "delay", ms: Math.min(Number(slow[1]), SLOW_MAX_MS) };
    throw new ApiError(
      404,
      `The model \`${model}\` does not exist: the sandbox's fault models are fault-500, fault-429, fault-timeout, fault-garbage, fault-prose, fault-flaky-N and fault-slow-MS.`,
      "invalid_request_error",
      "model_not_found",
      "model",
    );
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const started = Date.now();
    const method = req.method ?? "GET";
    const split = splitProfilePath((req.url ?? "/").split("?")[0] ?? "/");
    const path = split.path;
    const entry: SandboxRequest = { method, path, at: started };
    requests.push(entry);
    res.on("close", () => {
      if (!res.writableFinished) entry.aborted = true;
    });
    const named = split.profile ?? (req.headers[LATENCY_HEADER] as string | undefined) ?? null;
    const profileName = named === null ? defaultProfile : parseProfileName(named);
    const profile = PROFILES[profileName ?? "instant"];
    entry.profile = profile.name;
    /** Resolves `ms` after the request arrived (at once when that is past); false when the client left meanwhile. */
    const until = (ms: number) =>
      new Promise<boolean>((resolve) => {
        const t = setTimeout(
          () => {
            timers.delete(t);
            resolve(!res.destroyed);
          },
          Math.max(0, started + ms - Date.now()),
        );
        timers.add(t);
      });
    /** Writes `body` in chunks, the first at `ttfbMs`, the rest as a speech engine `1 / rtf` times faster than real time would produce them. */
    const streamAudio = async (body: Buffer, headers: Record<string, string>, ttfbMs: number, rtf: number, bytesPerSecond: number) => {
      entry.status = 200;
      if (!(await until(ttfbMs))) return;
      res.writeHead(200, { ...ownHeaders(), ...headers });
      // The rest is paced from when the first byte went (not from the request): a busy machine whose
      // speech engine ran late still spreads the audio as a provider making it would.
      const firstMs = Math.max(ttfbMs, Date.now() - started);
      for (let at = 0; at < body.length; at += STREAM_CHUNK) {
        if (!(await until(firstMs + rtf * (at / bytesPerSecond) * 1000))) return;
        res.write(body.subarray(at, at + STREAM_CHUNK));
      }
      res.end();
    };
    const requestId = `req_${randomBytes(16).toString("hex")}`;
    /** ElevenLabs' paths answer with its headers and error shape; every other path is OpenAI's. */
    const tts = ttsPath(path);
    const ownHeaders = (): Record<string, string> =>
      tts
        ? { "request-id": requestId.slice(4) }
        : path === CARTESIA_BYTES_PATH
          ? {}
          : { "x-request-id": requestId, "openai-processing-ms": String(Date.now() - started) };

    const send = (status: number, body: string | Buffer, headers: Record<string, string>) => {
      entry.status = status;
      if (res.headersSent || res.destroyed) return;
      const buf = typeof body === "string" ? Buffer.from(body) : body;
      res.writeHead(status, { ...ownHeaders(), "content-length": String(buf.length), ...headers }).end(buf);
    };
    const sendJson = (status: number, body: unknown, headers: Record<string, string> = {}) =>
      send(status, JSON.stringify(body), { "content-type": "application/json", ...headers });

    /** Applies the fault the model selects; true when the response is taken care of. */
    const applyFault = async (model: string, fingerprint: () => string, garbage: { body: string; type: string }) => {
      entry.model = model;
      const fault = faultFor(model, fingerprint);
      switch (fault.kind) {
        case "error":
          throw fault.error;
        case "hold":
          // Never answer: the socket stays open until the client gives up or stop() is called.
          held.add(res);
          res.on("close", () => held.delete(res));
          return true;
        case "garbage":
          send(200, garbage.body, { "content-type": garbage.type });
          return true;
        case "delay":
          await new Promise<void>((resolve) => {
            const t = setTimeout(() => {
              timers.delete(t);
              resolve();
            }, fault.ms);
            timers.add(t);
          });
          return res.destroyed; // the client left while we waited
        default:
          checkModel(model);
          return false;
      }
    };
    const jsonGarbage = { body: "<html><body>502 upstream hiccup — this body is not JSON", type: "application/json" };

    try {
      if (LISTEN_PATHS[path]) {
        // Deepgram's live API: a WebSocket upgrade (server.on("upgrade") below); pre-recorded audio is not served.
        entry.status = 426;
        const message = `The provider sandbox serves ${path} as a WebSocket (live transcription) only.`;
        return send(426, JSON.stringify({ err_code: "UPGRADE_REQUIRED", err_msg: message, request_id: randomUUID() }), {
          "content-type": "application/json",
          "dg-error": message,
        });
      }
      if (profileName === null)
        throw new ApiError(
          404,
          `Unknown latency profile "${named}": the sandbox's profiles are ${LATENCY_PROFILES.join(", ")}.`,
          "invalid_request_error",
          "unknown_latency_profile",
        );
      if (path === CARTESIA_BYTES_PATH) {
        const answer = await cartesia.bytes(req, await readBody(req, JSON_BODY_LIMIT), profile);
        entry.model = answer.model;
        const { pacing } = answer;
        if (answer.status === 200 && pacing)
          return streamAudio(answer.body, answer.headers, pacing.ttfbMs, pacing.rtf, pacing.bytesPerSecond);
        return send(answer.status, answer.body, answer.headers);
      }
      if (tts) {
        const key = Buffer.from(String(req.headers["xi-api-key"] ?? ""));
        if (key.length !== expectedXi.length || !timingSafeEqual(key, expectedXi)) {
          throw new ElevenLabsError(401, {
            status: req.headers["xi-api-key"] ? "invalid_api_key" : "missing_api_key",
            message: req.headers["xi-api-key"]
              ? "Invalid API key. The provider sandbox accepts only the ElevenLabs key it was started with."
              : "No API key: send it in the xi-api-key header.",
          });
        }
        if (method !== "POST") throw new ElevenLabsError(405, { status: "method_not_allowed", message: "Method Not Allowed" });
        const raw = await readBody(req, JSON_BODY_LIMIT);
        let body: unknown;
        try {
          body = JSON.parse(raw.toString("utf8"));
        } catch {
          throw new ElevenLabsError(422, [{ type: "json_invalid", loc: ["body"], msg: "JSON decode error" }]);
        }
        const query = new URL(req.url ?? "/", "http://sandbox").searchParams;
        const speech = parseElevenLabsRequest(tts.voiceId, tts.stream, query, body);
        // The fault models work here too, through model_id.
        const fingerprint = () => sha256(path, query.toString(), raw);
        if (await applyFault(speech.model, fingerprint, { body: "this body is not audio", type: "audio/pcm" })) return;
        const audio = await speakElevenLabs(synth, speech, memory);
        const headers = { "content-type": audio.contentType, "x-character-count": String([...speech.text].length) };
        const timing = profile.speech?.elevenlabs;
        if (timing) {
          const ttfb = jittered(timing.ttfbMs, profile.sigma);
          const perSecond = speech.format.codec === "ulaw" ? 8000 : speech.format.rate * 2;
          if (speech.stream) return streamAudio(audio.body, headers, ttfb, timing.rtf, perSecond);
          // The whole file once all of it is made.
          if (!(await until(ttfb + timing.rtf * (audio.body.length / perSecond) * 1000))) return;
          return send(200, audio.body, headers);
        }
        if (!speech.stream) return send(200, audio.body, headers);
        // The streaming variant: the same bytes, chunked as they would arrive.
        entry.status = 200;
        res.writeHead(200, { ...ownHeaders(), ...headers });
        for (let at = 0; at < audio.body.length; at += STREAM_CHUNK) res.write(audio.body.subarray(at, at + STREAM_CHUNK));
        res.end();
        return;
      }

      const auth = Buffer.from(req.headers.authorization ?? "");
      if (auth.length !== expected.length || !timingSafeEqual(auth, expected)) {
        throw new ApiError(
          401,
          req.headers.authorization
            ? "Incorrect API key provided. The provider sandbox accepts only the key it was started with."
            : "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
          "invalid_request_error",
          "invalid_api_key",
        );
      }

      const readJson = async (): Promise<{ raw: Buffer; body: unknown; model: string }> => {
        const raw = await readBody(req, JSON_BODY_LIMIT);
        let body: unknown;
        try {
          body = JSON.parse(raw.toString("utf8"));
        } catch {
          throw invalid(
            "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload.)",
            null,
            null,
          );
        }
        const model =
          typeof body === "object" && body !== null && typeof (body as { model?: unknown }).model === "string"
            ? (body as { model: string }).model
            : "";
        return { raw, body, model };
      };

      const routes: Record<string, string[]> = {
        "/v1/models": ["GET"],
        "/v1/chat/completions": ["POST"],
        "/v1/audio/speech": ["POST"],
        "/v1/audio/transcriptions": ["POST"],
        "/v1/embeddings": ["POST"],
      };

      if (method === "GET" && path === "/v1/models") {
        return sendJson(200, {
          object: "list",
          data: SANDBOX_MODELS.map((id) => ({ id, object: "model", created: MODEL_CREATED, owned_by: "provider-sandbox" })),
        });
      }
      const modelPath = /^\/v1\/models\/(.+)$/.exec(path);
      if (method === "GET" && modelPath?.[1]) {
        const id = decodeURIComponent(modelPath[1]);
        entry.model = id;
        checkModel(id);
        return sendJson(200, { id, object: "model", created: MODEL_CREATED, owned_by: "provider-sandbox" });
      }

      if (method === "POST" && path === "/v1/chat/completions") {
        const { raw, body, model } = await readJson();
        if (model && (await applyFault(model, () => sha256(path, raw), jsonGarbage))) return;
        const request = parseChatRequest(body);
        const completion = complete(request);
        const timing = profile.chat;
        const ttft = timing ? jittered(timing.ttftMs, profile.sigma) : 0;
        const perToken = timing ? 1000 / (timing.tokensPerSecond / jittered(1, profile.sigma)) : 0;
        const tokens = completion.usage.completion_tokens;
        if (!request.stream) {
          if (timing && !(await until(ttft + tokens * perToken))) return;
          return sendJson(200, completion);
        }
        entry.status = 200;
        res.writeHead(200, {
          "content-type": "text/event-stream; charset=utf-8",
          "cache-control": "no-cache",
          connection: "keep-alive",
          "x-request-id": requestId,
          "openai-processing-ms": String(Date.now() - started),
        });
        // Event 0 is the role's (at the first token), then one per token; the closing events follow the last token.
        const events = streamEvents(completion, request.includeUsage);
        for (const [i, event] of events.entries()) {
          if (timing && !(await until(ttft + Math.min(Math.max(0, i - 1), tokens) * perToken))) return;
          res.write(event);
        }
        res.end();
        return;
      }

      if (method === "POST" && path === "/v1/embeddings") {
        const { raw, body, model } = await readJson();
        if (model && (await applyFault(model, () => sha256(path, raw), jsonGarbage))) return;
        const request = parseEmbeddingRequest(body);
        checkModel(request.model);
        const out = embed(request);
        const timing = profile.embeddings;
        if (timing) {
          const wait = timing.baseMs + (out.usage.prompt_tokens / 1000) * timing.perThousandTokensMs;
          if (!(await until(jittered(wait, profile.sigma)))) return;
        }
        return sendJson(200, out);
      }

      if (method === "POST" && path === "/v1/audio/speech") {
        const { raw, body, model } = await readJson();
        const named = (body as { voice?: unknown } | null)?.voice;
        if (typeof named === "string") entry.voice = named;
        if (model && (await applyFault(model, () => sha256(path, raw), { body: "this body is not audio", type: "audio/wav" }))) return;
        const speech = parseSpeechRequest(body);
        const audio = await synthesize(synth, speech, memory);
        const timing = profile.speech?.openai;
        // OpenAI sends speech with chunked transfer encoding as it is made: so does the realistic profile.
        if (timing) {
          const perSecond = speech.format === "wav" ? 22_050 * 2 : 24_000 * 2;
          return streamAudio(
            audio.body,
            { "content-type": audio.contentType },
            jittered(timing.ttfbMs, profile.sigma),
            timing.rtf,
            perSecond,
          );
        }
        return send(200, audio.body, { "content-type": audio.contentType });
      }

      if (method === "POST" && path === "/v1/audio/transcriptions") {
        const type = req.headers["content-type"] ?? "";
        if (!/^multipart\/form-data\s*;/i.test(type))
          throw invalid(
            `Invalid Content-Type header (${type || "none"}): the transcription endpoint expects multipart/form-data.`,
            null,
            "invalid_content_type",
          );
        const raw = await readBody(req, MULTIPART_BODY_LIMIT);
        let form: FormData;
        try {
          form = await new Request("http://sandbox/", { method: "POST", headers: { "content-type": type }, body: raw }).formData();
        } catch {
          throw invalid("Could not parse multipart form: the body is not valid multipart/form-data.", null, "invalid_multipart");
        }
        const fileEntry = form.get("file") as unknown as Blob | string | null; // a File in Node; workers-types say string
        let file: Buffer | undefined;
        if (fileEntry !== null && typeof fileEntry === "object") {
          if (fileEntry.size > TRANSCRIPTION_MAX_BYTES)
            throw new ApiError(
              413,
              `Maximum content size limit (${TRANSCRIPTION_MAX_BYTES}) exceeded.`,
              "invalid_request_error",
              "file_too_large",
              "file",
            );
          file = Buffer.from(await fileEntry.arrayBuffer());
        }
        const model = form.get("model");
        if (typeof model === "string" && model) {
          const fingerprint = () =>
            sha256(path, ...["model", "language", "response_format", "prompt"].map((k) => String(form.get(k) ?? "")), file ?? "");
          if (await applyFault(model, fingerprint, jsonGarbage)) return;
        }
        const out = transcribe(parseTranscriptionForm(form, file), memory);
        if (profile.transcription && !(await until(jittered(profile.transcription.finalizeMs, profile.sigma)))) return;
        return send(200, out.body, { "content-type": out.contentType });
      }

      const allowed = routes[path];
      if (allowed)
        throw new ApiError(
          405,
          `Method ${method} not allowed on ${path}; use ${allowed.join(", ")}.`,
          "invalid_request_error",
          "method_not_allowed",
        );
      throw new ApiError(404, `Invalid URL (${method} ${path})`, "invalid_request_error", "unknown_url");
    } catch (err) {
      if (tts) {
        const e =
          err instanceof ElevenLabsError
            ? err
            : err instanceof BodyTooLarge
              ? new ElevenLabsError(413, { status: "request_too_large", message: "Request body too large for the provider sandbox." })
              : err instanceof ApiError // a fault model, or a missing-* model
                ? new ElevenLabsError(err.status, { status: err.code ?? err.type, message: err.message }, err.headers)
                : new ElevenLabsError(500, {
                    status: "internal_error",
                    message: `The provider sandbox failed: ${err instanceof Error ? err.message : String(err)}`,
                  });
        return sendJson(e.status, e.body(), e.headers);
      }
      if (err instanceof BodyTooLarge)
        return sendJson(
          413,
          new ApiError(413, "Request body too large for the provider sandbox.", "invalid_request_error", "request_too_large").body(),
        );
      if (err instanceof ApiError) return sendJson(err.status, err.body(), err.headers);
      const message = err instanceof Error ? err.message : String(err);
      return sendJson(500, new ApiError(500, `The provider sandbox failed: ${message}`, "server_error", "server_error").body());
    }
  };

  const server: Server = createServer((req, res) => {
    void handle(req, res);
  });
  server.keepAliveTimeout = 5_000;
  // Deepgram's live transcription (deepgram.ts), with the same latency profile rules as every route.
  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const split = splitProfilePath((req.url ?? "/").split("?")[0] ?? "/");
    const entry: SandboxRequest = { method: req.method ?? "GET", path: split.path, at: Date.now() };
    requests.push(entry);
    const named = split.profile ?? (req.headers[LATENCY_HEADER] as string | undefined) ?? null;
    const profileName = named === null ? defaultProfile : parseProfileName(named);
    if (profileName === null) {
      entry.status = 404;
      return refuseUpgrade(
        socket,
        new DeepgramRefusal(
          404,
          "NOT_FOUND",
          `Unknown latency profile "${named}": the sandbox's profiles are ${LATENCY_PROFILES.join(", ")}.`,
        ),
      );
    }
    entry.profile = profileName;
    // Cartesia's text-to-speech WebSocket (cartesia.ts); every other path is Deepgram's to answer.
    if (split.path === CARTESIA_WEBSOCKET_PATH)
      return cartesia.upgrade(req, socket, head, PROFILES[profileName], (status) => {
        entry.status = status;
      });
    deepgram.upgrade(req, socket, head, split.path, PROFILES[profileName], (status, model) => {
      entry.status = status;
      if (model) entry.model = model;
    });
  });
  const port = await listenLocal(server, opts.port ?? 0, "provider sandbox");

  return {
    url: `http://127.0.0.1:${port}/v1`,
    apiKey,
    elevenLabs: { url: `http://127.0.0.1:${port}`, apiKey: elevenLabsApiKey },
    cartesia: { url: `http://127.0.0.1:${port}`, apiKey: cartesiaApiKey },
    deepgram: { url: `http://127.0.0.1:${port}`, apiKey: deepgramApiKey },
    requests,
    latency: defaultProfile,
    async stop() {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      for (const res of held) res.socket?.destroy();
      held.clear();
      cartesia.stop();
      deepgram.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await synth.close();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// CLI: `tsx dev/sandbox/openai.ts` (PORT, SANDBOX_API_KEY)

const isMain = (() => {
  try {
    return process.argv[1] !== undefined && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
})();

if (isMain) {
  const port = Number(process.env.PORT ?? DEFAULT_SANDBOX_PORT);
  const sandbox = await startProviderSandbox({
    port,
    apiKey: process.env.SANDBOX_API_KEY || undefined,
    elevenLabsApiKey: process.env.SANDBOX_ELEVENLABS_API_KEY || undefined,
    cartesiaApiKey: process.env.SANDBOX_CARTESIA_API_KEY || undefined,
    deepgramApiKey: process.env.SANDBOX_DEEPGRAM_API_KEY || undefined,
  });
  process.stdout.write(
    [
      "Provider sandbox (OpenAI-compatible stand-in, not a model) listening.",
      `  base URL: ${sandbox.url}`,
      `  API key:  ${sandbox.apiKey}`,
      "  For the openai SDK or curl:",
      `    export OPENAI_BASE_URL=${sandbox.url} OPENAI_API_KEY=${sandbox.apiKey}`,
      "  ElevenLabs' text-to-speech API (xi-api-key):",
      `    export ELEVENLABS_BASE_URL=${sandbox.elevenLabs.url} ELEVENLABS_API_KEY=${sandbox.elevenLabs.apiKey}`,
      "  Cartesia's text-to-speech API (X-API-Key; POST /tts/bytes and the WebSocket /tts/websocket):",
      `    export CARTESIA_BASE_URL=${sandbox.cartesia.url} CARTESIA_API_KEY=${sandbox.cartesia.apiKey}`,
      "  Deepgram's live transcription (WebSockets /v1/listen and /v2/listen, Authorization: Token …):",
      `    export DEEPGRAM_BASE_URL=${sandbox.deepgram.url} DEEPGRAM_API_KEY=${sandbox.deepgram.apiKey}`,
      `  Latency profile: ${sandbox.latency} (SANDBOX_LATENCY; per base URL: …/latency/<${LATENCY_PROFILES.join("|")}>/v1)`,
      "",
    ].join("\n"),
  );
  const shutdown = () => {
    void sandbox.stop().then(() => process.exit(0));
  };
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
}
