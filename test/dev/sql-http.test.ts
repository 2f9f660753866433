// The local SQL-over-HTTP endpoint must speak the protocol the real Neon driver expects:
// `neon()` (and drizzle-orm/neon-http on top of it) with `neonConfig.fetchEndpoint` pointing
// at dev/sql-http.ts, in front of PGlite and, with DATABASE_URL, a real PostgreSQL.
import { randomBytes } from "node:crypto";
import { createServer } from "node:net";
import { type NeonQueryFunction, neon, neonConfig, types } from "@neondatabase/serverless";
import { count } from "drizzle-orm";
import { drizzle } from "drizzle-orm/neon-http";
import { integer, pgTable, text } from "drizzle-orm/pg-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type EmbeddedPostgres, startEmbeddedPostgres } from "../../dev/postgres";
import { type SqlHttp, startSqlHttp } from "../../dev/sql-http";

const backends: Array<[string, string | undefined]> = [["pglite", undefined]];
if (process.env.DATABASE_URL) backends.push(["postgresql", process.env.DATABASE_URL]);

// neonConfig.fetchEndpoint is global in the driver; each backend's connection string has its own
// host:port, so one function sends each to its own endpoint (as a Worker sets it once per isolate).
const endpoints = new Map<string, string>();
neonConfig.fetchEndpoint = (host, port) => {
  const url = endpoints.get(`${host}:${port}`);
  if (!url) throw new Error(`no endpoint for ${host}:${port}`);
  return url;
};

const suffix = () => randomBytes(5).toString("hex");

// drizzle-orm/neon-http's constructor replaces the driver's global parsers for dates, timestamps,
// intervals and numeric[] with raw strings (for every neon() query in the process). The type tests
// check the driver's own parsers, so they are put back after each test.
const pristine = [1082, 1114, 1184, 1186, 1182, 1115, 1185, 1187, 1231].map((oid) => [oid, types.getTypeParser(oid)] as const);
afterEach(() => {
  for (const [oid, parser] of pristine) types.setTypeParser(oid, parser);
});

describe.each(backends)("SQL-over-HTTP endpoint (%s)", (_name, databaseUrl) => {
  let pg: EmbeddedPostgres | undefined;
  let endpoint: SqlHttp;
  let connectionString: string;
  let password: string;
  let sql: NeonQueryFunction<false, false>;
  const tables: string[] = [];
  /** A fresh table name for this test, dropped after the suite. */
  const table = (prefix: string) => {
    const name = `sqlhttp_${prefix}_${suffix()}`;
    tables.push(name);
    return name;
  };
  const raw = (body: string, headers: Record<string, string> = {}, method = "POST") =>
    fetch(endpoint.url, {
      method,
      headers: { "Neon-Connection-String": connectionString, "Neon-Raw-Text-Output": "true", "Neon-Array-Mode": "true", ...headers },
      ...(method === "GET" ? {} : { body }),
    });

  beforeAll(async () => {
    let url: URL;
    if (databaseUrl) url = new URL(databaseUrl);
    else {
      pg = await startEmbeddedPostgres({});
      url = new URL(pg.url);
    }
    endpoint = await startSqlHttp({ host: url.hostname, port: Number(url.port || 5432) });
    // A recognisable password, to prove it never comes back (a trust-auth server ignores it).
    if (!url.password) url.password = `pw-${suffix()}`;
    password = url.password;
    connectionString = url.toString();
    endpoints.set(`${url.hostname}:${url.port || 5432}`, endpoint.url);
    sql = neon(connectionString);
  }, 60_000);

  afterAll(async () => {
    if (sql) for (const name of tables) await sql.query(`DROP TABLE IF EXISTS "${name}"`).catch(() => undefined);
    await endpoint?.stop();
    await pg?.stop();
  });

  it("round-trips types through the driver's own parsers", async () => {
    const t = table("types");
    await sql.query(`CREATE TABLE "${t}" (
      id serial PRIMARY KEY, ts timestamptz, d date, j json, jb jsonb, ia int[], ta text[],
      n numeric, big bigint, flag boolean, nothing text, bin bytea, words text)`);
    const ts = new Date("2024-02-29T23:59:58.123Z");
    const doc = { a: 1, b: [true, null, "x"], nested: { ü: "✓" } };
    const words = "héllo ✓ 你好 😀 \"quotes\" 'single' \\ back";
    const textArray = ["a", "b c", 'q"uote', "back\\slash", "NULL", "ü", "{braces}", ""];
    const bin = Buffer.from([0, 1, 2, 127, 128, 255]);
    const inserted = await sql.query(
      `INSERT INTO "${t}" (ts, d, j, jb, ia, ta, n, big, flag, nothing, bin, words)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING id`,
      [ts, "2024-02-29", doc, doc, [1, -2, 3], textArray, "12345678901234567890.123456789", "9007199254740993", false, null, bin, words],
    );
    expect(inserted).toEqual([{ id: 1 }]);
    const [row] = await sql.query(`SELECT * FROM "${t}"`);
    expect(row?.ts).toBeInstanceOf(Date);
    expect((row?.ts as Date).toISOString()).toBe(ts.toISOString());
    // the driver's pg-types parses a date as local midnight
    const d = row?.d as Date;
    expect([d.getFullYear(), d.getMonth() + 1, d.getDate()]).toEqual([2024, 2, 29]);
    expect(row?.j).toEqual(doc);
    expect(row?.jb).toEqual(doc);
    expect(row?.ia).toEqual([1, -2, 3]);
    expect(row?.ta).toEqual(textArray);
    expect(row?.n).toBe("12345678901234567890.123456789");
    expect(row?.big).toBe("9007199254740993");
    expect(row?.flag).toBe(false);
    expect(row?.nothing).toBeNull();
    expect(Buffer.isBuffer(row?.bin)).toBe(true);
    expect(Buffer.compare(row?.bin as Buffer, bin)).toBe(0);
    expect(row?.words).toBe(words);
    const [nulls] = await sql`SELECT NULL::int AS i, NULL::int[] AS a, NULL::jsonb AS j, ARRAY[1, NULL]::int[] AS holes, true AS yes`;
    expect(nulls).toEqual({ i: null, a: null, j: null, holes: [1, null], yes: true });
  });

  it("binds parameters (tagged template and sql.query), never interpolates them", async () => {
    expect(await sql`SELECT ${20}::int + ${22}::int AS sum, ${"it's"}::text AS s`).toEqual([{ sum: 42, s: "it's" }]);
    const evil = `'); DROP TABLE pg_class; --`;
    expect(await sql.query("SELECT $1::text AS v, $2::text AS missing", [evil, null])).toEqual([{ v: evil, missing: null }]);
  });

  it("answers fullResults and arrayMode like Neon", async () => {
    const t = table("full");
    await sql.query(`CREATE TABLE "${t}" (id int PRIMARY KEY, name text)`);
    const ins = await sql.query(`INSERT INTO "${t}" VALUES (1, 'a'), (2, 'b')`, [], { fullResults: true });
    expect(ins).toMatchObject({ command: "INSERT", rowCount: 2, rows: [], fields: [] });
    const full = await sql.query(`SELECT id, name FROM "${t}" ORDER BY id`, [], { fullResults: true });
    expect(full.command).toBe("SELECT");
    expect(full.rowCount).toBe(2);
    expect(full.rows).toEqual([
      { id: 1, name: "a" },
      { id: 2, name: "b" },
    ]);
    expect(full.fields.map((f) => [f.name, f.dataTypeID])).toEqual([
      ["id", 23],
      ["name", 25],
    ]);
    const arrays = await sql.query(`SELECT id, name FROM "${t}" ORDER BY id`, [], { arrayMode: true });
    expect(arrays).toEqual([
      [1, "a"],
      [2, "b"],
    ]);
    const upd = await sql.query(`UPDATE "${t}" SET name = 'c'`, [], { fullResults: true });
    expect(upd).toMatchObject({ command: "UPDATE", rowCount: 2 });
    const ddl = await sql.query(`CREATE INDEX ON "${t}" (name)`, [], { fullResults: true });
    expect(ddl).toMatchObject({ command: "CREATE", rowCount: null });
  });

  it("runs a transaction and a drizzle batch in one transaction that commits", async () => {
    const t = table("tx");
    await sql.query(`CREATE TABLE "${t}" (id int PRIMARY KEY, note text NOT NULL)`);
    const [a, b, c] = await sql.transaction(
      (tx) => [
        tx`INSERT INTO ${sql.unsafe(`"${t}"`)} VALUES (1, 'one') RETURNING id`,
        tx`INSERT INTO ${sql.unsafe(`"${t}"`)} VALUES (2, 'two') RETURNING id`,
        tx`SELECT count(*)::int AS n FROM ${sql.unsafe(`"${t}"`)}`,
      ],
      { isolationLevel: "Serializable" },
    );
    expect([a, b, c]).toEqual([[{ id: 1 }], [{ id: 2 }], [{ n: 2 }]]);

    const notes = pgTable(t, { id: integer("id").primaryKey(), note: text("note").notNull() });
    const db = drizzle({ client: sql });
    const [inserted, total] = await db.batch([
      db.insert(notes).values({ id: 3, note: "three" }).returning({ id: notes.id }),
      db.select({ n: count() }).from(notes),
    ]);
    expect(inserted).toEqual([{ id: 3 }]);
    expect(total).toEqual([{ n: 3 }]);
    expect(await db.select().from(notes).orderBy(notes.id)).toEqual([
      { id: 1, note: "one" },
      { id: 2, note: "two" },
      { id: 3, note: "three" },
    ]);
  });

  it("rolls back a batch that fails half-way: nothing from it is visible", async () => {
    const t = table("rollback");
    await sql.query(`CREATE TABLE "${t}" (id int PRIMARY KEY, note text NOT NULL)`);
    await sql.query(`INSERT INTO "${t}" VALUES (1, 'before')`);
    const failed = sql.transaction([
      sql.query(`INSERT INTO "${t}" VALUES (2, 'first')`),
      sql.query(`UPDATE "${t}" SET note = 'changed' WHERE id = 1`),
      sql.query(`INSERT INTO "${t}" VALUES (1, 'duplicate')`),
      sql.query(`INSERT INTO "${t}" VALUES (3, 'never')`),
    ]);
    await expect(failed).rejects.toMatchObject({ name: "NeonDbError", code: "23505" });
    expect(await sql.query(`SELECT id, note FROM "${t}" ORDER BY id`)).toEqual([{ id: 1, note: "before" }]);

    const notes = pgTable(t, { id: integer("id").primaryKey(), note: text("note").notNull() });
    const db = drizzle({ client: sql });
    const batchError = (await db
      .batch([db.insert(notes).values({ id: 4, note: "four" }), db.insert(notes).values({ id: 1, note: "again" })])
      .catch((e: unknown) => e)) as { code?: string; cause?: { code?: string } };
    expect(batchError.code ?? batchError.cause?.code).toBe("23505"); // drizzle's batch passes the NeonDbError through
    expect(await db.select().from(notes)).toEqual([{ id: 1, note: "before" }]);
    // the endpoint's connections are usable after the rollback
    expect(await sql`SELECT 1 AS one`).toEqual([{ one: 1 }]);
  });

  it("passes the batch's transaction modes to Postgres and echoes them", async () => {
    const t = table("ro");
    await sql.query(`CREATE TABLE "${t}" (id int)`);
    const readOnly = sql.transaction([sql.query(`INSERT INTO "${t}" VALUES (1)`)], { readOnly: true });
    await expect(readOnly).rejects.toMatchObject({ code: "25006" }); // read_only_sql_transaction
    const [[mode]] = (await sql.transaction([sql`SELECT current_setting('transaction_isolation') AS level`], {
      isolationLevel: "RepeatableRead",
      readOnly: true,
      deferrable: true,
    })) as [[{ level: string }]];
    expect(mode?.level).toBe("repeatable read");
    const res = await raw(JSON.stringify({ queries: [{ query: "SELECT 1", params: [] }] }), {
      "Neon-Batch-Isolation-Level": "Serializable",
      "Neon-Batch-Read-Only": "true",
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("neon-batch-isolation-level")).toBe("Serializable");
    expect(res.headers.get("neon-batch-read-only")).toBe("true");
    const bad = await raw(JSON.stringify({ queries: [] }), { "Neon-Batch-Isolation-Level": "Chaotic" });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ message: "invalid isolation level" });
  });

  it("answers Postgres errors with their SQLSTATE and fields, and no connection string, password or parameters", async () => {
    const t = table("errors");
    await sql.query(`CREATE TABLE "${t}" (id int PRIMARY KEY, secret text)`);
    const secret = `param-${suffix()}`;
    await sql.query(`INSERT INTO "${t}" VALUES (1, $1)`, [secret]);
    const dup = await sql.query(`INSERT INTO "${t}" VALUES (1, $1)`, [secret]).catch((e: unknown) => e);
    expect(dup).toMatchObject({ name: "NeonDbError", code: "23505", severity: "ERROR", constraint: `${t}_pkey`, table: t });
    expect((dup as Error).message).toMatch(/duplicate key/);
    const syntax = await sql.query("SELEC $1::text", [secret]).catch((e: unknown) => e);
    expect(syntax).toMatchObject({ name: "NeonDbError", code: "42601", position: "1" });
    expect((syntax as Error).message).toMatch(/syntax error/);
    // one statement per query, as on Neon (the extended protocol)
    await expect(sql.query("SELECT 1; SELECT 2")).rejects.toMatchObject({ code: "42601" });

    // (Postgres itself quotes a value in some messages, e.g. "invalid input syntax for type
    // integer: …", and the duplicate key in `detail`; Neon passes those on, and so does the endpoint.)
    for (const body of [
      { query: `INSERT INTO "${t}" VALUES (1, $1)`, params: [secret] },
      { query: "SELEC $1", params: [secret] },
      { queries: [{ query: "SELECT $1::text, 1 / 0", params: [secret] }] },
    ]) {
      const res = await raw(JSON.stringify(body));
      expect(res.status).toBe(400);
      const text = await res.text();
      const json = JSON.parse(text) as { message: string; code: string };
      expect(json.message).toBeTruthy();
      expect(json.code).toMatch(/^[0-9A-Z]{5}$/);
      for (const leak of [connectionString, password, secret]) expect(text).not.toContain(leak);
    }
  });

  it("refuses malformed JSON, wrong methods and paths, a missing connection string and oversized bodies", async () => {
    const malformed = await raw(`{"query": "SELECT '${password}'`);
    expect(malformed.status).toBe(400);
    const body = (await malformed.json()) as { message: string; code: string };
    expect(body.message).toMatch(/could not parse the HTTP request body/);
    expect(body.code).toBe("");
    expect(JSON.stringify(body)).not.toContain(password);

    const shapeless = await raw(JSON.stringify({ sql: "SELECT 1" }));
    expect(shapeless.status).toBe(400);
    const wrongParams = await raw(JSON.stringify({ query: "SELECT 1", params: "x" }));
    expect(wrongParams.status).toBe(400);

    const get = await raw("", {}, "GET");
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toContain("POST");
    expect(await get.json()).toMatchObject({ message: expect.stringMatching(/not allowed/) });
    const elsewhere = await fetch(endpoint.url.replace(/\/sql$/, "/other"), { method: "POST", body: "{}" });
    expect(elsewhere.status).toBe(404);

    const anonymous = await fetch(endpoint.url, { method: "POST", body: JSON.stringify({ query: "SELECT 1" }) });
    expect(anonymous.status).toBe(400);
    expect(await anonymous.json()).toMatchObject({ message: expect.stringMatching(/Neon-Connection-String/) });

    const huge = await raw(JSON.stringify({ query: "SELECT $1::text", params: ["x".repeat(11 * 1024 * 1024)] }));
    expect(huge.status).toBe(413);
    expect(await huge.json()).toMatchObject({ message: expect.stringMatching(/too large/) });
    // and the endpoint still answers
    expect(await sql`SELECT 2 AS two`).toEqual([{ two: 2 }]);
  });

  it("answers JSON values without Neon-Raw-Text-Output, as Neon does for other clients", async () => {
    const res = await fetch(endpoint.url, {
      method: "POST",
      headers: { "Neon-Connection-String": connectionString },
      body: JSON.stringify({
        query: `SELECT true AS b, 7::int2 AS small, 42 AS i, 9007199254740993::int8 AS big, 1.5::float8 AS f,
          'NaN'::float8 AS nan, 1.50::numeric AS n, '{"k":[1,null]}'::jsonb AS j, ARRAY[1,NULL,3] AS ia,
          ARRAY['a b', NULL, 'c"d'] AS ta, ARRAY[ARRAY[true,false],ARRAY[false,true]] AS nested, $1::text AS p, $2::int[] AS pa`,
        params: ["x", [4, 5]],
      }),
    });
    expect(res.status).toBe(200);
    const out = (await res.json()) as { rows: unknown[]; rowAsArray: boolean; command: string; rowCount: number };
    expect(out).toMatchObject({ command: "SELECT", rowCount: 1, rowAsArray: false });
    expect(out.rows).toEqual([
      {
        b: true,
        small: 7,
        i: 42,
        big: "9007199254740993",
        f: 1.5,
        nan: "NaN",
        n: "1.50",
        j: { k: [1, null] },
        ia: [1, null, 3],
        ta: ["a b", null, 'c"d'],
        nested: [
          [true, false],
          [false, true],
        ],
        p: "x",
        pa: [4, 5],
      },
    ]);
  });

  it("serves concurrent queries from a small pool and counts what it did", async () => {
    const before = endpoint.stats();
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => sql`SELECT ${i}::int AS i, pg_sleep(0.005) AS s`));
    expect(results.map((r) => r[0]?.i)).toEqual(Array.from({ length: 40 }, (_, i) => i));
    const after = endpoint.stats();
    expect(after.requests - before.requests).toBe(40);
    expect(after.queries - before.queries).toBe(40);
    expect(after.connectionsOpened).toBeLessThanOrEqual(10);
    expect(after.connectionsOpened).toBeGreaterThan(0);
  });
});

describe("SQL-over-HTTP endpoint (database unreachable)", () => {
  it("answers 500 with no password in it", async () => {
    const port = await new Promise<number>((resolve) => {
      const srv = createServer().listen(0, "127.0.0.1", () => {
        const address = srv.address();
        srv.close(() => resolve(typeof address === "object" && address ? address.port : 0));
      });
    });
    const endpoint = await startSqlHttp({ host: "127.0.0.1", port });
    try {
      const res = await fetch(endpoint.url, {
        method: "POST",
        headers: { "Neon-Connection-String": "postgresql://app:hunter2-secret@db.example:5432/app" },
        body: JSON.stringify({ query: "SELECT 1" }),
      });
      expect(res.status).toBe(500);
      const text = await res.text();
      expect(JSON.parse(text)).toMatchObject({ code: "", message: expect.stringMatching(/ECONNREFUSED/) });
      expect(text).not.toContain("hunter2");
    } finally {
      await endpoint.stop();
    }
  });
});
