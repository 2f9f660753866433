// Where the voices row (drizzle) and the API shapes (zod) meet; nowhere else.
import type { Voice, voices } from "../db/schema";
import { type CreateVoiceInput, type UpdateVoiceInput, VOICE_GENDERS, type VoiceGender, type VoiceView } from "./schema";

type NewVoiceRow = typeof voices.$inferInsert;

const isGender = (g: string | null): g is VoiceGender => (VOICE_GENDERS as readonly (string | null)[]).includes(g);

/** `synthesizable`: the providers this deployment can speak now (providers/registry.ts). */
export const toVoice = (row: Voice, synthesizable: readonly string[]): VoiceView => ({
  id: row.id,
  type: row.organizationId === null ? "system" : "owned",
  name: row.name,
  provider: row.provider,
  providerVoiceId: row.providerVoiceId,
  language: row.language,
  gender: isGender(row.gender) ? row.gender : null,
  previewUrl: row.previewUrl,
  description: row.description,
  available: synthesizable.includes(row.provider),
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

export const toNewVoiceRow = (organizationId: string, input: CreateVoiceInput): NewVoiceRow => ({
  organizationId,
  name: input.name,
  provider: input.provider,
  providerVoiceId: input.providerVoiceId,
  language: input.language,
  gender: input.gender,
  previewUrl: input.previewUrl,
  description: input.description,
});

/** Only the fields sent; `null` clears gender, previewUrl and description. */
export function toVoicePatch(input: UpdateVoiceInput): Partial<NewVoiceRow> {
  const patch: Partial<NewVoiceRow> = {};
  if (input.name !== undefined) patch.name = input.name;
  if (input.provider !== undefined) patch.provider = input.provider;
  if (input.providerVoiceId !== undefined) patch.providerVoiceId = input.providerVoiceId;
  if (input.language !== undefined) patch.language = input.language;
  if (input.gender !== undefined) patch.gender = input.gender;
  if (input.previewUrl !== undefined) patch.previewUrl = input.previewUrl;
  if (input.description !== undefined) patch.description = input.description;
  return patch;
}
