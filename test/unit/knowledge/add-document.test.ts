// Adding a document (src/knowledge/documents.ts addDocument) against an in-memory PGlite migrated
// with drizzle/ and a bucket of the test's: when the bucket refuses the original, the upload is a
// 503 and nothing is kept (the row rolled back); the same content of a `failed` document is stored
// again and made `processing` from nothing, once however many uploads race, and stays failed when
// the bucket refuses it; a `processing` or `ready` one is answered as it is.
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import { eq } from "drizzle-orm";
import { readMigrationFiles } from "drizzle-orm/migrator";
import { drizzle } from "drizzle-orm/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../../src/db/client";
import * as schema from "../../../src/db/schema";
import { knowledgeDocuments } from "../../../src/db/schema";
import type { AppConfig } from "../../../src/env";
import { addDocument, type NewDocument } from "../../../src/knowledge/documents";
import { ApiError } from "../../../src/lib/errors";

const ORG = "0193b6e2-0000-7000-8000-000000000001";
const BASE = "0193b6e2-0000-7000-8000-000000000002";

const config = {
  KNOWLEDGE_MAX_DOCUMENTS: 100,
  KNOWLEDGE_MAX_BYTES: 1_000_000,
  KNOWLEDGE_MAX_CHUNKS: 1_000,
  KNOWLEDGE_MAX_FILE_BYTES: 100_000,
} as AppConfig;

let pg: PGlite;
let db: Db;

/** A bucket that keeps what it is given, or refuses every put. */
function bucket(refuse = false) {
  const puts: string[] = [];
  const r2 = {
    put: async (key: string) => {
      if (refuse) throw new Error("R2 is down");
      puts.push(key);
      return null;
    },
  } as unknown as R2Bucket;
  return { puts, r2 };
}

const add = (r2: R2Bucket, text: string) =>
  addDocument({
    ctx: { db, organizationId: ORG, config, knowledgeBucket: () => r2 },
    input: {
      knowledgeBaseId: BASE,
      name: "Prices",
      source: "text",
      contentType: "text/markdown",
      bytes: new TextEncoder().encode(text),
    } as NewDocument,
  });

const rows = () => db.select().from(knowledgeDocuments).where(eq(knowledgeDocuments.knowledgeBaseId, BASE));

const failWith = (id: string, error: string) =>
  db.update(knowledgeDocuments).set({ status: "failed", error, chunkCount: 0, attempts: 2 }).where(eq(knowledgeDocuments.id, id));

beforeAll(async () => {
  pg = await PGlite.create("memory://");
  const migrations = readMigrationFiles({ migrationsFolder: fileURLToPath(new URL("../../../drizzle", import.meta.url)) });
  await pg.transaction(async (tx) => {
    for (const m of migrations) for (const statement of m.sql) if (statement.trim()) await tx.exec(statement);
  });
  await pg.exec(`INSERT INTO organizations (id, name) VALUES ('${ORG}', 'Acme')`);
  await pg.exec(`INSERT INTO knowledge_bases (id, organization_id, name) VALUES ('${BASE}', '${ORG}', 'Office')`);
  db = drizzle(pg, { schema }) as unknown as Db;
}, 120_000);

afterAll(async () => pg?.close());

describe("addDocument", () => {
  it("keeps nothing when the bucket refuses the original: a 503, the row rolled back", async () => {
    const err = await add(bucket(true).r2, "# Prices\n\nA cleaning costs 80 dollars.").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: "service_unavailable", status: 503 });
    expect((err as Error).message).toMatch(/could not be stored.*nothing was kept/);
    expect(await rows()).toEqual([]);

    const ok = bucket();
    const added = await add(ok.r2, "# Prices\n\nA cleaning costs 80 dollars.");
    expect(added).toMatchObject({ started: true, document: { status: "processing", attempts: 1 } });
    expect(ok.puts).toEqual([`knowledge/${ORG}/${BASE}/${added.document.id}`]);
    expect(added.document.objectKey).toBe(ok.puts[0]);
  });

  it("answers the same content as the document it is while it is processing or ready, storing nothing", async () => {
    const ok = bucket();
    const first = await add(ok.r2, "# Hours\n\nOpen Monday to Friday.");
    const again = await add(ok.r2, "# Hours\n\nOpen Monday to Friday.");
    expect(again).toEqual({ started: false, document: first.document });
    await db.update(knowledgeDocuments).set({ status: "ready" }).where(eq(knowledgeDocuments.id, first.document.id));
    expect(await add(ok.r2, "# Hours\n\nOpen Monday to Friday.")).toMatchObject({ started: false, document: { status: "ready" } });
    expect(ok.puts).toHaveLength(1);
  });

  it("retries a failed document: its original stored again, processing from its first attempt, its reason cleared", async () => {
    const ok = bucket();
    const { document } = await add(ok.r2, "# Parking\n\nFree behind the building.");
    await failWith(document.id, "The embedding provider failed. Upload the document again to retry.");

    // The bucket refuses: still failed, with its reason, and the upload is a 503.
    const refused = await add(bucket(true).r2, "# Parking\n\nFree behind the building.").catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: "service_unavailable" });
    expect((await rows()).find((r) => r.id === document.id)).toMatchObject({ status: "failed", attempts: 2 });

    const retried = await add(ok.r2, "# Parking\n\nFree behind the building.");
    expect(retried).toMatchObject({
      started: true,
      document: { id: document.id, status: "processing", error: null, chunkCount: 0, embeddedCount: 0, attempts: 1 },
    });
    expect(ok.puts).toEqual([document.objectKey, document.objectKey]);
  });

  it("starts a failed document once when it is uploaded several times at once", async () => {
    const ok = bucket();
    const { document } = await add(ok.r2, "# Whitening\n\n250 dollars.");
    await failWith(document.id, "Processing failed.");
    const all = await Promise.all([1, 2, 3].map(() => add(ok.r2, "# Whitening\n\n250 dollars.")));
    expect(all.filter((a) => a.started)).toHaveLength(1);
    expect(all.map((a) => [a.document.id, a.document.status])).toEqual(Array(3).fill([document.id, "processing"]));
  });
});
