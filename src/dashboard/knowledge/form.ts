// The knowledge base page's forms: what each shows (values as typed, errors on its fields), and
// their fields ↔ the API's JSON shapes (createKnowledgeBaseSchema, updateKnowledgeBaseSchema,
// addDocumentJsonSchema, queryKnowledgeSchema). Field names are unique on the page (each form's
// labels point at their own fields), so a document's name is `textName` or `urlName` here.
import type { QueryKnowledgeInput } from "../../knowledge/schema";
import type { Passage } from "../../knowledge/search";
import { type Form, num, one } from "../forms";
import type { FieldErrors } from "../ui";

export interface FormState<V> {
  values: V;
  errors: FieldErrors;
}

export interface SettingsValues {
  name: string;
  description: string;
}
export interface TextValues {
  textName: string;
  text: string;
}
export interface UrlValues {
  url: string;
  urlName: string;
}
export interface QueryValues {
  query: string;
  topK: string;
}

/** What a test question found (the API's query answer). */
export interface Found {
  data: Passage[];
  usage: { tokens: number };
}

/** Every form of the page; one comes back with errors (or a question with what it found). */
export interface PageForms {
  settings: FormState<SettingsValues>;
  file: { errors: FieldErrors };
  text: FormState<TextValues>;
  url: FormState<UrlValues>;
  query: FormState<QueryValues> & { found?: Found };
}

export const emptyForms = (settings: SettingsValues): PageForms => ({
  settings: { values: settings, errors: {} },
  file: { errors: {} },
  text: { values: { textName: "", text: "" }, errors: {} },
  url: { values: { url: "", urlName: "" }, errors: {} },
  query: { values: { query: "", topK: "5" }, errors: {} },
});

/** A name and description as the create and rename forms post them ("" clears the description). */
export const baseInputOf = (form: Form) => ({
  name: one(form, "name"),
  description: one(form, "description").trim() === "" ? null : one(form, "description"),
});

export const settingsValuesOf = (form: Form): SettingsValues => ({ name: one(form, "name"), description: one(form, "description") });

export type DocumentKind = "file" | "text" | "url";

/** Which add form was sent: its hidden `type` (a multipart body without one is a file). */
export function documentKindOf(form: Form, multipart: boolean): DocumentKind | null {
  const type = one(form, "type") || (multipart ? "file" : "");
  return type === "file" || type === "text" || type === "url" ? type : null;
}

/** The text and URL forms → addDocumentJsonSchema's shape. */
export const documentJsonOf = (kind: "text" | "url", form: Form) =>
  kind === "text"
    ? { type: "text" as const, name: one(form, "textName"), text: one(form, "text") }
    : { type: "url" as const, url: one(form, "url").trim(), ...(one(form, "urlName").trim() ? { name: one(form, "urlName") } : {}) };

/** The schema's field → the form's field, per form; whatever concerns the document as a whole goes on its main field. */
const FIELDS: Record<DocumentKind, Record<string, string>> = {
  file: { file: "file", name: "file", form: "file" },
  text: { name: "textName", text: "text", type: "text", form: "text" },
  url: { url: "url", name: "urlName", type: "url", form: "url" },
};

export function onDocumentFields(kind: DocumentKind, errors: FieldErrors): FieldErrors {
  const out: FieldErrors = {};
  for (const [key, message] of Object.entries(errors)) {
    const field = FIELDS[kind][key.split(".")[0] as string] ?? FIELDS[kind].form;
    out[field as string] ??= message;
  }
  return out;
}

export const textValuesOf = (form: Form): TextValues => ({ textName: one(form, "textName"), text: one(form, "text") });
export const urlValuesOf = (form: Form): UrlValues => ({ url: one(form, "url"), urlName: one(form, "urlName") });

export const queryValuesOf = (form: Form): QueryValues => ({ query: one(form, "query"), topK: one(form, "topK") });
/** The question form → queryKnowledgeSchema's shape (an empty topK: the API's default). */
export const queryInputOf = (form: Form): Partial<Record<keyof QueryKnowledgeInput, unknown>> => ({
  query: one(form, "query"),
  topK: num(form, "topK"),
});
