// The widget form's fields ↔ the API's JSON shape (createWidgetSchema / updateWidgetSchema):
// one origin per line, the four colours as separate fields.
import { DEFAULT_COLORS } from "../../widgets/schema";
import type { Widget } from "../../widgets/service";
import { agentVersionOf, type Form, lines, one } from "../forms";
import type { FieldErrors } from "../ui";

const FIELDS = [
  "agentId",
  "agentVersion",
  "name",
  "mode",
  "allowedOrigins",
  "title",
  "greeting",
  "accent",
  "accentText",
  "background",
  "text",
  "position",
] as const;
/** What the form shows: a widget's values, or what the user typed. */
export type Values = Record<(typeof FIELDS)[number], string>;

export const valuesOf = (w: Widget | null, firstAgent = ""): Values => ({
  agentId: w?.agentId ?? firstAgent,
  agentVersion: w?.agentVersion?.toString() ?? "",
  name: w?.name ?? "",
  mode: w?.mode ?? "chat",
  allowedOrigins: (w?.allowedOrigins ?? []).join("\n"),
  title: w?.title ?? "",
  greeting: w?.greeting ?? "",
  accent: w?.colors.accent ?? DEFAULT_COLORS.accent,
  accentText: w?.colors.accentText ?? DEFAULT_COLORS.accentText,
  background: w?.colors.background ?? DEFAULT_COLORS.background,
  text: w?.colors.text ?? DEFAULT_COLORS.text,
  position: w?.position ?? "bottom-right",
});

export const typed = (form: Form) => Object.fromEntries(FIELDS.map((k) => [k, one(form, k)])) as Values;

export const inputOf = (form: Form) => ({
  agentId: one(form, "agentId"),
  agentVersion: agentVersionOf(form),
  name: one(form, "name"),
  mode: one(form, "mode"),
  allowedOrigins: lines(form, "allowedOrigins"),
  title: one(form, "title").trim() === "" ? null : one(form, "title"),
  greeting: one(form, "greeting").trim() === "" ? null : one(form, "greeting"),
  colors: {
    accent: one(form, "accent"),
    accentText: one(form, "accentText"),
    background: one(form, "background"),
    text: one(form, "text"),
  },
  position: one(form, "position"),
});

/** colors.accent → accent, allowedOrigins.2 → allowedOrigins: errors on the field that shows them. */
export const onFields = (errors: FieldErrors): FieldErrors => {
  const out: FieldErrors = {};
  for (const [path, message] of Object.entries(errors)) {
    const parts = path.split(".");
    const field = parts[0] === "colors" && parts[1] ? parts[1] : (parts[0] as string);
    out[field] ??= parts.length > 1 && parts[0] !== "colors" ? `line ${Number(parts[1]) + 1}: ${message}` : message;
  }
  return out;
};
