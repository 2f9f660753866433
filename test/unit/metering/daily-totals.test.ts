// The usage log's daily totals (usage_daily_stats) are written by the statements that write the log
// (src/metering/queries.ts), in the same statement: a settled hold, a failure that releases its hold,
// a request refused before any hold (402), and a hold the sweeper released before its settlement
// (logged at cost 0) each add exactly their row, so the totals always equal the log summed as GET
// /v1/usage summed it before the totals were kept; a statement that fails writes neither. Run on an
// in-memory PGlite migrated with drizzle/, through drizzle's PGlite driver.
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import { readMigrationFiles } from "drizzle-orm/migrator";
import { drizzle } from "drizzle-orm/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../../src/db/client";
import * as schema from "../../../src/db/schema";
import { closeHold, logUnheldRequest, type RequestLog, releaseHold, takeHold } from "../../../src/metering/queries";

const ORG = "0193b6e2-0000-7000-8000-000000000001";
const OTHER = "0193b6e2-0000-7000-8000-000000000002";

/** The log summed per workspace, UTC day, modality and unit, as GET /v1/usage's totals were. */
const SUMMED = `SELECT organization_id, to_char((created_at AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS day, modality, unit,
    count(*)::int AS requests, (count(*) FILTER (WHERE status < 400))::int AS succeeded,
    coalesce(sum(quantity), 0)::bigint::text AS quantity, coalesce(sum(cost_micro), 0)::bigint::text AS cost_micro
  FROM usage_events GROUP BY organization_id, (created_at AT TIME ZONE 'UTC')::date, modality, unit ORDER BY 1, 2, 3, 4`;
const ROLLED = `SELECT organization_id, to_char(day, 'YYYY-MM-DD') AS day, modality, unit, requests, succeeded,
    quantity::text AS quantity, cost_micro::text AS cost_micro FROM usage_daily_stats ORDER BY 1, 2, 3, 4`;

const chat: RequestLog = {
  apiKeyId: null,
  method: "POST",
  endpoint: "/v1/llm/chat",
  modality: "chat",
  provider: "sandbox",
  model: "sandbox-chat",
  latencyMs: 12.4,
};
const tts: RequestLog = { ...chat, endpoint: "/v1/tts", modality: "tts", model: "tts-1" };

let pg: PGlite;
let db: Db;
let holds = 0;
const hold = async (organizationId: string, amountMicro: number) => {
  const id = `0193b6e2-0000-7000-8000-${String(100 + holds++).padStart(12, "0")}`;
  const balanceMicro = await takeHold(db, id, organizationId, amountMicro, "test");
  if (balanceMicro === null) throw new Error("the hold was refused");
  return { id, organizationId, amountMicro, balanceMicro };
};
/** The error the test's trigger raised (drizzle wraps the driver's error as its cause). */
const refusedOnPurpose = (err: unknown) => /refused on purpose/.test(String((err as Error).cause ?? err));
const rows = async (query: string) => (await pg.query(query)).rows;
const count = async (table: string) => (await pg.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`)).rows[0]?.n;

beforeAll(async () => {
  pg = await PGlite.create("memory://");
  const migrations = readMigrationFiles({ migrationsFolder: fileURLToPath(new URL("../../../drizzle", import.meta.url)) });
  await pg.transaction(async (tx) => {
    for (const m of migrations) for (const statement of m.sql) if (statement.trim()) await tx.exec(statement);
  });
  await pg.exec(`INSERT INTO organizations (id, name, credits_micro) VALUES ('${ORG}', 'Acme', 1000000), ('${OTHER}', 'Other', 1000000)`);
  db = drizzle(pg, { schema }) as unknown as Db;
}, 120_000);
afterAll(async () => {
  await pg?.close();
});

describe("the usage log's daily totals, kept by the statements that write the log", () => {
  it("adds each settled, failed, refused and swept use once, so the totals equal the log summed", async () => {
    // Two settled chats (the second adds to the first's row), one settled speech.
    expect(await closeHold(db, await hold(ORG, 5_000), 1_200, { ...chat, status: 200, quantity: 300 })).toBe(1_200);
    expect(await closeHold(db, await hold(ORG, 5_000), 800, { ...chat, status: 200, quantity: 200 })).toBe(800);
    expect(await closeHold(db, await hold(ORG, 9_000), 6_000, { ...tts, status: 200, quantity: 40 })).toBe(6_000);
    // A provider failure: the whole hold back, logged at cost 0.
    expect(await closeHold(db, await hold(ORG, 5_000), 0, { ...chat, status: 502, errorCode: "provider_error", quantity: 0 })).toBe(0);
    // Refused before any hold.
    await logUnheldRequest(db, ORG, { ...chat, status: 402, errorCode: "insufficient_credits" });
    // The sweeper released the hold before the settlement: the use is logged, and charges nothing.
    const swept = await hold(ORG, 5_000);
    await releaseHold(db, swept.id);
    expect(await closeHold(db, swept, 1_000, { ...chat, status: 200, quantity: 150 })).toBe(0);
    // Another workspace's use is its own.
    expect(await closeHold(db, await hold(OTHER, 5_000), 70, { ...chat, status: 200, quantity: 7 })).toBe(70);

    const rolled = await rows(ROLLED);
    expect(rolled).toEqual(await rows(SUMMED));
    // Every row of the day's (a run across midnight UTC would have two days: each sums its own uses).
    const byKind = new Map<string, number[]>();
    for (const r of rolled as Array<Record<string, string | number>>) {
      const key = `${r.organization_id === ORG ? "ours" : "theirs"} ${r.modality} ${r.unit}`;
      const sums = byKind.get(key) ?? [0, 0, 0, 0];
      byKind.set(
        key,
        [r.requests, r.succeeded, r.quantity, r.cost_micro].map((v, i) => (sums[i] ?? 0) + Number(v)),
      );
    }
    expect(Object.fromEntries(byKind)).toEqual({
      "ours chat tokens": [5, 3, 650, 2_000],
      "ours tts characters": [1, 1, 40, 6_000],
      "theirs chat tokens": [1, 1, 7, 70],
    });
  });

  it("writes neither the log row nor the totals when the statement fails, and the hold stays to be released", async () => {
    const [events, totals] = [await count("usage_events"), await rows(ROLLED)];
    await pg.exec(`
      CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused on purpose'; END $$;
      CREATE TRIGGER refuse BEFORE INSERT OR UPDATE ON usage_daily_stats FOR EACH ROW EXECUTE FUNCTION refuse();`);
    try {
      const held = await hold(ORG, 5_000);
      await expect(closeHold(db, held, 1_000, { ...chat, status: 200, quantity: 100 })).rejects.toSatisfy(refusedOnPurpose);
      await expect(logUnheldRequest(db, ORG, { ...chat, status: 402, errorCode: "insufficient_credits" })).rejects.toSatisfy(
        refusedOnPurpose,
      );
      expect(await count("usage_events")).toBe(events);
      expect(await rows(ROLLED)).toEqual(totals);
      expect(await rows(`SELECT id FROM credit_holds WHERE id = '${held.id}'`)).toEqual([{ id: held.id }]);
    } finally {
      await pg.exec("DROP TRIGGER refuse ON usage_daily_stats; DROP FUNCTION refuse();");
    }
  });
});
