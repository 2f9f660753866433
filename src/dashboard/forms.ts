// From an HTML form to the API's zod schemas and back: forms post strings, the schemas want
// numbers, lists and objects. Each page converts its fields, then validates with the same
// schema the API uses; problems come back keyed by field name for inline errors.
import type { z } from "zod";
import { ApiError } from "../lib/errors";
import "../lib/zod-messages";
import type { FieldErrors } from "./ui";

export type Form = Record<string, string[]>;

export const one = (form: Form, name: string): string => form[name]?.[0] ?? "";
export const many = (form: Form, name: string): string[] => form[name] ?? [];
/** An optional string: "" means absent. */
export const opt = (form: Form, name: string): string | undefined => (one(form, name) === "" ? undefined : one(form, name));
/** A number field: "" is absent, anything else is passed as a number (NaN fails validation with a clear message). */
export const num = (form: Form, name: string): number | undefined => (one(form, name).trim() === "" ? undefined : Number(one(form, name)));
/** The "Agent version" field: "" is null (the live version), anything else a number (NaN fails validation with a clear message). */
export const agentVersionOf = (form: Form): number | null =>
  one(form, "agentVersion").trim() === "" ? null : Number(one(form, "agentVersion"));
/** One item per non-empty line. */
export const lines = (form: Form, name: string): string[] =>
  one(form, name)
    .split(/\r?\n/)
    .map((s) => s.trim())
    .filter(Boolean);

/** A JSON textarea: "" is `fallback`; invalid JSON is reported on the field. */
export function jsonField(form: Form, name: string, fallback: unknown, errors: FieldErrors): unknown {
  const raw = one(form, name).trim();
  if (raw === "") return fallback;
  try {
    return JSON.parse(raw);
  } catch {
    errors[name] = "must be valid JSON";
    return fallback;
  }
}

export type Validated<T> = { ok: true; data: T } | { ok: false; errors: FieldErrors };

/** Validates with the API's schema; issues become field errors (the first path segment names the field). */
export function validate<S extends z.ZodType>(schema: S, input: unknown, pre: FieldErrors = {}): Validated<z.infer<S>> {
  const result = schema.safeParse(input);
  const errors: FieldErrors = { ...pre };
  if (!result.success) {
    for (const issue of result.error.issues) {
      const key = issue.path.length > 0 ? issue.path.map(String).join(".") : "form";
      errors[key] ??= issue.message;
    }
  }
  if (!result.success || Object.keys(errors).length > 0) return { ok: false, errors };
  return { ok: true, data: result.data };
}

/** An ApiError from a service (409 conflict, 400 with issues) as field errors. */
export function apiErrorFields(err: unknown): FieldErrors {
  if (!(err instanceof ApiError)) throw err;
  if (err.issues?.length) return Object.fromEntries(err.issues.map((i) => [i.path || "form", i.message]));
  return { form: err.message };
}
