// One way to reach Postgres, in the worker and in Node tools alike: the Neon serverless driver.
// - Queries and non-interactive batches go over Neon's SQL-over-HTTP endpoint (`neon()` with
//   drizzle's neon-http): one HTTPS request a statement, no connection to open or close.
// - Interactive transactions (a read that decides a write, FOR UPDATE) need a session: those,
//   and only those, open a WebSocket `Pool` for the transaction's length (docs/database.md).
// In production both doors are Neon's; on a laptop and in CI the local stack stands in for them
// (DATABASE_HTTP_ENDPOINT, DATABASE_WS_PROXY) in front of PGlite or a real PostgreSQL. Only the
// server on the other end changes.
import { neon, neonConfig, Pool } from "@neondatabase/serverless";
import type { ExtractTablesWithRelations } from "drizzle-orm";
import { drizzle as drizzleHttp } from "drizzle-orm/neon-http";
import { drizzle as drizzleWs, type NeonDatabase } from "drizzle-orm/neon-serverless";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import * as schema from "./schema";

type Schema = typeof schema;

/** What services take: any drizzle Postgres database over this schema (HTTP in requests, a Pool in tools). */
export type Db = PgDatabase<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;

/** The rows of `db.execute(sql…)`, whichever driver ran it (a result with `rows`, or the rows themselves). */
export const rowsOf = <T>(result: unknown): T[] => ((result as { rows?: T[] }).rows ?? (result as T[])) as T[];

export interface DbConfig {
  DATABASE_URL: string;
  /** Local stack only: host:port of the WebSocket proxy standing in for Neon's. */
  DATABASE_WS_PROXY?: string;
  /** Local stack only: the URL of the SQL-over-HTTP endpoint standing in for Neon's. */
  DATABASE_HTTP_ENDPOINT?: string;
}

/** Points the driver at the local stack's stand-ins when configured; production leaves Neon's defaults. */
export function configureNeon(config: Omit<DbConfig, "DATABASE_URL">): void {
  const { DATABASE_WS_PROXY: wsProxy, DATABASE_HTTP_ENDPOINT: httpEndpoint } = config;
  if (wsProxy) {
    neonConfig.wsProxy = (host, port) => `${wsProxy}/v2?address=${host}:${port}`;
    neonConfig.useSecureWebSocket = false;
    neonConfig.pipelineTLS = false;
    neonConfig.pipelineConnect = false;
  }
  if (httpEndpoint) neonConfig.fetchEndpoint = httpEndpoint;
}

/** A WebSocket Pool and its drizzle database: for tools (migrations, the admin CLI) and transactions. */
export function createDb(databaseUrl: string, wsProxy?: string, max = 1): { db: NeonDatabase<Schema>; pool: Pool } {
  configureNeon({ DATABASE_WS_PROXY: wsProxy });
  const pool = new Pool({ connectionString: databaseUrl, max });
  return { db: drizzleWs({ client: pool, schema }), pool };
}

// Built once per isolate and configuration: drizzle's setup over the schema costs about 0.2 ms,
// a fifth of a bare route. This is no shared connection (STYLE.md's "global database client"): it
// holds no socket or stream, and each statement is a fetch of the request that runs it.
const httpDbs = new Map<string, Db>();

/**
 * The request path's database: statements over HTTP, `db.batch([...])` for several in one
 * request (one transaction), and `db.transaction(fn)` on a connection of its own, opened for that
 * transaction and closed after it. Getting it does no I/O.
 */
export function createHttpDb(config: DbConfig): Db {
  const id = JSON.stringify([config.DATABASE_URL, config.DATABASE_WS_PROXY, config.DATABASE_HTTP_ENDPOINT]);
  let db = httpDbs.get(id);
  if (!db) {
    db = buildHttpDb(config);
    httpDbs.set(id, db);
  }
  return db;
}

function buildHttpDb(config: DbConfig): Db {
  configureNeon(config);
  const db = drizzleHttp({ client: neon(config.DATABASE_URL), schema });
  const transaction = async <T>(work: Parameters<Db["transaction"]>[0], options?: Parameters<Db["transaction"]>[1]): Promise<T> => {
    const { db: session, pool } = createDb(config.DATABASE_URL, config.DATABASE_WS_PROXY);
    try {
      return (await session.transaction(work as Parameters<typeof session.transaction>[0], options)) as T;
    } finally {
      await pool.end();
    }
  };
  // neon-http has no interactive transactions (it throws); this database opens a session for them.
  return Object.assign(db, { transaction }) as unknown as Db;
}

export type HttpDb = ReturnType<typeof drizzleHttp<Schema>>;
