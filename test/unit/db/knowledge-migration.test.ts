// Migration 0022 on a server with pgvector and on one without (docs/knowledge.md, "Where the
// vectors live"): the same statements (knowledge_embedding(text), the <=> operator) store and find
// the same passages in the same order with the same distances; only the first has the HNSW index.
// Applied to in-memory PGlite, with and without its pgvector extension, by drizzle's migration reader.
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { readMigrationFiles } from "drizzle-orm/migrator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandboxEmbedding } from "../../../dev/sandbox/embeddings";
import { EMBEDDING_DIMENSIONS } from "../../../src/db/schema";

const folder = fileURLToPath(new URL("../../../drizzle", import.meta.url));
const migrations = readMigrationFiles({ migrationsFolder: folder });

const ORG = "0193b6e2-0000-7000-8000-000000000001";
const BASE = "0193b6e2-0000-7000-8000-000000000002";
const DOC = "0193b6e2-0000-7000-8000-000000000003";

const PASSAGES = [
  "A cleaning costs 80 dollars and takes forty minutes.",
  "We are open Monday to Friday from 8 to 18 and Saturday mornings.",
  "Parking is free behind the building, entrance on Elm Street.",
  "A whitening treatment costs 250 dollars, in two visits.",
];

const literal = (v: number[]) => `[${v.join(",")}]`;

async function migrated(withVector: boolean): Promise<PGlite> {
  const db = await PGlite.create("memory://", withVector ? { extensions: { vector } } : {});
  await db.transaction(async (tx) => {
    for (const m of migrations) for (const statement of m.sql) if (statement.trim()) await tx.exec(statement);
  });
  await db.query("INSERT INTO organizations (id, name) VALUES ($1, 'Acme')", [ORG]);
  await db.query("INSERT INTO knowledge_bases (id, organization_id, name) VALUES ($1, $2, 'Office')", [BASE, ORG]);
  await db.query(
    `INSERT INTO knowledge_documents (id, organization_id, knowledge_base_id, name, source, content_type, size_bytes, content_hash, status)
     VALUES ($1, $2, $3, 'faq.md', 'text', 'text/markdown', 100, 'h', 'ready')`,
    [DOC, ORG, BASE],
  );
  for (const [i, text] of PASSAGES.entries()) {
    await db.query(
      `INSERT INTO knowledge_chunks (id, organization_id, knowledge_base_id, document_id, position, content, tokens, embedding)
       VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, 10, knowledge_embedding($6))`,
      [ORG, BASE, DOC, i, text, literal(sandboxEmbedding(text, EMBEDDING_DIMENSIONS))],
    );
  }
  return db;
}

const search = async (db: PGlite, question: string) =>
  (
    await db.query<{ content: string; distance: number }>(
      `SELECT content, embedding <=> knowledge_embedding($1) AS distance FROM knowledge_chunks
       WHERE organization_id = $2 ORDER BY embedding <=> knowledge_embedding($1) LIMIT 2`,
      [literal(sandboxEmbedding(question, EMBEDDING_DIMENSIONS)), ORG],
    )
  ).rows;

describe("migration 0022: knowledge bases with and without pgvector", () => {
  let withVector: PGlite;
  let without: PGlite;
  beforeAll(async () => {
    [withVector, without] = await Promise.all([migrated(true), migrated(false)]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([withVector?.close(), without?.close()]);
  });

  it("makes the embedding a vector(512) with an HNSW index where pgvector is, real[] without an index where it is not", async () => {
    const type = async (db: PGlite) =>
      (
        await db.query<{ t: string }>(
          "SELECT format_type(atttypid, atttypmod) AS t FROM pg_attribute WHERE attrelid = 'knowledge_chunks'::regclass AND attname = 'embedding'",
        )
      ).rows[0]?.t;
    expect(await type(withVector)).toBe("vector(512)");
    expect(await type(without)).toBe("real[]");
    const hnsw = async (db: PGlite) =>
      (await db.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_indexes WHERE indexname = 'knowledge_chunks_embedding_idx'"))
        .rows[0]?.n;
    expect(await hnsw(withVector)).toBe(1);
    expect(await hnsw(without)).toBe(0);
  });

  it("finds the same passages in the same order at the same distances on both", async () => {
    for (const question of ["How much does a cleaning cost?", "When are you open on Saturday?", "Where can I park?"]) {
      const a = await search(withVector, question);
      const b = await search(without, question);
      expect(a.map((r) => r.content)).toEqual(b.map((r) => r.content));
      for (const [i, row] of a.entries()) expect(row.distance).toBeCloseTo(b[i]?.distance as number, 5);
    }
    expect((await search(withVector, "How much does a cleaning cost?"))[0]?.content).toBe(PASSAGES[0]);
    expect((await search(without, "Where can I park?"))[0]?.content).toBe(PASSAGES[2]);
  });

  it("refuses an embedding of the wrong width where pgvector is", async () => {
    await expect(
      withVector.query(
        `INSERT INTO knowledge_chunks (id, organization_id, knowledge_base_id, document_id, position, content, tokens, embedding)
         VALUES (gen_random_uuid(), $1, $2, $3, 9, 'x', 1, knowledge_embedding('[1,2,3]'))`,
        [ORG, BASE, DOC],
      ),
    ).rejects.toThrow(/expected 512 dimensions/);
  });

  it("deletes a knowledge base's documents and passages with it", async () => {
    await without.query("DELETE FROM knowledge_bases WHERE id = $1", [BASE]);
    const left = await without.query<{ n: number }>(
      "SELECT (SELECT count(*) FROM knowledge_documents) + (SELECT count(*) FROM knowledge_chunks) AS n",
    );
    expect(Number(left.rows[0]?.n)).toBe(0);
  });
});
