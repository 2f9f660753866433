// Request and response shapes of knowledge bases, their documents and their queries (docs/knowledge.md).
import { z } from "@hono/zod-openapi";
import { NON_EMPTY_PATCH, nonEmptyPatch, text } from "../lib/fields";
import { pageQuerySchema, pageSchema } from "../lib/pagination";

const EXAMPLE_ID = "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77";

/** The most characters (code points) of a knowledge base's or a document's name. */
export const NAME_MAX = 200;

const name = () => text({ min: 1, max: NAME_MAX, trim: true, singleLine: true });

/** A document's name, as JSON takes it and as a file upload's `name` field is checked (form.ts). */
export const documentNameSchema = name();
const description = () => text({ max: 2000 }).nullable();

export const knowledgeBaseSchema = z
  .object({
    id: z.uuid().openapi({ example: EXAMPLE_ID }),
    name: z.string().openapi({ example: "Dental office: prices and policies" }),
    description: z.string().nullable().openapi({ example: "What the front desk answers every day." }),
    documentCount: z.number().int().openapi({ description: "Documents in any status.", example: 3 }),
    chunkCount: z.number().int().openapi({ description: "Passages of its ready documents.", example: 42 }),
    sizeBytes: z.number().int().openapi({ description: "The originals' bytes.", example: 183_204 }),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .openapi("KnowledgeBase");

export type KnowledgeBaseView = z.infer<typeof knowledgeBaseSchema>;

export const createKnowledgeBaseSchema = z
  .strictObject({ name: name(), description: description().default(null) })
  .openapi("CreateKnowledgeBase", { example: { name: "Dental office: prices and policies", description: null } });

export const updateKnowledgeBaseSchema = z
  .strictObject({ name: name().optional(), description: description().optional() })
  .refine(nonEmptyPatch, NON_EMPTY_PATCH)
  .openapi("UpdateKnowledgeBase", { example: { description: "Prices from January." } });

export type CreateKnowledgeBaseInput = z.infer<typeof createKnowledgeBaseSchema>;
export type UpdateKnowledgeBaseInput = z.infer<typeof updateKnowledgeBaseSchema>;

export const knowledgeBasePageSchema = pageSchema(knowledgeBaseSchema, "KnowledgeBasePage");

export const DOCUMENT_STATUSES = ["processing", "ready", "failed"] as const;
export const DOCUMENT_SOURCES = ["file", "text", "url"] as const;

export const documentSchema = z
  .object({
    id: z.uuid().openapi({ example: EXAMPLE_ID }),
    knowledgeBaseId: z.uuid(),
    name: z.string().openapi({ example: "price-list.pdf" }),
    source: z.enum(DOCUMENT_SOURCES).openapi({ description: "An uploaded file, text sent as JSON, or an imported URL." }),
    url: z.string().nullable().openapi({ description: "The imported URL (source `url`).", example: null }),
    contentType: z.string().openapi({ example: "application/pdf" }),
    sizeBytes: z.number().int().openapi({ example: 48_211 }),
    contentHash: z.string().openapi({ description: "SHA-256 of the original's bytes (hex).", example: "9f86d08…" }),
    status: z.enum(DOCUMENT_STATUSES).openapi({
      description:
        "`processing` until its passages are embedded, then `ready`; `failed` with `error` saying why (nothing of it is searchable).",
    }),
    error: z.string().nullable().openapi({ example: null }),
    chunkCount: z.number().int().openapi({ description: "Its passages (known once its text is extracted).", example: 12 }),
    progress: z.number().min(0).max(1).openapi({ description: "Passages embedded so far, 0 to 1.", example: 1 }),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .openapi("KnowledgeDocument");

export type DocumentView = z.infer<typeof documentSchema>;

export const documentPageSchema = pageSchema(documentSchema, "KnowledgeDocumentPage");

export const listDocumentsQuerySchema = z.strictObject({
  ...pageQuerySchema.shape,
  status: z.enum(DOCUMENT_STATUSES).optional().openapi({ description: "Only documents in this status." }),
});

/** The largest text sent as JSON (a file upload may be larger: KNOWLEDGE_MAX_FILE_BYTES). */
export const MAX_JSON_TEXT_CHARS = 200_000;

/** A document sent as JSON: text, or a URL to import. A file is sent as multipart (field `file`). */
export const addDocumentJsonSchema = z
  .discriminatedUnion("type", [
    z.strictObject({
      type: z.literal("text"),
      name: name().openapi({ example: "Opening hours" }),
      text: text({ min: 1, max: MAX_JSON_TEXT_CHARS }).openapi({
        description: "Plain text or Markdown (`#` headings start sections).",
        example: "# Opening hours\n\nMonday to Friday 8:00 to 18:00, Saturday 9:00 to 13:00.",
      }),
    }),
    z.strictObject({
      type: z.literal("url"),
      url: z
        .url({ protocol: /^https?$/, message: "must be an http or https URL" })
        .max(2048)
        .openapi({ example: "https://example.com/faq" }),
      name: name().optional().openapi({ description: "Defaults to the URL." }),
    }),
  ])
  .openapi("AddKnowledgeDocument", {
    example: { type: "text", name: "Opening hours", text: "# Opening hours\n\nMonday to Friday 8:00 to 18:00, Saturday 9:00 to 13:00." },
  });

export type AddDocumentJson = z.infer<typeof addDocumentJsonSchema>;

/**
 * The multipart form of a file upload. Documented here; read and checked by src/knowledge/form.ts
 * (the validator sees JSON requests too, so nothing here is required of them).
 */
export const addDocumentFormSchema = z
  .object({
    file: z.any().optional().openapi({ type: "string", format: "binary", description: "Text, Markdown, HTML or PDF (required)." }),
    name: z.any().optional().openapi({ type: "string", description: "Defaults to the file's name." }),
  })
  .openapi("AddKnowledgeDocumentFile");

export const queryKnowledgeSchema = z
  .strictObject({
    query: text({ min: 1, max: 2000, trim: true }).openapi({ example: "How much is a cleaning?" }),
    topK: z.number().int().min(1).max(20).default(5).openapi({ description: "How many passages, 1 to 20.", example: 5 }),
    maxDistance: z.number().min(0).max(2).optional().openapi({
      description: "Cosine distance (0 same direction, 2 opposite) beyond which a passage is left out. None by default.",
      example: 0.8,
    }),
  })
  .openapi("QueryKnowledgeBase");

export type QueryKnowledgeInput = z.infer<typeof queryKnowledgeSchema>;

export const passageSchema = z
  .object({
    chunkId: z.uuid(),
    documentId: z.uuid(),
    documentName: z.string().openapi({ example: "price-list.pdf" }),
    knowledgeBaseId: z.uuid(),
    heading: z.string().openapi({ description: "The headings it sits under, joined with ›.", example: "Prices › Cleaning" }),
    content: z.string(),
    position: z.number().int().openapi({ description: "Its place in the document, from 0." }),
    distance: z.number().openapi({ description: "Cosine distance to the query (lower is nearer).", example: 0.21 }),
    score: z.number().openapi({ description: "1 − distance: 1 is the same direction.", example: 0.79 }),
  })
  .openapi("KnowledgePassage");

export type PassageView = z.infer<typeof passageSchema>;

export const queryResultSchema = z
  .object({
    data: z.array(passageSchema),
    usage: z.object({ tokens: z.number().int().openapi({ description: "Tokens of the query's embedding (metered)." }) }),
  })
  .openapi("KnowledgeQueryResult");
