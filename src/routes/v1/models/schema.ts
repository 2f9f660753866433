// Models API request and response shapes. Chat mirrors OpenAI's chat completions so the
// official `openai` SDK works against us with only a baseURL change.
import { z } from "@hono/zod-openapi";
import { text } from "../../../lib/fields";

export const MAX_OUTPUT_TOKENS = 16_384;
/** Applied when a chat request names no limit, so the hold (an upper bound) stays meaningful. */
export const DEFAULT_MAX_TOKENS = 1_024;
export const TTS_MAX_CHARACTERS = 4_096;
export { STT_MAX_BYTES, STT_MAX_SECONDS } from "../../../metering/transcribe";

const tokens = z.number().int().min(1).max(MAX_OUTPUT_TOKENS);

const message = z.strictObject({
  role: z.enum(["system", "developer", "user", "assistant", "tool"]),
  content: z.union([z.string().max(200_000), z.array(z.object({ type: z.string() }).passthrough()).max(100), z.null()]),
  name: z.string().max(64).optional(),
  tool_calls: z.array(z.record(z.string(), z.unknown())).max(64).optional(),
  tool_call_id: z.string().max(200).optional(),
});

export const chatRequestSchema = z
  .strictObject({
    model: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .openapi({ description: "Defaults to the deployment's chat model.", example: "gpt-4o-mini" }),
    messages: z.array(message).min(1).max(500),
    temperature: z.number().min(0).max(2).optional(),
    top_p: z.number().min(0).max(1).optional(),
    max_tokens: tokens.optional(),
    max_completion_tokens: tokens.optional(),
    maxTokens: tokens.optional().openapi({ description: "Alias of max_tokens. Default 1,024, at most 16,384." }),
    n: z.literal(1).optional(),
    stop: z.union([z.string().max(200), z.array(z.string().max(200)).max(4)]).optional(),
    seed: z.number().int().optional(),
    presence_penalty: z.number().min(-2).max(2).optional(),
    frequency_penalty: z.number().min(-2).max(2).optional(),
    tools: z
      .array(
        z.strictObject({
          type: z.literal("function"),
          function: z.strictObject({
            name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
            description: z.string().max(1024).optional(),
            parameters: z.record(z.string(), z.unknown()).optional(),
            strict: z.boolean().optional(),
          }),
        }),
      )
      .max(128)
      .optional(),
    tool_choice: z
      .union([z.enum(["none", "auto", "required"]), z.object({ type: z.literal("function"), function: z.object({ name: z.string() }) })])
      .optional(),
    response_format: z
      .union([
        z.object({ type: z.literal("text") }),
        z.object({ type: z.literal("json_object") }),
        z.object({ type: z.literal("json_schema"), json_schema: z.record(z.string(), z.unknown()) }),
      ])
      .optional(),
    user: z.string().max(256).optional(),
    stream: z.boolean().optional().openapi({ description: "Must not be true: streaming is not available (400 stream_not_supported)." }),
    stream_options: z.record(z.string(), z.unknown()).optional(),
  })
  .openapi("ChatRequest", { example: { model: "gpt-4o-mini", messages: [{ role: "user", content: "Hello! What can you do?" }] } });

export const chatCompletionSchema = z
  .object({
    id: z.string(),
    object: z.literal("chat.completion"),
    created: z.number(),
    model: z.string(),
    choices: z.array(
      z.object({
        index: z.number(),
        message: z.object({
          role: z.literal("assistant"),
          content: z.string().nullable(),
          tool_calls: z.array(z.record(z.string(), z.unknown())).optional(),
        }),
        finish_reason: z.string().nullable(),
      }),
    ),
    usage: z.object({ prompt_tokens: z.number(), completion_tokens: z.number(), total_tokens: z.number() }),
  })
  .openapi("ChatCompletion");

export const ttsRequestSchema = z
  .strictObject({
    text: text({ min: 1, max: TTS_MAX_CHARACTERS }).openapi({ example: "Hello! How can I help you today?" }),
    voiceId: z.uuid().openapi({
      description: "A system voice or one the workspace owns (GET /v1/voices).",
      example: "00000000-0000-7000-8000-000000000001",
    }),
    model: z.string().min(1).max(200).optional(),
    format: z
      .enum(["wav", "pcm", "mp3"])
      .default("wav")
      .openapi({ description: "wav (default), pcm (16-bit LE mono), or mp3 where the provider gives it." }),
    speed: z.number().min(0.25).max(4).optional(),
  })
  .openapi("TtsRequest");

/** The SDK's /v1/audio/speech: `voice` is a voice id, or a voice name such as "alloy". */
export const speechAliasSchema = z.strictObject({
  model: z.string().min(1).max(200).openapi({ example: "tts-1" }),
  input: text({ min: 1, max: TTS_MAX_CHARACTERS }).openapi({ example: "Hello! How can I help you today?" }),
  voice: z.string().min(1).max(200).openapi({ description: "A voice id, or a voice's name such as alloy.", example: "alloy" }),
  response_format: z.enum(["wav", "pcm", "mp3"]).default("wav"),
  speed: z.number().min(0.25).max(4).optional(),
  instructions: z.string().max(4096).optional(),
});

const file = z.instanceof(File, { message: "file must be an uploaded audio file" }).openapi({ type: "string", format: "binary" });
const language = z.string().regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, "language must be an ISO 639 code such as en or pt-BR");

export const sttFormSchema = z
  .strictObject({ file, model: z.string().min(1).max(200).optional(), language: language.optional() })
  .openapi("SttRequest");

export const transcriptionAliasFormSchema = z.strictObject({
  file,
  model: z.string().min(1).max(200).openapi({ example: "whisper-1" }),
  language: language.optional(),
  prompt: z.string().max(4096).optional(),
  temperature: z.coerce.number().min(0).max(1).optional(),
  response_format: z.enum(["json", "text", "verbose_json"]).default("json"),
});

export const transcriptionSchema = z
  .object({
    text: z.string(),
    language: z.string().nullable(),
    durationSeconds: z.number().openapi({ description: "Seconds of audio, as metered." }),
    segments: z.array(z.object({ start: z.number(), end: z.number(), text: z.string() })).optional(),
  })
  .openapi("Transcription");
