import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, jsonBody } from "../../../lib/openapi";
import { speechAliasSchema } from "./schema";
import { audioResponse, synthesize } from "./shared";

export const audioSpeechRoute = createRoute({
  method: "post",
  path: "/audio/speech",
  tags: ["Models"],
  operationId: "audioSpeech",
  summary: "Text to speech at the OpenAI SDK's path (voice: an id, or a name such as alloy; default format wav)",
  security: bearerSecurity,
  request: jsonBody(speechAliasSchema),
  responses: { 200: audioResponse, ...errorResponses(400, 402, 502, 503, 504) },
});

export const registerAudioSpeech = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(audioSpeechRoute, async (c) => {
    const body = c.req.valid("json");
    return synthesize(c, { text: body.input, voice: body.voice, model: body.model, format: body.response_format, speed: body.speed });
  });
