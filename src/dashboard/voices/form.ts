// The voice form's fields ↔ the API's JSON shape (createVoiceSchema / updateVoiceSchema).
import type { Voice } from "../../voices/service";
import { type Form, one } from "../forms";

export const FIELDS = ["name", "provider", "providerVoiceId", "language", "gender", "previewUrl", "description"] as const;
/** What the form shows: a voice's values, or what the user typed. */
export type Values = Record<(typeof FIELDS)[number], string>;

export const valuesOf = (v: Voice | null): Values => ({
  name: v?.name ?? "",
  provider: v?.provider ?? "openai",
  providerVoiceId: v?.providerVoiceId ?? "",
  language: v?.language ?? "en-US",
  gender: v?.gender ?? "",
  previewUrl: v?.previewUrl ?? "",
  description: v?.description ?? "",
});
export const typed = (form: Form) => Object.fromEntries(FIELDS.map((k) => [k, one(form, k)])) as Values;
export const inputOf = (v: Values) => ({
  ...v,
  gender: v.gender === "" ? null : v.gender,
  previewUrl: v.previewUrl === "" ? null : v.previewUrl,
  description: v.description === "" ? null : v.description,
});
