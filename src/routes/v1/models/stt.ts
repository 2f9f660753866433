// POST /v1/stt (ours) and POST /v1/audio/transcriptions (the `openai` SDK's): a multipart
// upload, metered by seconds of audio. WAV duration is read from its header before the
// provider is called; for compressed containers the hold is a bound from the file size and
// the charge is the provider's reported duration.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../../context";
import { parseWav, sniffAudio } from "../../../lib/audio";
import { ApiError } from "../../../lib/errors";
import { bearerSecurity, errorResponses, jsonResponse } from "../../../lib/openapi";
import { metered } from "../../../metering/metered";
import type { Transcription } from "../../../providers/types";
import { STT_MAX_BYTES, STT_MAX_SECONDS, sttFormSchema, transcriptionAliasFormSchema, transcriptionSchema } from "./schema";

/** Compressed speech is at least ~8 kbit/s: bytes / 1000 bounds its seconds. */
const boundSecondsFromSize = (bytes: number) => Math.min(STT_MAX_SECONDS, Math.max(1, Math.ceil(bytes / 1000)));

async function transcribe(
  c: Context<AppEnv>,
  input: { file: File; model?: string; language?: string },
): Promise<Transcription & { durationSeconds: number }> {
  const { config } = c.var;
  if (input.file.size === 0) throw new ApiError("invalid_audio", "The uploaded file is empty.");
  if (input.file.size > STT_MAX_BYTES)
    throw new ApiError("payload_too_large", `Audio files are limited to ${STT_MAX_BYTES / 1024 / 1024} MiB.`);
  const bytes = new Uint8Array(await input.file.arrayBuffer());
  const container = sniffAudio(bytes);
  if (!container) throw new ApiError("invalid_audio", "The file is not audio we accept: send WAV, MP3, OGG/Opus, FLAC, WebM or MP4/M4A.");
  let knownSeconds: number | null = null;
  if (container === "wav") {
    const wav = parseWav(bytes);
    if (!wav) throw new ApiError("invalid_audio", "The WAV file is corrupt or not PCM: no readable fmt and data chunks.");
    knownSeconds = wav.durationSeconds;
    if (knownSeconds > STT_MAX_SECONDS) throw new ApiError("invalid_audio", `Audio is limited to ${STT_MAX_SECONDS / 60} minutes.`);
  }
  const provider = c.var.services.providers.stt();
  const model = input.model ?? config.DEFAULT_STT_MODEL;
  const maxMs = Math.ceil((knownSeconds ?? boundSecondsFromSize(bytes.length)) * 1000);
  return metered(c, { modality: "stt", provider: provider.name, model, maxQuantity: maxMs }, async () => {
    const result = await provider.transcribe({
      audio: new Blob([bytes], { type: input.file.type || "application/octet-stream" }),
      filename: input.file.name || `audio.${container}`,
      model,
      language: input.language,
    });
    const seconds = knownSeconds ?? result.durationSeconds ?? maxMs / 1000;
    const audioMs = Math.min(maxMs, Math.ceil(seconds * 1000));
    return { result: { ...result, durationSeconds: audioMs / 1000 }, quantity: audioMs };
  });
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
      responses: { 200: jsonResponse(transcriptionSchema, "The transcription."), ...errorResponses(400, 402, 413, 415, 502, 503, 504) },
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
        ...errorResponses(400, 402, 413, 415, 502, 503, 504),
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
