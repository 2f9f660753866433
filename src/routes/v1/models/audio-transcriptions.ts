import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses } from "../../../lib/openapi";
import { transcriptionAliasFormSchema } from "./schema";
import { multipart, transcribe } from "./shared";

export const audioTranscriptionsRoute = createRoute({
  method: "post",
  path: "/audio/transcriptions",
  tags: ["Models"],
  operationId: "audioTranscriptions",
  summary: "Speech to text at the OpenAI SDK's path (response_format json, text or verbose_json)",
  security: bearerSecurity,
  request: multipart(transcriptionAliasFormSchema),
  responses: {
    200: {
      description: "OpenAI's transcription shapes.",
      content: { "application/json": { schema: z.object({ text: z.string() }).passthrough() }, "text/plain": { schema: z.string() } },
    },
    ...errorResponses(400, 402, 502, 503, 504),
  },
});

export const registerAudioTranscriptions = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(audioTranscriptionsRoute, async (c) => {
    const form = c.req.valid("form");
    const t = await transcribe(c, form);
    if (form.response_format === "text") return c.text(t.text, 200);
    if (form.response_format === "verbose_json") {
      return c.json(
        { task: "transcribe", language: t.language, duration: t.durationSeconds, text: t.text, segments: t.segments ?? [] },
        200,
      );
    }
    return c.json({ text: t.text }, 200);
  });
