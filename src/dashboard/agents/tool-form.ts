// The tool builder's form ↔ a function tool of the API's shape: the fields as posted (the parameter
// rows `param.<i>.<field>`, or the JSON Schema when "use the JSON" is checked) to the object the
// API's tool schema checks, and a saved tool back to the fields for editing.
import type { FunctionTool } from "../../db/schema";
import { type Form, num, one } from "../forms";
import type { FieldErrors } from "../ui";
import { emptyRow, isBlankRow, MAX_PARAMS, type ParamRow, rowsOfSchema, schemaOfRows } from "./tool-params";

/** The builder's fields, as typed. */
export interface ToolFormValues {
  /** The name of the tool being edited; "" when adding one. */
  original: string;
  name: string;
  description: string;
  url: string;
  timeout: string;
  requestStart: string;
  requestFailed: string;
  rows: ParamRow[];
  /** The JSON Schema text area (the advanced view; what is saved when `asJson`). */
  parametersJson: string;
  asJson: boolean;
}

export const EMPTY_TOOL: ToolFormValues = {
  original: "",
  name: "",
  description: "",
  url: "",
  timeout: "10",
  requestStart: "",
  requestFailed: "",
  rows: [],
  parametersJson: "",
  asJson: false,
};

/** A saved tool in the builder: its parameters as rows when the fields can say them, else as JSON (checked). */
export function toolFormOf(tool: FunctionTool): ToolFormValues {
  const rows = rowsOfSchema(tool.parameters);
  const empty = rows !== null && rows.length === 0;
  return {
    original: tool.name,
    name: tool.name,
    description: tool.description,
    url: tool.url,
    timeout: String(tool.timeoutSeconds),
    requestStart: tool.messages.requestStart ?? "",
    requestFailed: tool.messages.requestFailed ?? "",
    rows: rows ?? [],
    parametersJson: empty ? "" : JSON.stringify(tool.parameters, null, 2),
    asJson: rows === null,
  };
}

/** The form as posted (the rows that say something, in index order; a row is there when any of its fields was sent). */
export function typedToolForm(form: Form): ToolFormValues {
  const rows: ParamRow[] = [];
  for (let i = 0; i < MAX_PARAMS; i++) {
    const field = (name: string) => form[`param.${i}.${name}`];
    if (!["name", "type", "description", "choices", "required"].some((name) => field(name) !== undefined)) continue;
    const row = {
      name: one(form, `param.${i}.name`),
      type: one(form, `param.${i}.type`) || "string",
      description: one(form, `param.${i}.description`),
      required: one(form, `param.${i}.required`) === "on",
      choices: one(form, `param.${i}.choices`),
    };
    // A row left blank is no parameter (and is not shown again: the builder adds its own blank row).
    if (!isBlankRow(row)) rows.push(row);
  }
  return {
    original: one(form, "toolOriginal"),
    name: one(form, "toolName"),
    description: one(form, "toolDescription"),
    url: one(form, "toolUrl"),
    timeout: one(form, "toolTimeout"),
    requestStart: one(form, "toolRequestStart"),
    requestFailed: one(form, "toolRequestFailed"),
    rows,
    parametersJson: one(form, "toolParameters"),
    asJson: one(form, "toolParamsAsJson") === "1",
  };
}

/**
 * The typed fields as the API's function tool (then the API's schema decides). Problems of the
 * rows, or JSON that does not parse, go to `errors` (the rows' under `param.<i>.<field>` with the
 * rows as posted, so the numbers match the page).
 */
export function toolInputOf(values: ToolFormValues, form: Form, errors: FieldErrors): Record<string, unknown> {
  let parameters: unknown;
  if (values.asJson) {
    const raw = values.parametersJson.trim();
    if (raw !== "") {
      try {
        parameters = JSON.parse(raw);
      } catch {
        errors.toolParameters = "must be valid JSON";
      }
    }
  } else {
    const made = schemaOfRows(values.rows);
    Object.assign(errors, made.errors);
    parameters = made.schema;
  }
  const messages = { requestStart: values.requestStart.trim(), requestFailed: values.requestFailed.trim() };
  return {
    type: "function",
    name: values.name.trim(),
    description: values.description,
    url: values.url.trim(),
    timeoutSeconds: num(form, "toolTimeout"),
    ...(parameters === undefined ? {} : { parameters }),
    messages: Object.fromEntries(Object.entries(messages).filter(([, text]) => text !== "")),
  };
}

/** The rows the builder shows: those typed, then one blank row to add a parameter. */
export const shownRows = (rows: ParamRow[]): ParamRow[] => (rows.length >= MAX_PARAMS ? rows : [...rows, emptyRow()]);
