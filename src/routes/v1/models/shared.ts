// What the Models API's operations share: one chat completion (POST /v1/llm/chat and the `openai`
// SDK's /v1/chat/completions), one transcription (POST /v1/stt and /v1/audio/transcriptions) and
// one synthesis (POST /v1/tts and /v1/audio/speech), each metered.
// - Chat: non-streaming, metered by tokens.
// - Speech to text: a multipart upload, metered by seconds of audio. WAV duration is read from its
//   header before the provider is called; for compressed containers the hold is a bound from the
//   file size and the charge is the provider's reported duration (the rule: src/metering/transcribe.ts).
// - Text to speech: the whole audio buffer, metered by characters. The voice is resolved through
//   the workspace's voices to a provider.
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../../context";
import { ApiError } from "../../../lib/errors";
import { codePoints } from "../../../lib/fields";
import { bearerSecurity, errorResponses, jsonBody, jsonResponse } from "../../../lib/openapi";
import { metered } from "../../../metering/metered";
import { meteredTranscription } from "../../../metering/transcribe";
import { toApiError } from "../../../providers/http";
import { AUDIO_CONTENT_TYPES, type AudioFormat, type ChatRequest, type Transcription } from "../../../providers/types";
import { resolveSpeechVoice } from "../../../voices/service";
import { chatCompletionSchema, chatRequestSchema, DEFAULT_MAX_TOKENS } from "./schema";

const utf8 = new TextEncoder();

/**
 * An upper bound of the tokens a request can consume: a token is at least one byte of UTF-8,
 * plus a few tokens of framing per message, plus the output limit.
 */
export function maxTokensOf(request: ChatRequest): number {
  const input = utf8.encode(JSON.stringify([request.messages, request.tools ?? null, request.response_format ?? null])).length;
  return input + 8 * request.messages.length + (request.max_tokens ?? DEFAULT_MAX_TOKENS);
}

/** A chat completion operation at `path`: the spec's and the `openai` SDK's take the same body. */
export const completionRoute = (path: string, operationId: string, summary: string) =>
  createRoute({
    method: "post",
    path,
    tags: ["Models"],
    operationId,
    summary,
    description: "Non-streaming. `stream: true` is refused with 400 stream_not_supported. Metered by tokens (priced per 1,000).",
    security: bearerSecurity,
    request: jsonBody(chatRequestSchema),
    responses: {
      200: jsonResponse(chatCompletionSchema, "The completion, with usage."),
      ...errorResponses(400, 402, 502, 503, 504),
    },
  });

export async function complete(c: Context<AppEnv>, body: z.infer<typeof chatRequestSchema>) {
  if (body.stream === true) {
    throw new ApiError(
      "stream_not_supported",
      "Streaming is not available: the API is request/response only. Send stream: false (or omit it).",
    );
  }
  const { config } = c.var;
  const { stream: _stream, stream_options: _options, maxTokens, max_completion_tokens, ...rest } = body;
  const request: ChatRequest = {
    ...rest,
    model: body.model ?? config.DEFAULT_CHAT_MODEL,
    max_tokens: body.max_tokens ?? max_completion_tokens ?? maxTokens ?? DEFAULT_MAX_TOKENS,
  };
  const provider = c.var.services.providers.chat();
  return metered(
    c,
    { modality: "chat", provider: provider.name, model: request.model, maxQuantity: maxTokensOf(request) },
    async (signal) => {
      const completion = await provider.complete(request, signal);
      const { prompt_tokens, completion_tokens } = completion.usage;
      return {
        result: completion,
        quantity: prompt_tokens + completion_tokens,
        promptTokens: prompt_tokens,
        completionTokens: completion_tokens,
      };
    },
  );
}

export async function transcribe(
  c: Context<AppEnv>,
  input: { file: File; model?: string; language?: string },
): Promise<Transcription & { durationSeconds: number }> {
  const payer = {
    organizationId: c.var.auth.organizationId,
    apiKeyId: c.var.auth.apiKeyId ?? null,
    method: c.req.method,
    endpoint: new URL(c.req.url).pathname,
  };
  try {
    return await meteredTranscription(
      c.var.db,
      payer,
      c.var.services.providers.stt(),
      {
        bytes: new Uint8Array(await input.file.arrayBuffer()),
        type: input.file.type,
        filename: input.file.name,
        model: input.model ?? c.var.config.DEFAULT_STT_MODEL,
        language: input.language,
      },
      c.var.defer,
    );
  } catch (err) {
    throw toApiError(err);
  }
}

/** A multipart upload's request body. */
export const multipart = <T extends z.ZodType>(schema: T) => ({ body: { required: true, content: { "multipart/form-data": { schema } } } });

export interface SpeechInput {
  text: string;
  /** A voice id, or (the OpenAI SDK's alias) a provider voice id or name. */
  voice: string;
  model?: string;
  format: AudioFormat;
  speed?: number;
}

/** The whole audio of `input.text`, metered by characters to the request's workspace. */
export async function synthesizeAudio(c: Context<AppEnv>, input: SpeechInput): Promise<{ audio: ArrayBuffer; characters: number }> {
  const voice = await resolveSpeechVoice({ ctx: c.var.ctx, input: { ref: input.voice } });
  const provider = c.var.services.providers.tts(voice.provider);
  const model = input.model ?? c.var.services.providers.ttsModel(voice.provider);
  const characters = codePoints(input.text);
  const audio = await metered(c, { modality: "tts", provider: provider.name, model, maxQuantity: characters }, async (signal) => ({
    result: await provider.synthesize(
      { text: input.text, voice: voice.providerVoiceId, model, format: input.format, speed: input.speed },
      signal,
    ),
    quantity: characters,
  }));
  return { audio, characters };
}

export async function synthesize(c: Context<AppEnv>, input: SpeechInput) {
  const { audio, characters } = await synthesizeAudio(c, input);
  return c.body(audio, 200, { "content-type": AUDIO_CONTENT_TYPES[input.format], "x-characters": String(characters) });
}

export const audioResponse = {
  description: "The whole audio buffer (not a stream).",
  content: Object.fromEntries(Object.values(AUDIO_CONTENT_TYPES).map((t) => [t, { schema: z.string().openapi({ format: "binary" }) }])),
};
