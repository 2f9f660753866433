// The statements of knowledge documents (src/knowledge/documents.ts holds their rules): each scoped
// by the organization where a request reads, by the document where the background work does.
import { and, desc, eq, type SQL, sql } from "drizzle-orm";
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

/** The new document's row, or null when the same bytes were added alongside (the unique hash). */
export async function insertDocument(db: Db, values: NewDocumentRow): Promise<KnowledgeDocument | null> {
  const [row] = await db
    .insert(knowledgeDocuments)
    .values(values)
    .onConflictDoNothing({ target: [knowledgeDocuments.knowledgeBaseId, knowledgeDocuments.contentHash] })
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
