// Request and response shapes of the Voices resource.
import { z } from "@hono/zod-openapi";
import { languageTag, NON_EMPTY_PATCH, nonEmptyPatch, text } from "../lib/fields";
import { pageQuerySchema, pageSchema } from "../lib/pagination";

/** Providers a voice can come from; `sandbox` is the local stand-in the dev stack and tests use. */
export const VOICE_PROVIDERS = ["openai", "elevenlabs", "cartesia", "deepgram", "azure", "google", "sandbox"] as const;
export const VOICE_GENDERS = ["female", "male", "neutral"] as const;
export const VOICE_TYPES = ["system", "owned"] as const;

export type VoiceProvider = (typeof VOICE_PROVIDERS)[number];
export type VoiceGender = (typeof VOICE_GENDERS)[number];

const EXAMPLE_ID = "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77";

const fields = {
  name: () => text({ min: 1, max: 100, trim: true, singleLine: true }).openapi({ example: "Clara (support)" }),
  provider: () =>
    z.enum(VOICE_PROVIDERS).openapi({ description: `The TTS provider: ${VOICE_PROVIDERS.join(", ")}.`, example: "elevenlabs" }),
  providerVoiceId: () =>
    text({ min: 1, max: 200, trim: true, singleLine: true }).openapi({
      description: "The voice's id at the provider.",
      example: "21m00Tcm4TlvDq8ikWAM",
    }),
  gender: () => z.enum(VOICE_GENDERS).nullable().openapi({ example: "female" }),
  previewUrl: () =>
    z
      .url({ protocol: /^https$/, message: "must be an https URL" })
      .max(2048)
      .nullable()
      .openapi({ description: "An https URL of a short audio sample.", example: "https://cdn.example.com/voices/clara.mp3" }),
  description: () => text({ max: 500 }).nullable().openapi({ example: "Warm, unhurried; for support lines." }),
};

export const voiceSchema = z
  .object({
    id: z.uuid().openapi({ example: EXAMPLE_ID }),
    type: z.enum(VOICE_TYPES).openapi({ description: "`system`: shared by every workspace, read-only. `owned`: this workspace's." }),
    name: z.string().openapi({ example: "Clara (support)" }),
    provider: z.string().openapi({ description: `One of ${VOICE_PROVIDERS.join(", ")}.`, example: "elevenlabs" }),
    providerVoiceId: z.string().openapi({ example: "21m00Tcm4TlvDq8ikWAM" }),
    language: z.string().openapi({ example: "en-US" }),
    gender: z.enum(VOICE_GENDERS).nullable().openapi({ example: "female" }),
    previewUrl: z.string().nullable().openapi({ example: "https://cdn.example.com/voices/clara.mp3" }),
    description: z.string().nullable().openapi({ example: "Warm, unhurried; for support lines." }),
    available: z.boolean().openapi({
      description:
        "Whether this deployment can synthesize the voice now: its provider has an adapter and is configured here. " +
        "Speaking an unavailable voice answers `503 provider_not_configured` (`400` for providers without an adapter).",
      example: true,
    }),
    createdAt: z.iso.datetime().openapi({ example: "2025-01-15T09:30:00.000Z" }),
    updatedAt: z.iso.datetime().openapi({ example: "2025-01-15T09:30:00.000Z" }),
  })
  .openapi("Voice");

export type VoiceView = z.infer<typeof voiceSchema>;

export const createVoiceSchema = z
  .strictObject({
    name: fields.name(),
    provider: fields.provider(),
    providerVoiceId: fields.providerVoiceId(),
    language: languageTag(),
    gender: fields.gender().default(null),
    previewUrl: fields.previewUrl().default(null),
    description: fields.description().default(null),
  })
  .openapi("CreateVoice", {
    example: {
      name: "Clara (support)",
      provider: "elevenlabs",
      providerVoiceId: "21m00Tcm4TlvDq8ikWAM",
      language: "en-US",
      gender: "female",
      previewUrl: "https://cdn.example.com/voices/clara.mp3",
      description: "Warm, unhurried; for support lines.",
    },
  });

export type CreateVoiceInput = z.infer<typeof createVoiceSchema>;

export const updateVoiceSchema = z
  .strictObject({
    name: fields.name().optional(),
    provider: fields.provider().optional(),
    providerVoiceId: fields.providerVoiceId().optional(),
    language: languageTag().optional(),
    gender: fields.gender().optional(),
    previewUrl: fields.previewUrl().optional(),
    description: fields.description().optional(),
  })
  .refine(nonEmptyPatch, NON_EMPTY_PATCH)
  .openapi("UpdateVoice", { example: { name: "Clara (sales)", description: null } });

export type UpdateVoiceInput = z.infer<typeof updateVoiceSchema>;

export const listVoicesQuerySchema = z.strictObject({
  ...pageQuerySchema.shape,
  type: z.enum(VOICE_TYPES).optional().openapi({ description: "Only system voices, or only this workspace's own.", example: "owned" }),
  provider: z.enum(VOICE_PROVIDERS).optional().openapi({ example: "openai" }),
  available: z
    .enum(["true", "false"])
    .transform((v) => v === "true")
    .optional()
    .openapi({ description: "Only voices this deployment can (`true`) or cannot (`false`) synthesize now.", example: "true" }),
  language: languageTag().optional().openapi({
    description: "Voices for this language: `en` matches en, en-US, en-GB; `en-US` matches en-US and the generic en.",
    example: "en",
  }),
});

export const voicePageSchema = pageSchema(voiceSchema, "VoicePage");

/** What a voice says when it is played from the dashboard (GET /dashboard/voices/:id/sample). */
export const VOICE_SAMPLE_TEXT = "Hello! This is how I sound. How can I help you today?";
