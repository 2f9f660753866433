// The statements of knowledge documents (src/knowledge/documents.ts holds their rules): each scoped
// by the organization where a request reads, by the document where the background work does.
import { and, asc, desc, eq, lt, type SQL, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import type { PageQuery } from "../../db/pagination";
import { type KnowledgeDocument, knowledgeDocuments } from "../../db/schema";
import { ownedBy } from "../../db/tenancy";

type NewDocumentRow = typeof knowledgeDocuments.$inferInsert;

/** The document of these bytes in the knowledge base, if any. */
export async function documentByHash(db: Db, knowledgeBaseId: string, contentHash: string): Promise<KnowledgeDocument | null> {
  const [row] = await db
    .select()
    .from(knowledgeDocuments)
    .where(and(eq(knowledgeDocuments.knowledgeBaseId, knowledgeBaseId), eq(knowledgeDocuments.contentHash, contentHash)))
    .limit(1);
  return row ?? null;
}

/** What the workspace's knowledge bases hold: documents, bytes, passages. */
export async function knowledgeUsageOf(db: Db, organizationId: string): Promise<{ documents: number; bytes: number; chunks: number }> {
  const [row] = await db
    .select({
      documents: sql<string>`count(*)`,
      bytes: sql<string>`coalesce(sum(${knowledgeDocuments.sizeBytes}), 0)`,
      chunks: sql<string>`coalesce(sum(${knowledgeDocuments.chunkCount}), 0)`,
    })
    .from(knowledgeDocuments)
    .where(ownedBy(knowledgeDocuments, organizationId));
  return { documents: Number(row?.documents ?? 0), bytes: Number(row?.bytes ?? 0), chunks: Number(row?.chunks ?? 0) };
}

export type KnowledgeUsage = Awaited<ReturnType<typeof knowledgeUsageOf>>;

/**
 * The new document's row, or null when the same bytes were added alongside (the unique hash). In
 * one transaction holding the workspace's knowledge lock (an advisory lock, released at its end):
 * `check` sees what the workspace holds and throws to refuse, so two uploads at once cannot both
 * pass a limit that only one of them fits.
 */
export async function insertDocumentWithin(
  db: Db,
  values: NewDocumentRow,
  check: (used: KnowledgeUsage) => void,
): Promise<KnowledgeDocument | null> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`knowledge:${values.organizationId}`}, 0))`);
    check(await knowledgeUsageOf(tx, values.organizationId));
    const [row] = await tx
      .insert(knowledgeDocuments)
      .values(values)
      .onConflictDoNothing({ target: [knowledgeDocuments.knowledgeBaseId, knowledgeDocuments.contentHash] })
      .returning();
    return row ?? null;
  });
}

/**
 * A failed document `processing` again, from nothing (no reason, no passages counted, its first
 * attempt), if it is still failed: of two uploads at once, one gets the row, the other null.
 */
export async function restartFailed(db: Db, id: string, objectKey: string): Promise<KnowledgeDocument | null> {
  const [row] = await db
    .update(knowledgeDocuments)
    .set({ status: "processing", error: null, chunkCount: 0, embeddedCount: 0, attempts: 1, objectKey, updatedAt: new Date() })
    .where(and(eq(knowledgeDocuments.id, id), eq(knowledgeDocuments.status, "failed")))
    .returning();
  return row ?? null;
}

/** Documents still processing that wrote nothing since `before` (their processing stalled), oldest first. */
export async function stalledDocuments(db: Db, before: Date, limit: number): Promise<KnowledgeDocument[]> {
  return db
    .select()
    .from(knowledgeDocuments)
    .where(and(eq(knowledgeDocuments.status, "processing"), lt(knowledgeDocuments.updatedAt, before)))
    .orderBy(asc(knowledgeDocuments.updatedAt))
    .limit(limit);
}

/** One attempt more for a stalled document, if it is still processing and stalled (no run moved it meanwhile). */
export async function restartStalled(db: Db, id: string, before: Date): Promise<KnowledgeDocument | null> {
  const [row] = await db
    .update(knowledgeDocuments)
    .set({ attempts: sql`${knowledgeDocuments.attempts} + 1`, updatedAt: new Date() })
    .where(and(eq(knowledgeDocuments.id, id), eq(knowledgeDocuments.status, "processing"), lt(knowledgeDocuments.updatedAt, before)))
    .returning();
  return row ?? null;
}

export async function setObjectKey(db: Db, id: string, objectKey: string): Promise<KnowledgeDocument | null> {
  const [row] = await db.update(knowledgeDocuments).set({ objectKey }).where(eq(knowledgeDocuments.id, id)).returning();
  return row ?? null;
}

/** Deletes a document (its passages go with it: the foreign key cascades). */
export async function deleteDocumentRow(db: Db, organizationId: string, id: string): Promise<void> {
  await db.delete(knowledgeDocuments).where(and(eq(knowledgeDocuments.id, id), ownedBy(knowledgeDocuments, organizationId)));
}

export async function documentRows(
  db: Db,
  knowledgeBaseId: string,
  page: PageQuery,
  status?: KnowledgeDocument["status"],
): Promise<KnowledgeDocument[]> {
  const conditions: SQL[] = [eq(knowledgeDocuments.knowledgeBaseId, knowledgeBaseId), ...page.where(knowledgeDocuments)];
  if (status) conditions.push(eq(knowledgeDocuments.status, status));
  return db
    .select()
    .from(knowledgeDocuments)
    .where(and(...conditions))
    .orderBy(desc(knowledgeDocuments.id))
    .limit(page.limit + 1);
}

export async function ownedDocument(
  db: Db,
  organizationId: string,
  knowledgeBaseId: string,
  id: string,
): Promise<KnowledgeDocument | null> {
  const [row] = await db
    .select()
    .from(knowledgeDocuments)
    .where(
      and(
        eq(knowledgeDocuments.id, id),
        eq(knowledgeDocuments.knowledgeBaseId, knowledgeBaseId),
        ownedBy(knowledgeDocuments, organizationId),
      ),
    )
    .limit(1);
  return row ?? null;
}
