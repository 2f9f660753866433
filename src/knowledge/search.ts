// Finding passages (docs/knowledge.md, "Retrieval"): the question is embedded (metered like any
// embedding), then the nearest passages of ready documents in the knowledge bases named are read
// with pgvector's cosine distance, through the HNSW index where the server has pgvector (exact
// otherwise: migration 0022). One statement; tenancy by the organization on every row read.
import type { Db } from "../db/client";
import { EMBEDDING_DIMENSIONS } from "../db/schema";
import { isUuid } from "../lib/ids";
import { meteredEmbeddings } from "../metering/embed";
import type { Payer } from "../metering/metered";
import { toApiError } from "../providers/http";
import type { Ctx, Op, Providers } from "../services";
import { nearestRows } from "./queries/chunks";
import type { PassageView, QueryKnowledgeInput } from "./schema";
import { requireKnowledgeBase } from "./service";

export interface Passage extends PassageView {}

/** The nearest passages to `vector` in the knowledge bases named, nearest first, within `maxDistance`. */
export async function nearestPassages(
  db: Db,
  input: { organizationId: string; knowledgeBaseIds: string[]; vector: number[]; topK: number; maxDistance?: number | null },
): Promise<Passage[]> {
  const knowledgeBaseIds = input.knowledgeBaseIds.filter(isUuid);
  if (knowledgeBaseIds.length === 0) return [];
  const rows = await nearestRows(db, { ...input, knowledgeBaseIds });
  return rows
    .map((r) => {
      const distance = Number(r.distance);
      return {
        chunkId: r.id,
        documentId: r.document_id,
        documentName: r.document_name,
        knowledgeBaseId: r.knowledge_base_id,
        heading: r.heading,
        content: r.content,
        position: Number(r.position),
        distance: Math.round(distance * 1e4) / 1e4,
        score: Math.round((1 - distance) * 1e4) / 1e4,
      };
    })
    .filter((p) => input.maxDistance == null || p.distance <= input.maxDistance);
}

/** Embeds a question for search, metered to `payer`. */
export async function embedQuestion(
  ctx: Ctx<"db" | "config" | "waitUntil"> & { providers: Pick<Providers, "embeddings"> },
  payer: Payer,
  question: string,
  signal?: AbortSignal,
): Promise<{ vector: number[]; tokens: number }> {
  try {
    const { vectors, tokens } = await meteredEmbeddings(
      ctx.db,
      payer,
      ctx.providers.embeddings(),
      { model: ctx.config.EMBEDDING_MODEL, input: [question], dimensions: EMBEDDING_DIMENSIONS },
      ctx.waitUntil,
      signal,
    );
    return { vector: vectors[0] as number[], tokens };
  } catch (err) {
    throw toApiError(err);
  }
}

/** POST /v1/knowledge-bases/:id/query: the passages a question finds in one knowledge base. */
export async function queryKnowledgeBase({
  ctx,
  input,
}: Op<
  { id: string; apiKeyId: string | null } & QueryKnowledgeInput,
  "db" | "organizationId" | "config" | "providers" | "waitUntil"
>): Promise<{ data: Passage[]; usage: { tokens: number } }> {
  const base = await requireKnowledgeBase({ ctx, input: { id: input.id } });
  const payer: Payer = {
    organizationId: ctx.organizationId,
    apiKeyId: input.apiKeyId,
    method: "POST",
    endpoint: `/v1/knowledge-bases/${base.id}/query`,
  };
  const { vector, tokens } = await embedQuestion(ctx, payer, input.query);
  const data = await nearestPassages(ctx.db, {
    organizationId: ctx.organizationId,
    knowledgeBaseIds: [base.id],
    vector,
    topK: input.topK,
    maxDistance: input.maxDistance,
  });
  return { data, usage: { tokens } };
}
