import { sql } from "drizzle-orm";
import { customType, foreignKey, index, integer, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { organizations } from "./organizations";
import { id, timestamps } from "./util";

/**
 * The width of every stored embedding: the provider is asked for vectors this long (OpenAI's
 * `dimensions`), and the column holds nothing else. Changing it means a migration and re-embedding.
 */
export const EMBEDDING_DIMENSIONS = 512;

/**
 * pgvector's `vector(n)`. Values go in and come out as pgvector's text form (`[0.1,0.2]`); on a
 * server without pgvector the migration (0022) makes the column `real[]` with the same functions
 * around it, so the queries are the same (docs/knowledge.md, "Where the vectors live").
 */
const vector = customType<{ data: number[]; driverData: string | number[]; config: { dimensions: number } }>({
  dataType: (config) => `vector(${config?.dimensions ?? EMBEDDING_DIMENSIONS})`,
  toDriver: (value) => `[${value.join(",")}]`,
  // pgvector's text form; the fallback's real[] comes parsed already from node-postgres (a Pool's session).
  fromDriver: (value) =>
    Array.isArray(value)
      ? value.map(Number)
      : value.startsWith("[") || value.startsWith("{")
        ? value.slice(1, -1).split(",").map(Number)
        : [],
});

/** A workspace's knowledge base: documents an agent answers from (docs/knowledge.md). */
export const knowledgeBases = pgTable(
  "knowledge_bases",
  {
    id: id(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    description: text("description"),
    ...timestamps,
  },
  // Unique, so a document's (organization, knowledge base) foreign key can name it; it also serves the lists.
  (t) => [uniqueIndex("knowledge_bases_org_id_key").on(t.organizationId, t.id)],
);

export type KnowledgeDocumentStatus = "processing" | "ready" | "failed";
export type KnowledgeSource = "file" | "text" | "url";

/** One document of a knowledge base: its original in R2, its text's chunks below. */
export const knowledgeDocuments = pgTable(
  "knowledge_documents",
  {
    id: id(),
    organizationId: uuid("organization_id").notNull(),
    knowledgeBaseId: uuid("knowledge_base_id").notNull(),
    name: text("name").notNull(),
    source: text("source").$type<KnowledgeSource>().notNull(),
    /** The imported URL (source `url`). */
    url: text("url"),
    contentType: text("content_type").notNull(),
    sizeBytes: integer("size_bytes").notNull(),
    /** SHA-256 of the original's bytes, hex: the same content twice in one knowledge base is one document. */
    contentHash: text("content_hash").notNull(),
    /** Where the original is kept in the KNOWLEDGE bucket. */
    objectKey: text("object_key"),
    status: text("status").$type<KnowledgeDocumentStatus>().notNull().default("processing"),
    /** Why processing failed, in words the user can act on. */
    error: text("error"),
    chunkCount: integer("chunk_count").notNull().default(0),
    /** Chunks embedded so far (progress while processing). */
    embeddedCount: integer("embedded_count").notNull().default(0),
    /**
     * Times its processing was started since it was last uploaded: 1 by the upload, one more each
     * time the cron sweep starts it again after it stalled (src/knowledge/stale.ts).
     */
    attempts: integer("attempts").notNull().default(1),
    ...timestamps,
  },
  (t) => [
    foreignKey({
      name: "knowledge_documents_base_fk",
      columns: [t.organizationId, t.knowledgeBaseId],
      foreignColumns: [knowledgeBases.organizationId, knowledgeBases.id],
    }).onDelete("cascade"),
    index("knowledge_documents_base_idx").on(t.knowledgeBaseId, t.id),
    uniqueIndex("knowledge_documents_hash_key").on(t.knowledgeBaseId, t.contentHash),
    /** The cron sweep's look for documents left processing (src/knowledge/stale.ts). */
    index("knowledge_documents_processing_idx").on(t.updatedAt).where(sql`${t.status} = 'processing'`),
  ],
);

/** A passage of a document and its embedding (null until embedded). */
export const knowledgeChunks = pgTable(
  "knowledge_chunks",
  {
    id: id(),
    organizationId: uuid("organization_id").notNull(),
    knowledgeBaseId: uuid("knowledge_base_id").notNull(),
    documentId: uuid("document_id")
      .notNull()
      .references(() => knowledgeDocuments.id, { onDelete: "cascade" }),
    /** Its place in the document, from 0. */
    position: integer("position").notNull(),
    /** The heading path it sits under ("Prices › Cleaning"), empty when none. */
    heading: text("heading").notNull().default(""),
    content: text("content").notNull(),
    tokens: integer("tokens").notNull(),
    embedding: vector("embedding", { dimensions: EMBEDDING_DIMENSIONS }),
  },
  (t) => [index("knowledge_chunks_document_idx").on(t.documentId, t.position), index("knowledge_chunks_base_idx").on(t.knowledgeBaseId)],
);

export type KnowledgeBase = typeof knowledgeBases.$inferSelect;
export type KnowledgeDocument = typeof knowledgeDocuments.$inferSelect;
export type KnowledgeChunk = typeof knowledgeChunks.$inferSelect;
