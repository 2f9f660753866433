import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, jsonBody } from "../../../lib/openapi";
import { ttsRequestSchema } from "./schema";
import { audioResponse, synthesize } from "./shared";

export const ttsRoute = createRoute({
  method: "post",
  path: "/tts",
  tags: ["Models"],
  operationId: "tts",
  summary: "Text to speech: the full audio buffer, metered by characters",
  security: bearerSecurity,
  request: jsonBody(ttsRequestSchema),
  responses: { 200: audioResponse, ...errorResponses(400, 402, 502, 503, 504) },
});

export const registerTts = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(ttsRoute, async (c) => {
    const body = c.req.valid("json");
    return synthesize(c, { text: body.text, voice: body.voiceId, model: body.model, format: body.format, speed: body.speed });
  });
