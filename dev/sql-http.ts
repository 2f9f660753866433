// The local stand-in for Neon's SQL-over-HTTP endpoint. In production the worker's
// `neon()` query function (and drizzle-orm/neon-http on top of it) POSTs each query, or a
// batch of them, to https://<endpoint host>/sql; Neon's proxy runs it on a pooled
// connection and answers JSON. Locally `neonConfig.fetchEndpoint` points here, and this
// server runs the same requests over the Postgres wire protocol (node-postgres) against ONE
// fixed database: PGlite's socket server or a real PostgreSQL. The host in the connection
// string is ignored on purpose, as in dev/ws-proxy.ts; its user, password and database are
// used unless the target fixes them.
//
// The protocol, as @neondatabase/serverless 1.x sends it and Neon's proxy answers it:
//   POST /sql, body `{query, params}` or `{queries: [{query, params}, ...]}` (a batch: one
//   transaction). Each query may carry `arrayMode`. `params` are JSON values turned into
//   Postgres text: null stays NULL, strings as they are, numbers, booleans and objects as JSON,
//   arrays as Postgres array literals.
//   Headers: `Neon-Connection-String` (required), `Neon-Raw-Text-Output: true` (values as
//   Postgres text; the driver always sends it and parses by dataTypeID itself; otherwise
//   booleans, int2/int4, finite floats and json come back as JSON values and arrays as JSON
//   arrays), `Neon-Array-Mode: true` (rows as arrays; the driver always sends it), and for
//   batches `Neon-Batch-Isolation-Level` (ReadUncommitted | ReadCommitted | RepeatableRead |
//   Serializable), `Neon-Batch-Read-Only: true`, `Neon-Batch-Deferrable: true`, echoed back.
//   200: `{fields: [{name, dataTypeID, tableID, columnID, dataTypeSize, dataTypeModifier,
//   format}], command, rowCount, rows, rowAsArray}`, or `{results: [...]}` for a batch.
//   Errors: `{message, code, severity, detail, hint, position, ..., routine}` with the
//   Postgres fields (SQLSTATE in `code`) and status 400, which the driver turns into a
//   NeonDbError; the proxy's own errors carry an empty `code` (400 unreadable body, 413 body
//   over 10 MB, 507 response over 10 MB, 500 database unreachable).
// Queries always use the extended protocol, as on Neon: one statement per query.
// Nothing here logs, and no response carries the connection string, its password or the
// request's parameters (Postgres' own `detail`, e.g. the duplicate key, is passed on as Neon does).
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import pg from "pg";

export interface SqlHttp {
  /** The endpoint for `neonConfig.fetchEndpoint`, e.g. http://127.0.0.1:PORT/sql. */
  url: string;
  port: number;
  /** Requests received, queries run (each statement of a batch counts), connections opened to the target. */
  stats(): { requests: number; queries: number; connectionsOpened: number };
  stop(): Promise<void>;
}

export interface SqlHttpTarget {
  host: string;
  port: number;
  /** Fixed credentials and database; when omitted, those of the request's connection string. */
  user?: string;
  password?: string;
  database?: string;
  /** Connections per credential set; default 10. */
  poolSize?: number;
}

/** Neon's default request and response limits. */
const MAX_BODY_BYTES = 10 * 1024 * 1024;
const MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
interface QueryData {
  query: string;
  params: Array<string | null>;
  arrayMode?: boolean;
}
interface Options {
  rawText: boolean;
  arrayMode: boolean;
}

/** An answer that is not a result: the proxy's own errors and Postgres errors alike. */
class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly fields: Record<string, string | undefined> = {},
  ) {
    super(message);
  }
}

/** Postgres errors and our own leave the connection usable; anything else (a dropped socket) does not. */
const breaksConnection = (err: unknown) => !(err instanceof pg.DatabaseError || err instanceof HttpError);

// The Postgres error fields the driver copies onto NeonDbError (its `hi` list), as Neon sends them.
const PG_ERROR_FIELDS = [
  "severity",
  "code",
  "detail",
  "hint",
  "position",
  "internalPosition",
  "internalQuery",
  "where",
  "schema",
  "table",
  "column",
  "dataType",
  "constraint",
  "file",
  "line",
  "routine",
] as const;

const ISOLATION_LEVELS: Record<string, string> = {
  ReadUncommitted: "READ UNCOMMITTED",
  ReadCommitted: "READ COMMITTED",
  RepeatableRead: "REPEATABLE READ",
  Serializable: "SERIALIZABLE",
};

// Results stay Postgres text: node-postgres must not parse anything (the driver does, by dataTypeID).
const rawText = (value: string) => value;
const RAW_TYPES = { getTypeParser: () => rawText } as unknown as pg.CustomTypesConfig;

export async function startSqlHttp(target: SqlHttpTarget, port = 0): Promise<SqlHttp> {
  const counters = { requests: 0, queries: 0, connectionsOpened: 0 };
  const pools = new Map<string, pg.Pool>();
  let stopping = false;

  const poolFor = (creds: { user: string; password: string | undefined; database: string }) => {
    const key = JSON.stringify([creds.user, creds.password ?? null, creds.database]);
    let pool = pools.get(key);
    if (!pool) {
      pool = new pg.Pool({
        host: target.host,
        port: target.port,
        user: creds.user,
        password: creds.password ?? "",
        database: creds.database,
        ssl: false,
        max: target.poolSize ?? 10,
        idleTimeoutMillis: 30_000,
        connectionTimeoutMillis: 30_000,
        application_name: "neon-sql-http-local",
      });
      pool.on("connect", () => {
        counters.connectionsOpened++;
      });
      pool.on("error", () => {}); // an idle connection dropped by the server: the pool replaces it
      pools.set(key, pool);
    }
    return pool;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    counters.requests++;
    const path = (req.url ?? "/").split("?")[0];
    if (path !== "/sql") throw new HttpError(404, `not found: ${req.method} ${path}; the endpoint is POST /sql`);
    if (req.method === "OPTIONS") {
      res
        .writeHead(200, {
          "access-control-allow-origin": "*",
          "access-control-allow-methods": "POST",
          "access-control-allow-headers":
            "Authorization, Neon-Connection-String, Neon-Raw-Text-Output, Neon-Array-Mode, Neon-Pool-Opt-In, Neon-Batch-Read-Only, Neon-Batch-Isolation-Level, Neon-Batch-Deferrable",
          "access-control-max-age": "86400",
        })
        .end();
      return;
    }
    if (req.method !== "POST") {
      res.setHeader("allow", "POST, OPTIONS");
      throw new HttpError(405, `method ${req.method} not allowed; the endpoint is POST /sql`);
    }

    const headers = parseHeaders(req);
    const creds = parseConnectionString(req.headers["neon-connection-string"], target);
    const payload = parsePayload(await readBody(req));
    const pool = poolFor(creds);

    let output: unknown;
    const responseHeaders: Record<string, string> = {};
    if ("queries" in payload) {
      output = { results: await runBatch(pool, payload.queries, headers, counters) };
      if (headers.readOnly) responseHeaders["neon-batch-read-only"] = "true";
      if (headers.deferrable) responseHeaders["neon-batch-deferrable"] = "true";
      if (headers.isolationLevel) responseHeaders["neon-batch-isolation-level"] = headers.isolationLevel;
    } else {
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        output = await runQuery(client, payload, headers, counters);
      } catch (err) {
        if (breaksConnection(err)) broken = err as Error;
        throw err;
      } finally {
        client.release(broken);
      }
    }
    const body = JSON.stringify(output);
    if (Buffer.byteLength(body) > MAX_RESPONSE_BYTES)
      throw new HttpError(507, `response is too large (max is ${MAX_RESPONSE_BYTES} bytes)`);
    send(res, 200, body, responseHeaders);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (res.headersSent) return void res.destroy();
      const { status, body } = errorResponse(err, stopping);
      send(res, status, JSON.stringify(body));
    });
  });
  server.keepAliveTimeout = 60_000;

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("SQL-over-HTTP endpoint did not bind");
  return {
    url: `http://127.0.0.1:${address.port}/sql`,
    port: address.port,
    stats: () => ({ ...counters }),
    async stop() {
      stopping = true;
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.all([...pools.values()].map((pool) => pool.end().catch(() => undefined)));
      pools.clear();
    },
  };
}

function send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) {
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    "access-control-allow-origin": "*",
    ...headers,
  });
  res.end(body);
}

/** The error body the driver reads (only a 400 becomes a NeonDbError with the fields; others are text to it). */
function errorResponse(err: unknown, stopping: boolean): { status: number; body: Record<string, unknown> } {
  if (err instanceof pg.DatabaseError) {
    const body: Record<string, unknown> = { message: err.message };
    for (const field of PG_ERROR_FIELDS) body[field] = err[field] ?? undefined;
    return { status: 400, body };
  }
  if (err instanceof HttpError) return { status: err.status, body: { message: err.message, code: "", ...err.fields } };
  // Not a Postgres error: the target is unreachable, a connection broke, the pool timed out.
  // node-postgres' messages name host and port at most, never the password.
  const message = err instanceof Error ? err.message : String(err);
  return {
    status: 500,
    body: { message: stopping ? "the endpoint is shutting down" : `could not run the query: ${message}`, code: "" },
  };
}

function parseHeaders(req: IncomingMessage) {
  const header = (name: string) => {
    const value = req.headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  const level = header("neon-batch-isolation-level");
  if (level !== undefined && !Object.hasOwn(ISOLATION_LEVELS, level)) throw new HttpError(400, "invalid isolation level");
  return {
    // As on Neon: anything but exactly "true" is false.
    rawText: header("neon-raw-text-output") === "true",
    arrayMode: header("neon-array-mode") === "true",
    isolationLevel: level,
    readOnly: header("neon-batch-read-only") === "true",
    deferrable: header("neon-batch-deferrable") === "true",
  };
}

/** User, password and database from the connection string (the host is ignored), unless the target fixes them. */
function parseConnectionString(
  header: string | string[] | undefined,
  target: SqlHttpTarget,
): { user: string; password: string | undefined; database: string } {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) throw new HttpError(400, "missing header: Neon-Connection-String");
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new HttpError(400, "invalid connection string"); // never echo it: it holds the password
  }
  if (url.protocol !== "postgres:" && url.protocol !== "postgresql:") throw new HttpError(400, "incorrect scheme");
  const decode = (s: string) => {
    try {
      return decodeURIComponent(s);
    } catch {
      throw new HttpError(400, "invalid connection string");
    }
  };
  const user = target.user ?? decode(url.username);
  const database = target.database ?? decode(url.pathname.replace(/^\//, ""));
  if (!user) throw new HttpError(400, "missing username");
  if (!database) throw new HttpError(400, "missing database name");
  const password = target.password ?? (url.password ? decode(url.password) : undefined);
  return { user, password, database };
}

/** The body, up to the limit. Past it the rest is read and dropped, so the client sees the 413 instead of a reset. */
async function readBody(req: IncomingMessage): Promise<string> {
  const declared = Number(req.headers["content-length"] ?? 0);
  const chunks: Buffer[] = [];
  let size = 0;
  let tooLarge = declared > MAX_BODY_BYTES;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) tooLarge = true;
    if (size > 8 * MAX_BODY_BYTES) {
      req.destroy(); // not worth draining
      break;
    }
    if (!tooLarge) chunks.push(chunk);
  }
  if (tooLarge) throw new HttpError(413, `request is too large (max is ${MAX_BODY_BYTES} bytes)`);
  return Buffer.concat(chunks).toString("utf8");
}

function parsePayload(text: string): QueryData | { queries: QueryData[] } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // Not the parser's message: it quotes the body, which may hold parameters.
    throw new HttpError(400, "could not parse the HTTP request body: not valid JSON");
  }
  const bad = (why: string) => new HttpError(400, `could not parse the HTTP request body: ${why}`);
  const queryData = (value: unknown, where: string): QueryData => {
    if (!value || typeof value !== "object" || Array.isArray(value)) throw bad(`${where} must be an object`);
    const { query, params, arrayMode } = value as { query?: unknown; params?: unknown; arrayMode?: unknown };
    if (typeof query !== "string") throw bad(`${where}.query must be a string`);
    if (params !== undefined && !Array.isArray(params)) throw bad(`${where}.params must be an array`);
    if (arrayMode !== undefined && arrayMode !== null && typeof arrayMode !== "boolean") throw bad(`${where}.arrayMode must be a boolean`);
    return {
      query,
      params: ((params ?? []) as Json[]).map(paramText),
      ...(typeof arrayMode === "boolean" && { arrayMode }),
    };
  };
  if (json && typeof json === "object" && !Array.isArray(json) && "query" in json) return queryData(json, "body");
  if (json && typeof json === "object" && !Array.isArray(json) && "queries" in json) {
    const { queries } = json as { queries: unknown };
    if (!Array.isArray(queries)) throw bad("queries must be an array");
    return { queries: queries.map((q, i) => queryData(q, `queries[${i}]`)) };
  }
  throw bad("expected {query, params} or {queries: [...]}");
}

/** A JSON parameter as Postgres text, as Neon's proxy converts it. */
function paramText(value: Json): string | null {
  if (value === null) return null;
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return arrayLiteral(value);
  return JSON.stringify(value);
}

function arrayLiteral(value: Json): string {
  if (value === null) return "NULL";
  if (Array.isArray(value)) return `{${value.map(arrayLiteral).join(",")}}`;
  if (typeof value === "object") return JSON.stringify(JSON.stringify(value));
  return JSON.stringify(value); // strings quoted and escaped; numbers and booleans bare
}

async function runQuery(client: pg.PoolClient, data: QueryData, opts: Options, counters: { queries: number }) {
  counters.queries++;
  const arrayMode = data.arrayMode ?? opts.arrayMode;
  const result = await client.query({
    text: data.query,
    values: data.params,
    rowMode: "array",
    types: RAW_TYPES,
    queryMode: "extended", // one statement per query, as on Neon (its proxy never uses the simple protocol)
  } as pg.QueryArrayConfig);
  const fields = result.fields.map((f) => ({
    name: f.name,
    dataTypeID: f.dataTypeID,
    tableID: f.tableID,
    columnID: f.columnID,
    dataTypeSize: f.dataTypeSize,
    dataTypeModifier: f.dataTypeModifier,
    format: "text",
  }));
  const toJson = (v: string, oid: number) => {
    try {
      return pgTextToJson(v, oid);
    } catch {
      throw new HttpError(500, "could not parse postgres response");
    }
  };
  const rows = (result.rows as Array<Array<string | null>>).map((row) => {
    const values = opts.rawText ? row : row.map((v, i) => (v === null ? null : toJson(v, fields[i]?.dataTypeID ?? 0)));
    return arrayMode ? values : Object.fromEntries(fields.map((f, i) => [f.name, values[i] ?? null]));
  });
  return { fields, command: result.command, rowCount: result.rowCount, rows, rowAsArray: arrayMode };
}

/** A batch: one transaction, rolled back when any query fails; the failing query's error is the answer. */
async function runBatch(pool: pg.Pool, queries: QueryData[], opts: Options & BatchOptions, counters: { queries: number }) {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    const modes = [
      opts.isolationLevel && `ISOLATION LEVEL ${ISOLATION_LEVELS[opts.isolationLevel]}`,
      opts.readOnly && "READ ONLY",
      opts.deferrable && "DEFERRABLE",
    ].filter(Boolean);
    await client.query(`BEGIN${modes.length ? ` ${modes.join(", ")}` : ""}`);
    const results = [];
    try {
      for (const q of queries) results.push(await runQuery(client, q, opts, counters));
    } catch (err) {
      await client.query("ROLLBACK").catch((e: Error) => {
        broken = e;
      });
      if (breaksConnection(err)) broken = err as Error;
      throw err;
    }
    await client.query("COMMIT");
    return results;
  } catch (err) {
    if (breaksConnection(err)) broken ??= err as Error;
    throw err;
  } finally {
    client.release(broken);
  }
}

interface BatchOptions {
  isolationLevel: string | undefined;
  readOnly: boolean;
  deferrable: boolean;
}

// ---------------------------------------------------------------------------------------------
// Without `Neon-Raw-Text-Output: true` Neon answers JSON values: booleans, int2/int4 and finite
// floats as JSON, json/jsonb parsed, arrays as JSON arrays of those; everything else (int8,
// numeric, dates…) stays text. The driver never asks for this; curl users get it.

const BOOL = 16;
const INT2 = 21;
const INT4 = 23;
const FLOAT4 = 700;
const FLOAT8 = 701;
const JSON_OID = 114;
const JSONB = 3802;
const BOX = 603;

/** Built-in array types and their element types (user-defined arrays stay text). */
const ARRAY_ELEMENTS: Record<number, number> = {
  1000: BOOL,
  1001: 17,
  1002: 18,
  1003: 19,
  1005: INT2,
  1006: 22,
  1007: INT4,
  1008: 24,
  1009: 25,
  1010: 27,
  1011: 28,
  1012: 29,
  1013: 30,
  1014: 1042,
  1015: 1043,
  1016: 20,
  1017: 600,
  1018: 601,
  1019: 602,
  1020: BOX,
  1021: FLOAT4,
  1022: FLOAT8,
  1027: 604,
  1028: 26,
  1040: 829,
  1041: 869,
  1115: 1114,
  1182: 1082,
  1183: 1083,
  1185: 1184,
  1187: 1186,
  1231: 1700,
  1270: 1266,
  1561: 1560,
  1563: 1562,
  143: 142,
  199: JSON_OID,
  2951: 2950,
  3807: JSONB,
  3643: 3614,
  3645: 3615,
  629: 628,
  651: 650,
  719: 718,
  791: 790,
  2201: 1790,
  2207: 2202,
  2208: 2203,
  2209: 2204,
  2210: 2205,
  2211: 2206,
  3905: 3904,
  3907: 3906,
  3909: 3908,
  3911: 3910,
  3913: 3912,
  3927: 3926,
  4073: 4072,
  1034: 1033,
};

export function pgTextToJson(text: string, oid: number): Json {
  const element = ARRAY_ELEMENTS[oid];
  if (element !== undefined) return parseArray(text, element, element === BOX ? ";" : ",");
  switch (oid) {
    case BOOL:
      return text === "t";
    case INT2:
    case INT4:
      return Number.parseInt(text, 10);
    case FLOAT4:
    case FLOAT8: {
      const n = Number(text);
      return Number.isFinite(n) ? n : text; // NaN and ±Infinity stay text, as on Neon
    }
    case JSON_OID:
    case JSONB:
      return JSON.parse(text) as Json;
    default:
      return text;
  }
}

/** A Postgres array literal (`{1,2}`, `{{a,"b c"},{NULL,"\"q\""}}`, `[0:1]={…}`) as a JSON array. */
function parseArray(text: string, element: number, delim: string): Json[] {
  let s = text;
  if (s.startsWith("[")) s = s.slice(s.indexOf("=") + 1); // bounds decoration: not representable in JSON
  let i = 0;
  const skipSpace = () => {
    while (i < s.length && /\s/.test(s.charAt(i))) i++;
  };
  const parseLevel = (): Json[] => {
    skipSpace();
    if (s[i] !== "{") throw new Error("unbalanced array");
    i++;
    const out: Json[] = [];
    skipSpace();
    if (s[i] === "}") {
      i++;
      return out;
    }
    for (;;) {
      skipSpace();
      if (s[i] === "{") out.push(parseLevel());
      else if (s[i] === '"') {
        i++;
        let item = "";
        while (i < s.length && s[i] !== '"') {
          if (s[i] === "\\") i++;
          item += s.charAt(i);
          i++;
        }
        if (s[i] !== '"') throw new Error("unbalanced quoted string");
        i++;
        out.push(pgTextToJson(item, element));
      } else {
        const start = i;
        while (i < s.length && s[i] !== delim && s[i] !== "}") i++;
        const item = s.slice(start, i).trim();
        out.push(item === "NULL" ? null : pgTextToJson(item, element));
      }
      skipSpace();
      if (s[i] === delim) {
        i++;
        continue;
      }
      if (s[i] === "}") {
        i++;
        return out;
      }
      throw new Error("unbalanced array");
    }
  };
  return parseLevel();
}
