import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, jsonResponse } from "../../../lib/openapi";
import { sttFormSchema, transcriptionSchema } from "./schema";
import { multipart, transcribe } from "./shared";

export const sttRoute = createRoute({
  method: "post",
  path: "/stt",
  tags: ["Models"],
  operationId: "stt",
  summary: "Speech to text from a multipart upload (field `file`), metered by seconds of audio",
  security: bearerSecurity,
  request: multipart(sttFormSchema),
  responses: { 200: jsonResponse(transcriptionSchema, "The transcription."), ...errorResponses(400, 402, 502, 503, 504) },
});

export const registerStt = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(sttRoute, async (c) => {
    const form = c.req.valid("form");
    const t = await transcribe(c, form);
    return c.json(
      { text: t.text, language: t.language, durationSeconds: t.durationSeconds, ...(t.segments ? { segments: t.segments } : {}) },
      200,
    );
  });
