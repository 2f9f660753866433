// POST /v1/stt (ours) and POST /v1/audio/transcriptions (the `openai` SDK's): a multipart
// upload, metered by seconds of audio. WAV duration is read from its header before the
// provider is called; for compressed containers the hold is a bound from the file size and
// the charge is the provider's reported duration (the rule: src/metering/transcribe.ts).
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, jsonResponse } from "../../../lib/openapi";
import { meteredTranscription } from "../../../metering/transcribe";
import { toApiError } from "../../../providers/http";
import type { Transcription } from "../../../providers/types";
import { sttFormSchema, transcriptionAliasFormSchema, transcriptionSchema } from "./schema";

async function transcribe(
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

const multipart = <T extends z.ZodType>(schema: T) => ({ body: { required: true, content: { "multipart/form-data": { schema } } } });

export function registerStt(app: OpenAPIHono<AppEnv>): void {
  app.openapi(
    createRoute({
      method: "post",
      path: "/stt",
      tags: ["Models"],
      operationId: "stt",
      summary: "Speech to text from a multipart upload (field `file`), metered by seconds of audio",
      security: bearerSecurity,
      request: multipart(sttFormSchema),
      responses: { 200: jsonResponse(transcriptionSchema, "The transcription."), ...errorResponses(400, 402, 502, 503, 504) },
    }),
    async (c) => {
      const form = c.req.valid("form");
      const t = await transcribe(c, form);
      return c.json(
        { text: t.text, language: t.language, durationSeconds: t.durationSeconds, ...(t.segments ? { segments: t.segments } : {}) },
        200,
      );
    },
  );
  app.openapi(
    createRoute({
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
    }),
    async (c) => {
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
    },
  );
}
