// The connection-strategy comparison: the same authenticated route at the same concurrency, per
// strategy in interleaved rounds, in bench/strategies/worker.ts. The route is GET /v1/agents (the
// key check from Redis, then one list query): since API keys are verified from Redis, GET /v1/me
// reads no database in the steady state, whatever the strategy. It runs on its own database (a
// fresh in-memory PGlite on the embedded backend; the same PostgreSQL on the real one) with its
// own SQL-over-HTTP endpoint (dev/sql-http.ts), so what the main cases did to the database cannot
// change the outcome. Each request's database traffic goes through counters: WebSocket
// connections at a counting proxy (bench/strategies/proxy.ts), SQL-over-HTTP requests at a
// counting forwarder (bench/counters.ts), except on the control row, which uses dev/ws-proxy.ts
// and dev/sql-http.ts directly to show what the counters cost.

import { runMigrations } from "../../dev/migrate";
import { type SqlHttp, startSqlHttp } from "../../dev/sql-http";
import type { Stack } from "../../dev/stack";
import { startWsProxy, type WsProxy } from "../../dev/ws-proxy";
import { send } from "../costs";
import { type CountingHttp, sqlStatements, startCountingHttp } from "../counters";
import { startEmbeddedDbProcess } from "../embedded-db";
import { type CaseResult, measure, type RawRun, summarize, warmUp } from "../load";
import { createBenchWorkspace, removeBenchWorkspace, seedAgents } from "../setup";
import { WorkerLog } from "../worker-log";
import { startStrategyWorker } from "./launch";
import { type CountingWsProxy, startCountingWsProxy } from "./proxy";
import type { Strategy } from "./worker";

export interface StrategyRow {
  strategy: Strategy;
  /** counting: bench/strategies/proxy.ts and a counting SQL-over-HTTP forwarder; dev: dev/ws-proxy.ts and dev/sql-http.ts, as the app worker uses them. */
  proxy: "counting" | "dev";
  description: string;
}

/** The route every strategy is measured on. */
export const STRATEGY_ROUTE = { label: "GET /v1/agents", path: "/v1/agents" };

export const STRATEGY_ROWS: StrategyRow[] = [
  {
    strategy: "http",
    proxy: "counting",
    description: "src/middleware/init.ts as it is: statements over SQL over HTTP, nothing opened per request",
  },
  {
    strategy: "pool",
    proxy: "counting",
    description: "the previous init.ts: Pool(max 1) per request, closed after the response and the deferred work",
  },
  { strategy: "client", proxy: "counting", description: "Client per request, closed after the response and all waitUntil work" },
  { strategy: "pool-early", proxy: "counting", description: "the first init.ts: Pool(max 1) per request, end() right after the response" },
  {
    strategy: "http",
    proxy: "dev",
    description: "control: src/middleware/init.ts straight to dev/sql-http.ts and dev/ws-proxy.ts (no counters)",
  },
];

export interface StrategyResult extends CaseResult, StrategyRow {
  /** req/s of each round, to show the spread. */
  roundRps: number[];
  /** Most database connections open at once in any round (WebSockets, counted at the proxy). */
  peakConnections: number | null;
  /** Per 1,000 responses: WebSocket connections opened and SQL-over-HTTP requests (null on the control row). */
  websocketsPerThousand: number | null;
  sqlHttpPerThousand: number | null;
  causes: Array<{ kind: string; count: number }>;
  /** POST /bench/deferred: did database work after the response complete, handed to c.var.defer or to waitUntil? */
  deferred: { defer: DeferredCheck; waitUntil: DeferredCheck } | null;
}

export interface DeferredCheck {
  requests: number;
  ok: number;
  failed: number;
  /** Neither ok nor failed a few seconds later: the promise never settled. */
  unsettled: number;
  errors: Record<string, number>;
}

/** Sends `requests` POST /bench/deferred one after another, then reads the worker's tally. */
async function checkDeferred(baseUrl: string, strategy: Strategy, via: "defer" | "waitUntil", requests: number): Promise<DeferredCheck> {
  const headers = { "x-bench-db": strategy };
  const read = async () => {
    const res = await fetch(`${baseUrl}/bench/deferred`, { headers, signal: AbortSignal.timeout(10_000) });
    const all = (await res.json()) as Record<string, { ok: number; failed: number; errors: Record<string, number> }>;
    return all[`${strategy}:${via}`] ?? { ok: 0, failed: 0, errors: {} };
  };
  const before = await read();
  for (let i = 0; i < requests; i++) {
    const res = await fetch(`${baseUrl}/bench/deferred?via=${via}`, { method: "POST", headers, signal: AbortSignal.timeout(10_000) });
    await res.arrayBuffer();
  }
  // Bounded wait for the waitUntil work to finish (it sleeps 20 ms, then one query).
  let after = await read();
  for (let i = 0; i < 20 && after.ok + after.failed - before.ok - before.failed < requests; i++) {
    await settle(250);
    after = await read();
  }
  const errors: Record<string, number> = {};
  for (const [k, n] of Object.entries(after.errors)) {
    const d = n - (before.errors[k] ?? 0);
    if (d > 0) errors[k] = d;
  }
  const ok = after.ok - before.ok;
  const failed = after.failed - before.failed;
  return { requests, ok, failed, unsettled: requests - ok - failed, errors };
}

export async function compareStrategies(opts: {
  stack: Stack;
  connections: number;
  /** Interleaved rounds, and seconds per strategy per round. */
  rounds: number;
  sliceSeconds: number;
  warmupSeconds: number;
  /** Requests for the deferred-work check, per strategy. */
  deferredRequests: number;
  /** Agents in the workspace, so the list query returns a page. */
  agents: number;
  /** Requests per strategy for the per-1,000 counts (10 at once). */
  countRequests: number;
  log: (line: string) => void;
}): Promise<StrategyResult[]> {
  const { stack, log } = opts;
  const stops: Array<() => Promise<void>> = [];
  try {
    let databaseUrl = stack.databaseUrl;
    if (stack.postgres === "pglite") {
      log("Strategies: starting a separate in-memory PGlite (in its own process, as the stack's)…");
      const pg = await startEmbeddedDbProcess();
      stops.push(() => pg.stop());
      databaseUrl = pg.url;
    }
    const target = new URL(databaseUrl);
    const hostPort = { host: target.hostname, port: Number(target.port || 5432) };
    const counting: CountingWsProxy = await startCountingWsProxy(hostPort);
    stops.push(() => counting.stop());
    const dev: WsProxy = await startWsProxy(hostPort);
    stops.push(() => dev.stop());
    const sqlHttp: SqlHttp = await startSqlHttp(hostPort);
    stops.push(() => sqlHttp.stop());
    const countingHttp: CountingHttp = await startCountingHttp(sqlHttp.url, sqlStatements);
    stops.push(() => countingHttp.stop());
    const countingAddr = `127.0.0.1:${counting.port}`;
    if (stack.postgres === "pglite") await runMigrations(databaseUrl, countingAddr);
    const ws = await createBenchWorkspace(databaseUrl, countingAddr);
    stops.push(() => removeBenchWorkspace(databaseUrl, countingAddr, ws));

    log("Strategies: starting bench/strategies/worker.ts under wrangler dev…");
    const workerLog = new WorkerLog();
    const worker = await startStrategyWorker(
      {
        ...stack.vars,
        DATABASE_URL: databaseUrl,
        DATABASE_WS_PROXY: countingAddr,
        DATABASE_HTTP_ENDPOINT: countingHttp.url,
        BENCH_DEV_WS_PROXY: `127.0.0.1:${dev.port}`,
        BENCH_DEV_HTTP_ENDPOINT: sqlHttp.url,
      },
      workerLog.push,
    );
    stops.push(() => worker.stop());
    log(`Strategies: seeding ${opts.agents} agents…`);
    await seedAgents(worker.baseUrl, ws.apiKey, opts.agents, () => undefined, { "x-bench-db": "http" });

    // Background load on a shared machine drifts over seconds, so the strategies run in
    // interleaved rounds (A B C D, A B C D, …) and each row merges its rounds.
    type Run = { raw: RawRun[]; peak: number | null; websockets: number; sqlHttp: number; causes: Map<string, number> };
    const runs = new Map<StrategyRow, Run>();
    for (const row of STRATEGY_ROWS) runs.set(row, { raw: [], peak: null, websockets: 0, sqlHttp: 0, causes: new Map() });
    const spec = (row: StrategyRow) => ({
      label: STRATEGY_ROUTE.label,
      url: worker.baseUrl + STRATEGY_ROUTE.path,
      headers: { authorization: `Bearer ${ws.apiKey}`, "x-bench-db": row.strategy, "x-bench-proxy": row.proxy },
    });
    if (opts.warmupSeconds > 0) {
      log("Strategies: warming up…");
      for (const row of STRATEGY_ROWS) await warmUp(spec(row), opts.warmupSeconds);
    }
    for (let round = 1; round <= opts.rounds; round++) {
      for (const row of STRATEGY_ROWS) {
        const run = runs.get(row);
        if (!run) continue;
        await settle(500); // the previous slice's waitUntil work
        const proxy = row.proxy === "counting" ? counting : null;
        proxy?.resetStats();
        countingHttp.reset();
        workerLog.take();
        const raw = await measure({ ...spec(row), connections: opts.connections, durationSeconds: opts.sliceSeconds });
        run.raw.push(raw);
        const stats = proxy?.stats();
        if (stats) run.peak = Math.max(run.peak ?? 0, stats.peak);
        for (const c of workerLog.take()) run.causes.set(c.kind, (run.causes.get(c.kind) ?? 0) + c.count);
        const rps = raw.seconds > 0 ? raw.latencies.length / raw.seconds : 0;
        log(
          `[round ${round}/${opts.rounds}] ${row.strategy} via ${row.proxy} proxy: ${rps.toFixed(1)} req/s, ` +
            `non-2xx ${raw.non2xx}, errors ${raw.errors}` +
            (stats ? `, peak ${stats.peak} db connections` : ""),
        );
      }
    }
    // What each strategy opens, counted over an exact number of requests (a timed slice stops with
    // requests in flight, which the counters would see and the response count would not).
    for (const row of STRATEGY_ROWS) {
      const run = runs.get(row);
      if (!run || row.proxy !== "counting") continue;
      await settle(500);
      counting.resetStats();
      countingHttp.reset();
      const { headers } = spec(row);
      await send(worker.baseUrl, STRATEGY_ROUTE.path, () => headers, opts.countRequests, 10);
      await settle(500); // deferred work and connections still closing
      run.websockets = counting.stats().opened;
      run.sqlHttp = countingHttp.counts().requests;
      log(
        `Strategies: ${row.strategy}: ${run.websockets} WebSocket connections, ${run.sqlHttp} SQL-over-HTTP requests for ${opts.countRequests} requests`,
      );
    }

    // Correctness, not speed: database work after the response, as webhook fan-out does.
    const deferredChecks = new Map<Strategy, { defer: DeferredCheck; waitUntil: DeferredCheck }>();
    for (const strategy of new Set(STRATEGY_ROWS.map((r) => r.strategy))) {
      const checks = {
        defer: await checkDeferred(worker.baseUrl, strategy, "defer", opts.deferredRequests),
        waitUntil: await checkDeferred(worker.baseUrl, strategy, "waitUntil", opts.deferredRequests),
      };
      deferredChecks.set(strategy, checks);
      for (const [via, check] of Object.entries(checks)) {
        log(
          `Deferred database work with ${strategy} via ${via}: ${check.ok}/${check.requests} completed` +
            (check.failed ? `, ${check.failed} failed (${Object.keys(check.errors)[0]})` : "") +
            (check.unsettled ? `, ${check.unsettled} never settled` : ""),
        );
      }
    }

    return STRATEGY_ROWS.map((row) => {
      const run = runs.get(row) ?? { raw: [], peak: null, websockets: 0, sqlHttp: 0, causes: new Map<string, number>() };
      const summary = summarize(STRATEGY_ROUTE.label, opts.connections, run.raw);
      const per = (n: number) =>
        row.proxy === "counting" && opts.countRequests > 0 ? Math.round((n * 1000 * 10) / opts.countRequests) / 10 : null;
      return {
        ...summary,
        ...row,
        roundRps: run.raw.map((r) => Math.round((r.seconds > 0 ? r.latencies.length / r.seconds : 0) * 10) / 10),
        peakConnections: run.peak,
        websocketsPerThousand: per(run.websockets),
        sqlHttpPerThousand: per(run.sqlHttp),
        deferred: deferredChecks.get(row.strategy) ?? null,
        causes: [...run.causes].map(([kind, count]) => ({ kind, count })).sort((a, b) => b.count - a.count),
      };
    });
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  }
}

const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));
