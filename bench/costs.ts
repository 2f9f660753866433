// What each route costs at the wire: Postgres sessions (WebSocket connections), SQL-over-HTTP
// requests and Redis requests per 1,000 requests, counted by forwarders (bench/counters.ts) put
// between a second worker of the same build and the stack's servers. The timed cases run on the
// bench's measured worker (bench/run.ts), without the forwarders: each forwarder is one more local hop per round trip,
// which would tax the routes that make round trips and not /health.
//
// Per route, after a warm-up (the key is in the cache, the script is loaded): exactly `requests`
// requests at `concurrency`, then a wait until the counters stop moving (work after the response:
// cache fills, last-used), so every request's whole cost is in its row. Two more rows for
// GET /v1/me: the first use of fresh keys (the cache miss), and Redis answering 503 (fail open).
import type { Stack } from "../dev/stack";
import { createApiKey } from "../src/api-keys/service";
import { createDb } from "../src/db/client";
import { type CountingHttp, type CountingTcp, sqlStatements, startCountingHttp, startCountingTcp, upstashCommands } from "./counters";
import { percentile } from "./report";
import type { BenchWorkspace } from "./setup";
import { startBenchWorker } from "./worker-launch";

export interface CostRoute {
  label: string;
  path: string;
  headers: Record<string, string>;
  /** GET unless said; a body is sent with every request. */
  method?: "GET" | "POST";
  body?: string;
  /** Fewer requests than the others (slow routes), at most this many. */
  maxRequests?: number;
}

export interface CostRow {
  label: string;
  /** Requests sent, and how many of them did not answer 2xx (or failed). */
  requests: number;
  failed: number;
  /** WebSocket connections (Postgres sessions) opened, counted at the TCP forwarder. */
  websockets: number;
  /** SQL-over-HTTP requests, the statements inside them, by first keyword. */
  sqlHttpRequests: number;
  sqlStatements: number;
  sqlByVerb: Record<string, number>;
  /** TCP connections the worker opened to the SQL-over-HTTP and Upstash forwarders (fewer than requests when it keeps them alive). */
  sqlHttpConnections: number;
  redisConnections: number;
  /** Upstash REST requests, the commands inside them, by name. */
  redisRequests: number;
  redisCommands: number;
  redisByCommand: Record<string, number>;
  /** The same per 1,000 requests. */
  perThousand: { websockets: number; sqlHttp: number; sqlStatements: number; redis: number; redisCommands: number };
  /** Most WebSocket connections open at once. */
  peakWebsockets: number;
  /** p50 of one SQL-over-HTTP request and of one Redis request, forwarder to server and back (ms; null when none). */
  sqlHttpP50Ms: number | null;
  redisP50Ms: number | null;
}

export interface CostsResult {
  rows: CostRow[];
  requestsPerRoute: number;
  concurrency: number;
  /** False when the stack has no SQL-over-HTTP endpoint (the worker then has only the WebSocket door). */
  sqlHttpCounted: boolean;
}

const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `count` requests (GET unless `init` says) at `concurrency`, each answered in full; returns how many were not 2xx. */
export async function send(
  baseUrl: string,
  path: string,
  headersFor: (i: number) => Record<string, string>,
  count: number,
  concurrency: number,
  init: { method?: string; body?: string } = {},
) {
  let next = 0;
  let failed = 0;
  const lane = async () => {
    while (next < count) {
      const i = next++;
      try {
        const res = await fetch(baseUrl + path, { ...init, headers: headersFor(i), signal: AbortSignal.timeout(15_000) });
        await res.arrayBuffer();
        if (res.status < 200 || res.status > 299) failed++;
      } catch {
        failed++;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane));
  return failed;
}

export async function measureCosts(opts: {
  stack: Stack;
  ws: BenchWorkspace;
  routes: CostRoute[];
  requests: number;
  concurrency: number;
  /** Fresh keys for the cache-miss row (0: no row). */
  coldKeys: number;
  log: (line: string) => void;
  workerLog?: (chunk: string) => void;
}): Promise<CostsResult> {
  const { stack, log } = opts;
  const stops: Array<() => Promise<void>> = [];
  try {
    const websocket: CountingTcp = await startCountingTcp(stack.wsProxy);
    stops.push(() => websocket.stop());
    const httpEndpoint = stack.vars.DATABASE_HTTP_ENDPOINT;
    let sqlHttp: CountingHttp | undefined;
    if (httpEndpoint) {
      sqlHttp = await startCountingHttp(httpEndpoint, sqlStatements);
      stops.push(() => (sqlHttp as CountingHttp).stop());
    } else {
      log("costs: the stack passes no DATABASE_HTTP_ENDPOINT: SQL over HTTP is not counted");
    }
    const redis: CountingHttp = await startCountingHttp(stack.redis.url, upstashCommands);
    stops.push(() => redis.stop());

    log("costs: starting a second worker behind counting forwarders (WebSocket, SQL over HTTP, Upstash)…");
    const worker = await startBenchWorker(
      {
        ...stack.vars,
        DATABASE_WS_PROXY: websocket.address,
        ...(sqlHttp && { DATABASE_HTTP_ENDPOINT: sqlHttp.url }),
        UPSTASH_REDIS_REST_URL: redis.url,
      },
      { workerLog: opts.workerLog },
    );
    stops.push(() => worker.stop());

    const reset = () => {
      websocket.reset();
      sqlHttp?.reset();
      redis.reset();
    };
    const total = () => websocket.counts().connections + (sqlHttp?.counts().requests ?? 0) + redis.counts().requests;
    /** Waits until no counter has moved for 600 ms (work after the responses), at most 10 s. */
    const quiet = async () => {
      let last = total();
      let stableSince = Date.now();
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline && Date.now() - stableSince < 600) {
        await settle(100);
        const now = total();
        if (now !== last) {
          last = now;
          stableSince = Date.now();
        }
      }
    };
    const row = (label: string, requests: number, failed: number): CostRow => {
      const w = websocket.counts();
      const s = sqlHttp?.counts() ?? { requests: 0, units: 0, byName: {}, upstreamMs: [], connections: 0 };
      const r = redis.counts();
      const per = (n: number) => (requests > 0 ? Math.round((n * 1000 * 10) / requests) / 10 : 0);
      return {
        label,
        requests,
        failed,
        websockets: w.connections,
        sqlHttpRequests: s.requests,
        sqlStatements: s.units,
        sqlByVerb: s.byName,
        sqlHttpConnections: s.connections,
        redisConnections: r.connections,
        redisRequests: r.requests,
        redisCommands: r.units,
        redisByCommand: r.byName,
        perThousand: {
          websockets: per(w.connections),
          sqlHttp: per(s.requests),
          sqlStatements: per(s.units),
          redis: per(r.requests),
          redisCommands: per(r.units),
        },
        peakWebsockets: w.peak,
        sqlHttpP50Ms: s.upstreamMs.length ? Math.round(percentile(s.upstreamMs, 50) * 100) / 100 : null,
        redisP50Ms: r.upstreamMs.length ? Math.round(percentile(r.upstreamMs, 50) * 100) / 100 : null,
      };
    };

    const rows: CostRow[] = [];
    for (const route of opts.routes) {
      const init = { method: route.method, body: route.body };
      await send(worker.baseUrl, route.path, () => route.headers, 20, 4, init); // warm-up: bundle, script, cached key
      await quiet();
      reset();
      const n = Math.min(opts.requests, route.maxRequests ?? opts.requests);
      log(`costs: ${route.label}, ${n} requests at ${opts.concurrency} connections…`);
      const failed = await send(worker.baseUrl, route.path, () => route.headers, n, opts.concurrency, init);
      await quiet();
      rows.push(row(route.label, n, failed));
      log(`    ${describe(rows.at(-1) as CostRow)}`);
    }

    const me = opts.routes.find((r) => r.path === "/v1/me");
    if (me && opts.coldKeys > 0) {
      log(`costs: GET /v1/me, first use of ${opts.coldKeys} fresh keys (the cache miss)…`);
      const secrets = await freshKeys(stack, opts.ws, opts.coldKeys);
      await quiet();
      reset();
      const failed = await send(worker.baseUrl, "/v1/me", (i) => ({ authorization: `Bearer ${secrets[i]}` }), secrets.length, 5);
      await quiet();
      rows.push(row("GET /v1/me, a key's first use", secrets.length, failed));
      log(`    ${describe(rows.at(-1) as CostRow)}`);

      const n = Math.min(opts.requests, 200);
      log(`costs: GET /v1/me while Redis answers 503 (fail open), ${n} requests…`);
      await quiet();
      reset();
      redis.failWith(503);
      let failedOpen: number;
      try {
        failedOpen = await send(worker.baseUrl, "/v1/me", () => me.headers, n, opts.concurrency);
        await quiet();
      } finally {
        redis.failWith(null);
      }
      rows.push(row("GET /v1/me, Redis down (fail open)", n, failedOpen));
      log(`    ${describe(rows.at(-1) as CostRow)}`);
    }
    return { rows, requestsPerRoute: opts.requests, concurrency: opts.concurrency, sqlHttpCounted: Boolean(sqlHttp) };
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  }
}

/** New keys of the bench workspace, created through the service from Node (not through the forwarders). */
async function freshKeys(stack: Stack, ws: BenchWorkspace, count: number): Promise<string[]> {
  const { db, pool } = createDb(stack.databaseUrl, stack.wsProxy, 2);
  try {
    const secrets: string[] = [];
    for (let i = 0; i < count; i++) {
      const { secret } = await createApiKey({
        ctx: { db, organizationId: ws.organizationId },
        input: { name: `bench cold ${i}`, createdByUserId: ws.userId },
      });
      secrets.push(secret);
    }
    return secrets;
  } finally {
    await pool.end();
  }
}

const describe = (r: CostRow) =>
  `per 1,000: ${r.perThousand.websockets} WebSocket connections, ${r.perThousand.sqlHttp} SQL-over-HTTP requests, ` +
  `${r.perThousand.redis} Redis requests (over ${r.sqlHttpConnections} and ${r.redisConnections} TCP connections)` +
  (r.failed ? `; ${r.failed} of ${r.requests} requests failed` : "");
