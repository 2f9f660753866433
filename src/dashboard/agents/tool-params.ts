// The tool builder's parameter fields ↔ a tool's `parameters` JSON Schema. A row is one argument
// the model writes: its name, type (text, number, whole number, yes/no), description, whether it is
// required and, for text, the values it may take. The rows make an object schema; a schema the rows
// cannot say (nested objects, arrays, formats, bounds…) is edited as JSON instead. Pure code: the
// page's script (widget/src/agent-form.ts) runs the same functions as the server (tools.ts), so the
// advanced JSON view shows what the fields will save.

export const PARAM_TYPES = ["string", "number", "integer", "boolean"] as const;
export type ParamType = (typeof PARAM_TYPES)[number];

/** How the type reads on the form. */
export const PARAM_TYPE_LABELS: Record<ParamType, string> = {
  string: "Text",
  number: "Number",
  integer: "Whole number",
  boolean: "Yes / no",
};

/** The most parameter rows a tool builder takes (a tool with more is edited as JSON). */
export const MAX_PARAMS = 30;

/** One argument, as typed: `choices` is the allowed values of a text argument, comma-separated ("" for any). */
export interface ParamRow {
  name: string;
  type: string;
  description: string;
  required: boolean;
  choices: string;
}

export const emptyRow = (): ParamRow => ({ name: "", type: "string", description: "", required: false, choices: "" });

/** A property name the model writes: letters, digits and _ (as function-calling models expect). */
const PARAM_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/** The allowed values typed as "a, b, c": trimmed, empty ones dropped. */
export const choicesOf = (text: string): string[] =>
  text
    .split(",")
    .map((v) => v.trim())
    .filter((v) => v !== "");

/** A row left empty (the blank one the builder offers): not a parameter. */
export const isBlankRow = (row: ParamRow) => row.name.trim() === "" && row.description.trim() === "" && row.choices.trim() === "";

/**
 * The rows as a JSON Schema, or their problems keyed `param.<row>.<field>`. Blank rows are skipped;
 * no row at all is no schema (the tool takes no arguments).
 */
export function schemaOfRows(rows: ParamRow[]): { schema?: Record<string, unknown>; errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  const properties: Record<string, Record<string, unknown>> = {};
  const required: string[] = [];
  rows.forEach((row, i) => {
    if (isBlankRow(row)) return;
    const name = row.name.trim();
    const at = (field: string) => `param.${i}.${field}`;
    if (name === "") errors[at("name")] = "is required";
    else if (!PARAM_NAME.test(name)) errors[at("name")] = "must be 1 to 64 letters, digits or _, not starting with a digit";
    else if (Object.hasOwn(properties, name)) errors[at("name")] = `duplicates another parameter (${name})`;
    if (!(PARAM_TYPES as readonly string[]).includes(row.type)) errors[at("type")] = `must be one of: ${PARAM_TYPES.join(", ")}`;
    const choices = choicesOf(row.choices);
    if (choices.length > 0 && row.type !== "string") errors[at("choices")] = "only a text parameter takes allowed values";
    else if (new Set(choices).size !== choices.length) errors[at("choices")] = "must not repeat a value";
    if (errors[at("name")] || errors[at("type")] || errors[at("choices")]) return;
    const property: Record<string, unknown> = { type: row.type };
    if (row.description.trim()) property.description = row.description.trim();
    if (choices.length > 0) property.enum = choices;
    properties[name] = property;
    if (row.required) required.push(name);
  });
  if (Object.keys(errors).length > 0) return { errors };
  if (Object.keys(properties).length === 0) return { errors };
  return { schema: { type: "object", properties, ...(required.length > 0 ? { required } : {}) }, errors };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The rows a schema is made of, or null when the fields cannot say it (then it is edited as JSON).
 * An absent or empty object schema is no row.
 */
export function rowsOfSchema(schema: unknown): ParamRow[] | null {
  if (schema === undefined || schema === null) return [];
  if (!isObject(schema)) return null;
  if (Object.keys(schema).some((k) => !["type", "properties", "required"].includes(k))) return null;
  if (schema.type !== "object") return null;
  const properties = schema.properties ?? {};
  if (!isObject(properties)) return null;
  const required = schema.required ?? [];
  if (!Array.isArray(required) || !required.every((r) => typeof r === "string" && Object.hasOwn(properties, r))) return null;
  const rows: ParamRow[] = [];
  for (const [name, property] of Object.entries(properties)) {
    if (!PARAM_NAME.test(name) || !isObject(property)) return null;
    if (Object.keys(property).some((k) => !["type", "description", "enum"].includes(k))) return null;
    const { type, description, enum: choices } = property;
    if (typeof type !== "string" || !(PARAM_TYPES as readonly string[]).includes(type)) return null;
    if (description !== undefined && typeof description !== "string") return null;
    if (choices !== undefined) {
      // Allowed values go back into one comma-separated field: text values without commas only.
      if (type !== "string" || !Array.isArray(choices) || choices.length === 0) return null;
      if (!choices.every((c) => typeof c === "string" && c.trim() === c && c !== "" && !c.includes(","))) return null;
    }
    rows.push({
      name,
      type,
      description: description ?? "",
      required: (required as string[]).includes(name),
      choices: ((choices as string[] | undefined) ?? []).join(", "),
    });
  }
  return rows.length > MAX_PARAMS ? null : rows;
}
