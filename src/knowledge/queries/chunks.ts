// The statements of a document's processing and of retrieval (src/knowledge/ingest.ts and
// search.ts hold their rules). Embeddings go in and out as pgvector's text form through
// knowledge_embedding(text) (migration 0022), so they run whether the column is vector or real[].
import { and, asc, eq, isNull, lt, ne, sql } from "drizzle-orm";
import { type Db, rowsOf } from "../../db/client";
import { type KnowledgeDocument, knowledgeChunks, knowledgeDocuments } from "../../db/schema";
import type { Chunk } from "../chunk";

/** Passages written in one statement. */
const INSERT_BATCH = 500;

/** pgvector's text form. */
export const vectorLiteral = (v: number[]) => `[${v.join(",")}]`;

export async function documentById(db: Db, id: string): Promise<KnowledgeDocument | null> {
  const [row] = await db.select().from(knowledgeDocuments).where(eq(knowledgeDocuments.id, id)).limit(1);
  return row ?? null;
}

/**
 * Marks a document still processing failed, then drops its passages (no search reads a document
 * that is not ready, so they are never found meanwhile). A document no longer processing keeps
 * what it has: a late failure (QStash's failure callback, a run that lost to another) does not
 * take a ready document's passages. With `stalledBefore`, only if it wrote nothing since. Whether it was marked.
 */
export async function markFailed(db: Db, id: string, reason: string, stalledBefore?: Date): Promise<boolean> {
  const marked = await db
    .update(knowledgeDocuments)
    .set({ status: "failed", error: reason, chunkCount: 0, embeddedCount: 0, updatedAt: new Date() })
    .where(
      and(
        eq(knowledgeDocuments.id, id),
        eq(knowledgeDocuments.status, "processing"),
        // The cron sweep's: only while it is still stalled (a run that moved it on meanwhile keeps it).
        stalledBefore ? lt(knowledgeDocuments.updatedAt, stalledBefore) : undefined,
      ),
    )
    .returning({ id: knowledgeDocuments.id });
  if (marked.length === 0) return false;
  await db.delete(knowledgeChunks).where(eq(knowledgeChunks.documentId, id));
  return true;
}

/** `ready`, if it is still processing (not deleted meanwhile); whether it was. */
export async function markReady(db: Db, id: string, total: number): Promise<boolean> {
  const done = await db
    .update(knowledgeDocuments)
    .set({ status: "ready", embeddedCount: total, error: null, updatedAt: new Date() })
    .where(and(eq(knowledgeDocuments.id, id), eq(knowledgeDocuments.status, "processing")))
    .returning({ id: knowledgeDocuments.id });
  return done.length > 0;
}

/** The passages the workspace's other documents hold. */
export async function passagesOfOthers(db: Db, organizationId: string, documentId: string): Promise<number> {
  const [row] = await db
    .select({ chunks: sql<string>`coalesce(sum(${knowledgeDocuments.chunkCount}), 0)` })
    .from(knowledgeDocuments)
    .where(and(eq(knowledgeDocuments.organizationId, organizationId), ne(knowledgeDocuments.id, documentId)));
  return Number(row?.chunks ?? 0);
}

/** The document's passages, afresh (a run that died midway left some), and their count on it. */
export async function replaceChunks(db: Db, doc: KnowledgeDocument, chunks: Chunk[]): Promise<void> {
  await db.delete(knowledgeChunks).where(eq(knowledgeChunks.documentId, doc.id));
  for (let at = 0; at < chunks.length; at += INSERT_BATCH) {
    await db.insert(knowledgeChunks).values(
      chunks.slice(at, at + INSERT_BATCH).map((c, i) => ({
        organizationId: doc.organizationId,
        knowledgeBaseId: doc.knowledgeBaseId,
        documentId: doc.id,
        position: at + i,
        heading: c.heading,
        content: c.content,
        tokens: c.tokens,
      })),
    );
  }
  await db
    .update(knowledgeDocuments)
    .set({ chunkCount: chunks.length, embeddedCount: 0, updatedAt: new Date() })
    .where(eq(knowledgeDocuments.id, doc.id));
}

/** The next passages without an embedding, in order. */
export function unembedded(db: Db, documentId: string, limit: number) {
  return db
    .select({ id: knowledgeChunks.id, heading: knowledgeChunks.heading, content: knowledgeChunks.content })
    .from(knowledgeChunks)
    .where(and(eq(knowledgeChunks.documentId, documentId), isNull(knowledgeChunks.embedding)))
    .orderBy(asc(knowledgeChunks.position))
    .limit(limit);
}

/** Stores a batch's embeddings, then moves the document's progress on (never past `total`). */
export async function saveEmbeddings(db: Db, documentId: string, ids: string[], vectors: number[][], total: number): Promise<void> {
  const values = sql.join(
    ids.map((id, i) => sql`(${id}::uuid, ${vectorLiteral(vectors[i] as number[])})`),
    sql`, `,
  );
  await db.execute(
    sql`update ${knowledgeChunks} as c set embedding = knowledge_embedding(v.e) from (values ${values}) as v(id, e) where c.id = v.id`,
  );
  await db
    .update(knowledgeDocuments)
    .set({ embeddedCount: sql`least(${total}, ${knowledgeDocuments.embeddedCount} + ${ids.length})`, updatedAt: new Date() })
    .where(eq(knowledgeDocuments.id, documentId));
}

export interface PassageRow {
  id: string;
  document_id: string;
  document_name: string;
  knowledge_base_id: string;
  heading: string;
  content: string;
  position: number;
  distance: number | string;
}

/**
 * The `topK` passages of ready documents in the knowledge bases named nearest to `vector`, nearest
 * first: the inner query is what the HNSW index serves (ORDER BY distance LIMIT k, filtered by the
 * organization and the knowledge bases), the outer one names their documents.
 */
export async function nearestRows(
  db: Db,
  input: { organizationId: string; knowledgeBaseIds: string[]; vector: number[]; topK: number },
): Promise<PassageRow[]> {
  const q = vectorLiteral(input.vector);
  const bases = sql.join(
    input.knowledgeBaseIds.map((id) => sql`${id}::uuid`),
    sql`, `,
  );
  const result = await db.execute(sql`
    select c.id, c.document_id, d.name as document_name, c.knowledge_base_id, c.heading, c.content, c.position, c.distance
    from (
      select id, document_id, knowledge_base_id, heading, content, position, embedding <=> knowledge_embedding(${q}) as distance
      from knowledge_chunks k
      where k.organization_id = ${input.organizationId}
        and k.knowledge_base_id in (${bases})
        and k.embedding is not null
        and exists (select 1 from knowledge_documents d where d.id = k.document_id and d.status = 'ready')
      order by embedding <=> knowledge_embedding(${q})
      limit ${input.topK}
    ) c
    join knowledge_documents d on d.id = c.document_id
    order by c.distance, c.id`);
  return rowsOf<PassageRow>(result);
}
