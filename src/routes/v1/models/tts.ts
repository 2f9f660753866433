// POST /v1/tts (ours) and POST /v1/audio/speech (the `openai` SDK's): the whole audio buffer,
// metered by characters. The voice is resolved through the workspace's voices to a provider.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../../context";
import { codePoints } from "../../../lib/fields";
import { bearerSecurity, errorResponses, jsonBody } from "../../../lib/openapi";
import { metered } from "../../../metering/metered";
import { AUDIO_CONTENT_TYPES, type AudioFormat } from "../../../providers/types";
import { resolveSpeechVoice } from "../../../voices/service";
import { speechAliasSchema, ttsRequestSchema } from "./schema";

async function synthesize(c: Context<AppEnv>, input: { text: string; voice: string; model?: string; format: AudioFormat; speed?: number }) {
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
  return c.body(audio, 200, { "content-type": AUDIO_CONTENT_TYPES[input.format], "x-characters": String(characters) });
}

const audioResponse = {
  description: "The whole audio buffer (not a stream).",
  content: Object.fromEntries(Object.values(AUDIO_CONTENT_TYPES).map((t) => [t, { schema: z.string().openapi({ format: "binary" }) }])),
};

export function registerTts(app: OpenAPIHono<AppEnv>): void {
  app.openapi(
    createRoute({
      method: "post",
      path: "/tts",
      tags: ["Models"],
      operationId: "tts",
      summary: "Text to speech: the full audio buffer, metered by characters",
      security: bearerSecurity,
      request: jsonBody(ttsRequestSchema),
      responses: { 200: audioResponse, ...errorResponses(400, 402, 502, 503, 504) },
    }),
    async (c) => {
      const body = c.req.valid("json");
      return synthesize(c, { text: body.text, voice: body.voiceId, model: body.model, format: body.format, speed: body.speed });
    },
  );
  app.openapi(
    createRoute({
      method: "post",
      path: "/audio/speech",
      tags: ["Models"],
      operationId: "audioSpeech",
      summary: "Text to speech at the OpenAI SDK's path (voice: an id, or a name such as alloy; default format wav)",
      security: bearerSecurity,
      request: jsonBody(speechAliasSchema),
      responses: { 200: audioResponse, ...errorResponses(400, 402, 502, 503, 504) },
    }),
    async (c) => {
      const body = c.req.valid("json");
      return synthesize(c, { text: body.input, voice: body.voice, model: body.model, format: body.response_format, speed: body.speed });
    },
  );
}
