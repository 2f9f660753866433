// Knowledge bases: a workspace's sets of documents its agents answer from (docs/knowledge.md).
// Each operation takes one `{ ctx, input }` (src/services.ts). The one ownership rule: a workspace
// sees and changes only its own; another workspace's id answers like a missing one (404). The
// documents are src/knowledge/documents.ts, their processing ingest.ts, the search search.ts.
import { and, desc, eq, inArray, type SQL, sql } from "drizzle-orm";
import { pageQuery } from "../db/pagination";
import { agents, type KnowledgeBase, knowledgeBases, knowledgeDocuments } from "../db/schema";
import { ownedBy, ownedRow } from "../db/tenancy";
import { ApiError } from "../lib/errors";
import { isUuid } from "../lib/ids";
import { type Page, type PageParams, pageOf } from "../lib/pagination";
import type { Ctx, Op } from "../services";
import type { CreateKnowledgeBaseInput, KnowledgeBaseView, UpdateKnowledgeBaseInput } from "./schema";

export const knowledgeBaseNotFound = () => new ApiError("not_found", "No knowledge base with that id in this workspace.");

/** A knowledge base with what it holds. */
export interface KnowledgeBaseWithCounts extends KnowledgeBase {
  documentCount: number;
  chunkCount: number;
  sizeBytes: number;
}

export const toKnowledgeBaseView = (row: KnowledgeBaseWithCounts): KnowledgeBaseView => ({
  id: row.id,
  name: row.name,
  description: row.description,
  documentCount: row.documentCount,
  chunkCount: row.chunkCount,
  sizeBytes: row.sizeBytes,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

/** Documents, passages of ready documents and bytes of each knowledge base named, in one query. */
async function countsOf(
  { db }: Ctx<"db">,
  ids: string[],
): Promise<Map<string, { documentCount: number; chunkCount: number; sizeBytes: number }>> {
  const out = new Map<string, { documentCount: number; chunkCount: number; sizeBytes: number }>();
  if (ids.length === 0) return out;
  const rows = await db
    .select({
      id: knowledgeDocuments.knowledgeBaseId,
      documents: sql<string>`count(*)`,
      chunks: sql<string>`coalesce(sum(${knowledgeDocuments.chunkCount}) filter (where ${knowledgeDocuments.status} = 'ready'), 0)`,
      bytes: sql<string>`coalesce(sum(${knowledgeDocuments.sizeBytes}), 0)`,
    })
    .from(knowledgeDocuments)
    .where(inArray(knowledgeDocuments.knowledgeBaseId, ids))
    .groupBy(knowledgeDocuments.knowledgeBaseId);
  for (const r of rows) out.set(r.id, { documentCount: Number(r.documents), chunkCount: Number(r.chunks), sizeBytes: Number(r.bytes) });
  return out;
}

const withCounts = async (ctx: Ctx<"db">, rows: KnowledgeBase[]): Promise<KnowledgeBaseWithCounts[]> => {
  const counts = await countsOf(
    ctx,
    rows.map((r) => r.id),
  );
  return rows.map((r) => ({ ...r, ...(counts.get(r.id) ?? { documentCount: 0, chunkCount: 0, sizeBytes: 0 }) }));
};

/** The workspace's knowledge base, or null (an id that is not a UUID names none). */
export async function findKnowledgeBase({ ctx, input: { id } }: Op<{ id: string }>): Promise<KnowledgeBase | null> {
  if (!isUuid(id)) return null;
  const [row] = await ctx.db
    .select()
    .from(knowledgeBases)
    .where(ownedRow(knowledgeBases, ctx.organizationId, id))
    .limit(1);
  return row ?? null;
}

/** The workspace's knowledge base; 404 otherwise. */
export async function requireKnowledgeBase(args: Op<{ id: string }>): Promise<KnowledgeBase> {
  const row = await findKnowledgeBase(args);
  if (!row) throw knowledgeBaseNotFound();
  return row;
}

export async function getKnowledgeBase(args: Op<{ id: string }>): Promise<KnowledgeBaseWithCounts> {
  const [row] = await withCounts(args.ctx, [await requireKnowledgeBase(args)]);
  return row as KnowledgeBaseWithCounts;
}

/** A page of the workspace's knowledge bases, newest first. */
export async function listKnowledgeBases({ ctx, input }: Op<PageParams>): Promise<Page<KnowledgeBaseWithCounts>> {
  const page = pageQuery(input);
  const rows = await ctx.db
    .select()
    .from(knowledgeBases)
    .where(and(ownedBy(knowledgeBases, ctx.organizationId), ...page.where(knowledgeBases)))
    .orderBy(desc(knowledgeBases.id))
    .limit(page.limit + 1);
  const kept = pageOf(rows, page.limit, (r) => r);
  return { ...kept, data: await withCounts(ctx, kept.data) };
}

/** Every knowledge base of the workspace by name (the dashboard's pickers); at most `limit`. */
export async function listKnowledgeBasesByName({ ctx }: { ctx: Ctx<"db" | "organizationId"> }): Promise<KnowledgeBase[]> {
  return ctx.db.select().from(knowledgeBases).where(ownedBy(knowledgeBases, ctx.organizationId)).orderBy(knowledgeBases.name).limit(500);
}

export async function createKnowledgeBase({ ctx, input }: Op<CreateKnowledgeBaseInput>): Promise<KnowledgeBaseWithCounts> {
  const [row] = await ctx.db
    .insert(knowledgeBases)
    .values({ organizationId: ctx.organizationId, name: input.name, description: input.description })
    .returning();
  return { ...(row as KnowledgeBase), documentCount: 0, chunkCount: 0, sizeBytes: 0 };
}

export async function updateKnowledgeBase({ ctx, input: { id, ...patch } }: Op<{ id: string } & UpdateKnowledgeBaseInput>) {
  if (!isUuid(id)) throw knowledgeBaseNotFound();
  const [row] = await ctx.db
    .update(knowledgeBases)
    .set({ ...patch, updatedAt: new Date() })
    .where(ownedRow(knowledgeBases, ctx.organizationId, id))
    .returning();
  if (!row) throw knowledgeBaseNotFound();
  const [shown] = await withCounts(ctx, [row]);
  return shown as KnowledgeBaseWithCounts;
}

/**
 * Deletes the knowledge base, its documents and passages (the foreign keys cascade) and its
 * originals in the bucket (after the answer). Agents that named it stop naming it.
 */
export async function deleteKnowledgeBase({
  ctx,
  input: { id },
}: Op<{ id: string }, "db" | "organizationId" | "knowledgeBucket" | "waitUntil">): Promise<void> {
  if (!isUuid(id)) throw knowledgeBaseNotFound();
  const keys = await ctx.db
    .select({ key: knowledgeDocuments.objectKey })
    .from(knowledgeDocuments)
    .where(and(eq(knowledgeDocuments.knowledgeBaseId, id), ownedBy(knowledgeDocuments, ctx.organizationId)));
  const deleted = await ctx.db
    .delete(knowledgeBases)
    .where(ownedRow(knowledgeBases, ctx.organizationId, id))
    .returning({ id: knowledgeBases.id });
  if (deleted.length === 0) throw knowledgeBaseNotFound();
  // Agents that named it stop naming it (the rest of their plan stays).
  await ctx.db
    .update(agents)
    .set({
      knowledge: sql`jsonb_set(${agents.knowledge}, '{knowledgeBaseIds}', coalesce((select jsonb_agg(x) from jsonb_array_elements(${agents.knowledge}->'knowledgeBaseIds') x where x <> to_jsonb(${id}::text)), '[]'::jsonb))`,
    })
    .where(and(ownedBy(agents, ctx.organizationId), sql`${agents.knowledge}->'knowledgeBaseIds' @> ${JSON.stringify([id])}::jsonb`));
  const objectKeys = keys.flatMap((k) => (k.key ? [k.key] : []));
  if (objectKeys.length) ctx.waitUntil(deleteObjects(ctx.knowledgeBucket(), objectKeys));
}

/** R2 deletes at most 1,000 keys a call. */
export async function deleteObjects(bucket: R2Bucket, keys: string[]): Promise<void> {
  for (let at = 0; at < keys.length; at += 1000) await bucket.delete(keys.slice(at, at + 1000));
}

/** The ids among `ids` that are the workspace's knowledge bases (an agent's links are checked with it). */
export async function ownedKnowledgeBaseIds({ ctx, input: { ids } }: Op<{ ids: string[] }>): Promise<Set<string>> {
  const valid = ids.filter(isUuid);
  if (valid.length === 0) return new Set();
  const rows = await ctx.db
    .select({ id: knowledgeBases.id })
    .from(knowledgeBases)
    .where(and(ownedBy(knowledgeBases, ctx.organizationId), inArray(knowledgeBases.id, valid) as SQL));
  return new Set(rows.map((r) => r.id));
}
