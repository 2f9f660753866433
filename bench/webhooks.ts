// Webhook benchmark (issue: "deliveries per second from one emit fanned out to 100 endpoints on
// a local receiver in direct mode, and the p50 cost of signing + logging per attempt, next to a
// bare fetch loop to the same receiver in the same run").
//
// emit() runs here in Node with the same code and the same Neon driver path the worker uses
// (statements over the stack's SQL-over-HTTP endpoint when it has one, as the worker's request
// scope does; else a WebSocket Pool through its proxy), against a receiver on 127.0.0.1.
import { createServer } from "node:http";
import { fileURLToPath } from "node:url";
import { type Stack, startStack } from "../dev/stack";
import { configureNeon, createDb, createHttpDb, type Db } from "../src/db/client";
import { parseEnv } from "../src/env";
import { mapLimit } from "../src/lib/concurrency";
import { createOrganizationWithAdmin } from "../src/organizations/service";
import { attemptDelivery } from "../src/webhooks/attempt";
import { emit, type WebhookDeps } from "../src/webhooks/deliver";
import { createEndpoint } from "../src/webhooks/endpoints";
import { signPayload } from "../src/webhooks/signature";
import { testEventData } from "../src/webhooks/test-payloads";
import { type CountingHttp, sqlStatements, startCountingHttp } from "./counters";
import { startEmbeddedDbProcess } from "./embedded-db";
import { percentile } from "./report";
import { startStrategyWorker } from "./strategies/launch";

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? Number.NaN;
};
const ms = (n: number) => `${n.toFixed(2)} ms`;

export interface WebhookBenchResult {
  endpoints: number;
  emits: number;
  deliveries: number;
  emitDeliveriesPerSecond: number;
  bareFetchPerSecond: number;
  ratio: number;
  attemptP50Ms: number;
  bareFetchP50Ms: number;
  signingLoggingP50Ms: number;
  signOnlyP50Ms: number;
  failed: number;
  /** The same fan-out in workerd (bench/strategies/worker.ts), where production runs it. */
  inWorker: InWorkerFanOut;
  /** How emit() reached Postgres: SQL over HTTP (the worker's path) or a WebSocket Pool of 6. */
  database: "sql-over-http" | "websocket-pool";
  /** Over the emits, counted at a forwarder in front of the SQL-over-HTTP endpoint (null on the WebSocket path). */
  sqlPerDelivery: { requests: number; statements: Record<string, number>; p50Ms: number } | null;
}

export async function runWebhookBench(
  stack: Stack,
  log: (line: string) => void,
  opts: { endpoints?: number; emits?: number } = {},
): Promise<WebhookBenchResult> {
  const endpointsCount = opts.endpoints ?? 100;
  const emits = opts.emits ?? 5;
  // In the worker each run is one emit and one bare loop of about 20 to 60 ms each, so three times
  // as many cost about a second more, and one slow emit weighs a third as much in the ratio.
  const workerRuns = emits * 3;
  let hits = 0;
  // How long the receiver takes to answer: 0 (loopback, the strictest) unless a run sets it.
  let receiverDelayMs = 0;
  // It answers with a Content-Length, as Express, Fastify, Hono and a Worker do for a short body (a
  // bare Node server that calls writeHead first answers chunked).
  const receiver = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      hits++;
      const answer = () => res.writeHead(200, { "content-type": "text/plain", "content-length": "2" }).end("ok");
      if (receiverDelayMs > 0) setTimeout(answer, receiverDelayMs);
      else answer();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  const port = (receiver.address() as { port: number }).port;
  const url = `http://127.0.0.1:${port}/hook`;

  const endpoint = stack.vars.DATABASE_HTTP_ENDPOINT;
  // The statements go through a counting forwarder, to say what one delivery costs in requests.
  const counter: CountingHttp | null = endpoint ? await startCountingHttp(endpoint, sqlStatements) : null;
  const config = parseEnv({
    ...stack.vars,
    WEBHOOKS_ALLOW_PRIVATE_URLS: "1",
    ...(counter && { DATABASE_HTTP_ENDPOINT: counter.url }),
  });
  let db: Db;
  let close = async () => {
    await counter?.stop();
    // neonConfig is global to this process: point it back at the stack's endpoint.
    if (endpoint) configureNeon({ DATABASE_HTTP_ENDPOINT: endpoint });
  };
  const database = counter ? "sql-over-http" : "websocket-pool";
  if (counter) db = createHttpDb(config);
  else {
    const opened = createDb(stack.databaseUrl, stack.wsProxy, 6);
    db = opened.db;
    close = () => opened.pool.end();
  }
  try {
    const pending: Promise<unknown>[] = [];
    const deps: WebhookDeps = { db, config, waitUntil: (p) => pending.push(p) };
    const { organization } = await createOrganizationWithAdmin({
      ctx: { db },
      input: { organizationName: "bench", email: `bench-${Date.now()}@example.test`, password: "bench-password" },
    });
    log(`webhooks: creating ${endpointsCount} endpoints on a local receiver…`);
    await mapLimit(
      Array.from({ length: endpointsCount }, (_, i) => i),
      6,
      (i) =>
        createEndpoint({
          ctx: { db, organizationId: organization.id, config },
          input: {
            name: `bench ${i}`,
            description: null,
            url,
            active: true,
            useTestReceiver: false,
            testUrl: null,
            testMode: false,
            channels: ["voice"],
            events: "all",
            payloadMode: "all",
            customFields: [],
          },
        }),
    );
    const data = testEventData("call.completed");
    const body = JSON.stringify({ deliveryId: "x", event: "call.completed", ...data });

    // Baseline: a bare fetch loop to the same receiver, same concurrency (6), same body size.
    log("webhooks: bare fetch baseline…");
    const bareTimes: number[] = [];
    const bareStart = performance.now();
    await mapLimit(Array.from({ length: endpointsCount * emits }), 6, async () => {
      const t0 = performance.now();
      const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body });
      await res.text();
      bareTimes.push(performance.now() - t0);
    });
    const bareSeconds = (performance.now() - bareStart) / 1000;

    // emit(): fan-out to every endpoint, direct mode (sign, POST, record each attempt).
    log(`webhooks: ${emits} emits × ${endpointsCount} endpoints…`);
    hits = 0;
    let deliveries = 0;
    counter?.reset();
    const emitStart = performance.now();
    for (let i = 0; i < emits; i++) {
      const r = await emit(deps, { organizationId: organization.id, event: "call.completed", data });
      deliveries += r.deliveryIds.length;
      await Promise.all(pending.splice(0));
    }
    const emitSeconds = (performance.now() - emitStart) / 1000;
    const sql = counter?.counts();
    const emitHits = hits;

    // The same fan-out in workerd, where production runs it: emit() behind the app's request
    // scope (SQL over HTTP) against a bare fetch loop in the same runtime, each answered when done.
    let failed = 0;
    log("webhooks: the same in a worker (workerd)…");
    const inWorker = await fanOutInWorker(stack, log, {
      url,
      body,
      organizationId: organization.id,
      endpoints: endpointsCount,
      emits: workerRuns,
      hits: () => hits,
      receiverDelay: (ms) => {
        receiverDelayMs = ms;
      },
    });
    if (inWorker.failed > 0) failed += inWorker.failed;

    // Per attempt: the whole attempt (load, sign, POST, record) against the bare fetch.
    log("webhooks: per-attempt cost…");
    const sample = await emit({ ...deps, waitUntil: () => undefined }, { organizationId: organization.id, event: "call.completed", data });
    const attemptTimes: number[] = [];
    for (const id of sample.deliveryIds) {
      const t0 = performance.now();
      const result = await attemptDelivery(deps, id, "resend");
      attemptTimes.push(performance.now() - t0);
      if (!result.ok) failed++;
    }
    const sequentialBare: number[] = [];
    for (let i = 0; i < sample.deliveryIds.length; i++) {
      const t0 = performance.now();
      await (await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body })).text();
      sequentialBare.push(performance.now() - t0);
    }
    const signTimes: number[] = [];
    for (let i = 0; i < 1000; i++) {
      const t0 = performance.now();
      await signPayload("whs_benchmarksecretbenchmarksecret0123456", body);
      signTimes.push(performance.now() - t0);
    }
    if (emitHits < deliveries) failed += deliveries - emitHits;

    const result: WebhookBenchResult = {
      endpoints: endpointsCount,
      emits,
      deliveries,
      emitDeliveriesPerSecond: deliveries / emitSeconds,
      bareFetchPerSecond: (endpointsCount * emits) / bareSeconds,
      ratio: deliveries / emitSeconds / ((endpointsCount * emits) / bareSeconds),
      attemptP50Ms: pct(attemptTimes, 50),
      bareFetchP50Ms: pct(sequentialBare, 50),
      signingLoggingP50Ms: pct(attemptTimes, 50) - pct(sequentialBare, 50),
      signOnlyP50Ms: pct(signTimes, 50),
      failed,
      inWorker,
      database,
      sqlPerDelivery:
        sql && deliveries > 0
          ? {
              requests: sql.requests / deliveries,
              statements: Object.fromEntries(Object.entries(sql.byName).map(([verb, n]) => [verb, n / deliveries])),
              p50Ms: percentile(sql.upstreamMs, 50),
            }
          : null,
    };
    log("");
    for (const line of webhookLines(result)) log(line);
    return result;
  } finally {
    await close();
    await new Promise<void>((r) => receiver.close(() => r()));
  }
}

export interface InWorkerFanOut {
  emitDeliveriesPerSecond: number;
  bareFetchPerSecond: number;
  ratio: number;
  /** Per emit of `endpoints`, and per bare loop of as many POSTs, ms: p50 of `emits` runs each. */
  emitP50Ms: number;
  bareP50Ms: number;
  failed: number;
  /** The same with a receiver that answers after `delayMs`. */
  slowReceiver: {
    delayMs: number;
    emitDeliveriesPerSecond: number;
    bareFetchPerSecond: number;
    ratio: number;
    emitP50Ms: number;
    bareP50Ms: number;
  };
}

/**
 * A receiver that answers after this long: one that acknowledges at once and works afterwards, in
 * the worker's region. An assumption, not a published figure: a loopback receiver (0 ms) puts every
 * database round trip of the fan-out against nothing, a slower one hides them.
 */
const SLOW_RECEIVER_MS = 50;

/**
 * One emit → every endpoint, and a bare loop of as many POSTs, each run `emits` times alternately
 * inside a bench worker (workerd, the app's request scope over SQL over HTTP), timed at the client
 * from request to answer; the routes answer once every POST is done (and, for emit, recorded).
 */
async function fanOutInWorker(
  stack: Stack,
  log: (line: string) => void,
  o: {
    url: string;
    body: string;
    organizationId: string;
    endpoints: number;
    emits: number;
    hits: () => number;
    receiverDelay: (ms: number) => void;
  },
): Promise<InWorkerFanOut> {
  const worker = await startStrategyWorker({ ...stack.vars, WEBHOOKS_ALLOW_PRIVATE_URLS: "1" }, () => {});
  try {
    const post = async (path: string, body = "") => {
      const t0 = performance.now();
      const res = await fetch(`${worker.baseUrl}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body });
      const text = await res.text();
      if (!res.ok) throw new Error(`${path} answered ${res.status}: ${text.slice(0, 300)}`);
      return { ms: performance.now() - t0, json: JSON.parse(text) as { sent: number; failed?: number } };
    };
    const bare = `/bench/fanout/bare?n=${o.endpoints}&url=${encodeURIComponent(o.url)}`;
    const emitPath = `/bench/fanout/emit?organizationId=${o.organizationId}`;
    // Warm-up: the isolate, its connections, the endpoints' signing keys.
    await post(bare, o.body);
    await post(emitPath);
    let failed = 0;
    const run = async (delayMs: number, times: number) => {
      o.receiverDelay(delayMs);
      const bareMs: number[] = [];
      const emitMs: number[] = [];
      try {
        for (let i = 0; i < times; i++) {
          const b = await post(bare, o.body);
          bareMs.push(b.ms);
          failed += b.json.failed ?? 0;
          const before = o.hits();
          const e = await post(emitPath);
          emitMs.push(e.ms);
          // Every delivery reached the receiver before the route answered.
          failed += Math.max(0, o.endpoints - (o.hits() - before)) + Math.max(0, o.endpoints - e.json.sent);
        }
      } finally {
        o.receiverDelay(0);
      }
      const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
      const emitPerSecond = (o.endpoints * times) / (sum(emitMs) / 1000);
      const barePerSecond = (o.endpoints * times) / (sum(bareMs) / 1000);
      log(
        `webhooks: in a worker, receiver answering after ${delayMs} ms, ${times} × (bare loop, emit): ` +
          `${bareMs.map((m) => m.toFixed(0)).join(" ")} · ${emitMs.map((m) => m.toFixed(0)).join(" ")} ms`,
      );
      return {
        emitDeliveriesPerSecond: emitPerSecond,
        bareFetchPerSecond: barePerSecond,
        ratio: emitPerSecond / barePerSecond,
        emitP50Ms: pct(emitMs, 50),
        bareP50Ms: pct(bareMs, 50),
      };
    };
    const loopback = await run(0, o.emits);
    const slowReceiver = await run(SLOW_RECEIVER_MS, Math.min(o.emits, 3));
    return { ...loopback, failed, slowReceiver: { delayMs: SLOW_RECEIVER_MS, ...slowReceiver } };
  } finally {
    await worker.stop();
  }
}

/** The fan-out, its ratio to the bare fetch loop, and the per-attempt cost, as printed. */
export function webhookLines(r: WebhookBenchResult): string[] {
  return [
    `Webhooks (direct mode, one emit fanned out to endpoints on 127.0.0.1; database: ${r.database.replaceAll("-", " ")})`,
    `  in a worker (workerd, where production runs it): emit → ${r.endpoints} endpoints ${r.inWorker.emitDeliveriesPerSecond.toFixed(0)} deliveries/s (p50 ${r.inWorker.emitP50Ms.toFixed(0)} ms an emit); bare fetch loop ${r.inWorker.bareFetchPerSecond.toFixed(0)} requests/s (p50 ${r.inWorker.bareP50Ms.toFixed(0)} ms); ratio ${r.inWorker.ratio.toFixed(2)}×`,
    `    with a receiver that answers after ${r.inWorker.slowReceiver.delayMs} ms: ${r.inWorker.slowReceiver.emitDeliveriesPerSecond.toFixed(0)} deliveries/s (p50 ${r.inWorker.slowReceiver.emitP50Ms.toFixed(0)} ms an emit); bare loop ${r.inWorker.slowReceiver.bareFetchPerSecond.toFixed(0)} requests/s (p50 ${r.inWorker.slowReceiver.bareP50Ms.toFixed(0)} ms); ratio ${r.inWorker.slowReceiver.ratio.toFixed(2)}×`,
    `  in Node (emit() called from the bench's process, same code and driver):`,
    `  emit → ${r.endpoints} endpoints, ${r.emits} times: ${r.deliveries} deliveries, ${r.emitDeliveriesPerSecond.toFixed(0)} deliveries/s`,
    `  bare fetch loop, same receiver, same concurrency: ${r.bareFetchPerSecond.toFixed(0)} requests/s`,
    `  ratio, emit deliveries/s ÷ bare fetch requests/s: ${r.ratio.toFixed(2)}×`,
    `  per attempt p50: ${ms(r.attemptP50Ms)} (bare fetch p50 ${ms(r.bareFetchP50Ms)}); signing + logging ≈ ${ms(r.signingLoggingP50Ms)}`,
    `  HMAC signing alone p50: ${ms(r.signOnlyP50Ms)}`,
    ...(r.sqlPerDelivery
      ? [
          `  SQL over HTTP per delivery: ${r.sqlPerDelivery.requests.toFixed(2)} requests (${Object.entries(r.sqlPerDelivery.statements)
            .map(([verb, n]) => `${verb} ${n.toFixed(2)}`)
            .join(", ")}), p50 ${ms(r.sqlPerDelivery.p50Ms)} each (emit's own statements included)`,
        ]
      : []),
    `  failed deliveries: ${r.failed}`,
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // As bench/run.ts: the embedded database in its own process (bench/embedded-db.ts), unless DATABASE_URL.
  const db = process.env.DATABASE_URL ? undefined : await startEmbeddedDbProcess();
  try {
    const stack = await startStack({
      databaseUrl: process.env.DATABASE_URL ?? db?.url,
      redisUrl: process.env.REDIS_URL,
      log: console.log,
      vars: { WEBHOOKS_ALLOW_PRIVATE_URLS: "1" },
    });
    try {
      const result = await runWebhookBench(stack, console.log, { emits: process.argv.includes("--quick") ? 1 : 5 });
      if (result.failed > 0) process.exitCode = 1;
    } finally {
      await stack.stop();
    }
  } finally {
    await db?.stop();
  }
}
