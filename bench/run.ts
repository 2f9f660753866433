// `npm run bench`: the foundation's performance on the local stack, in one run.
//
//   npm run bench                      embedded stack (PGlite in memory, in-memory Redis bridge)
//   DATABASE_URL=… REDIS_URL=… npm run bench   the same on real PostgreSQL / Redis
//   npm run bench -- --quick           1 s per case: a smoke run
//   npm run bench -- --only calls      one part only (routes, strategies, webhooks, models, messaging, calls, agent-tests, tools, knowledge, campaigns, dashboard)
//
// It starts the stack (dev/stack.ts), measures on a worker of the same build started without
// wrangler's inspector and file watcher (bench/worker-launch.ts), creates a workspace
// and an API key, seeds agents through POST /v1/agents, warms up, then measures GET /health
// (the baseline), GET /v1/me and GET /v1/agents at 1, 10 and 50 connections with autocannon,
// then counts what each route costs at the wire (bench/costs.ts: Postgres WebSocket connections,
// SQL-over-HTTP requests and Redis requests per 1,000 requests, at counting forwarders in front
// of a second worker), compares database connection strategies at 50 connections
// (bench/strategies/), webhook fan-out (bench/webhooks.ts), Models API overhead (bench/models.ts),
// messaging channels (bench/messaging.ts: inbound message → reply next to the bare LLM call, and
// conversations at once with every reply checked) and live phone calls (bench/calls.ts:
// voice-to-voice latency and how many simultaneous calls the stack holds), voice-mode agent test
// runs (bench/agent-tests.ts: their voice to voice next to a bare web-call loop), knowledge bases
// (bench/knowledge.ts: retrieval over 10,000 passages and what it adds to a turn, a 100-page PDF's
// ingestion, the question set) and the dashboard's pages. Last, a verdict per
// target of the issues (bench/targets.ts): met or not, with the figures. Exit status 1 when any
// measured request of the main cases failed (non-2xx, socket error or timeout), a webhook delivery
// failed, a messaging reply was lost, duplicated or out of order (or its transcript did not match),
// or a conversation call did not end as it should, or a knowledge check failed (a missed target alone does not), 2 when the
// bench itself could not run.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { type Stack, startStack } from "../dev/stack";
import { AGENT_TESTS_DEFAULTS, AGENT_TESTS_QUICK, type AgentTestsBenchResult, agentTestsLines, runAgentTestsBench } from "./agent-tests";
import { type CallsBenchResult, DEFAULTS, QUICK, runCallsBench } from "./calls";
import { CAMPAIGN_DEFAULTS, CAMPAIGN_QUICK, type CampaignBenchResult, campaignLines, runCampaignBench } from "./campaigns";
import { type CostsResult, measureCosts } from "./costs";
import { DASHBOARD_DEFAULTS, DASHBOARD_QUICK, type DashboardBenchResult, dashboardLines, runDashboardBench } from "./dashboard";
import { type EmbeddedDbProcess, startEmbeddedDbProcess } from "./embedded-db";
import {
  KNOWLEDGE_DEFAULTS,
  KNOWLEDGE_GOALS,
  KNOWLEDGE_QUICK,
  type KnowledgeBenchResult,
  knowledgeLines,
  runKnowledgeBench,
} from "./knowledge";
import { type CaseResult, failures, measure, type RawRun, summarize, warmUp } from "./load";
import {
  concurrencyLines,
  latencyLines,
  MESSAGING_DEFAULTS,
  MESSAGING_QUICK,
  type MessagingBenchResult,
  roundFailed,
  runMessagingBench,
} from "./messaging";
import { type ModelsBenchResult, modelsTable, runModelsBench } from "./models";
import { casesTable, costsTable, describeMachine, round, strategiesTable, withRatios } from "./report";
import { createBenchWorkspace, removeBenchWorkspace, routeStatus, seedAgents } from "./setup";
import { compareStrategies, STRATEGY_ROUTE, type StrategyResult } from "./strategies/compare";
import { startStrategyWorker } from "./strategies/launch";
import { FLOOR_LABEL, FLOOR2_LABEL, floorLine, judge, messagingLine, verdictLines } from "./targets";
import { runToolsBench, type ToolsBenchResult, toolsLines } from "./tools";
import { runWebhookBench, type WebhookBenchResult, webhookLines } from "./webhooks";
import { startBenchWorker } from "./worker-launch";
import { WorkerLog } from "./worker-log";

const PARTS = [
  "routes",
  "strategies",
  "webhooks",
  "models",
  "messaging",
  "calls",
  "agent-tests",
  "tools",
  "knowledge",
  "campaigns",
  "dashboard",
] as const;
type Part = (typeof PARTS)[number];

const HELP = `Usage: npm run bench -- [options]
  --quick               1 s per case (smoke run)
  --duration <s>        seconds per route case (default 5), measured in --rounds slices
  --rounds <n>          slices per route case, alternating with the other routes' (default 3; 1 with --quick)
  --connections <list>  comma-separated concurrency levels (default 1,10,50)
  --agents <n>          agents to seed before GET /v1/agents (default 50)
  --cost-requests <n>   requests per route for the per-1,000 counts (default 1000, --quick 200)
  --no-strategies       skip the connection-strategy comparison
  --only <list>         comma-separated parts to run: ${PARTS.join(",")} (default all)
  --messaging-users <n> messaging latency: users one after another, two texts each (default ${MESSAGING_DEFAULTS.users}, --quick ${MESSAGING_QUICK.users})
  --messaging-concurrent <n>  messaging conversations at once (default ${MESSAGING_DEFAULTS.concurrent})
  --call-runs <n>       conversation calls one after another for voice-to-voice (default ${DEFAULTS.runs}, --quick ${QUICK.runs}; env BENCH_CALL_RUNS)
  --call-levels <list>  simultaneous calls to ramp through (default ${DEFAULTS.levels}, --quick ${QUICK.levels}; env BENCH_CALL_LEVELS)
Environment: DATABASE_URL (real PostgreSQL) and REDIS_URL (real Redis) replace the embedded servers.`;

const parse = () =>
  parseArgs({
    options: {
      quick: { type: "boolean", default: false },
      duration: { type: "string" },
      rounds: { type: "string" },
      connections: { type: "string", default: "1,10,50" },
      agents: { type: "string", default: "50" },
      "cost-requests": { type: "string" },
      "no-strategies": { type: "boolean", default: false },
      only: { type: "string" },
      "messaging-users": { type: "string" },
      "messaging-concurrent": { type: "string" },
      "call-runs": { type: "string" },
      "call-levels": { type: "string" },
      help: { type: "boolean", default: false },
    },
  }).values;
let args: ReturnType<typeof parse>;
try {
  args = parse();
} catch (err) {
  console.error(`${(err as Error).message}\n\n${HELP}`);
  process.exit(2);
}
if (args.help) {
  console.log(HELP);
  process.exit(0);
}

const durationSeconds = Number(args.duration ?? (args.quick ? 1 : 5));
const rounds = Number(args.rounds ?? (args.quick ? 1 : 3));
const warmupSeconds = args.quick ? 0.5 : 1;
const connectionLevels = String(args.connections)
  .split(",")
  .map((s) => Number(s.trim()))
  .filter((n) => Number.isInteger(n) && n > 0);
const agentCount = Math.max(0, Math.min(500, Number(args.agents)));
const costRequests = Number(args["cost-requests"] ?? (args.quick ? 200 : 1000));
const COST_CONNECTIONS = 10;
const STRATEGY_CONNECTIONS = 50;
const only = args.only === undefined ? undefined : args.only.split(",").map((s) => s.trim());
const parts = new Set<Part>(
  only ? PARTS.filter((p) => only.includes(p)) : PARTS.filter((p) => p !== "strategies" || !args["no-strategies"]),
);
const messagingDefaults = args.quick ? MESSAGING_QUICK : MESSAGING_DEFAULTS;
const messagingUsers = Number(args["messaging-users"] ?? messagingDefaults.users);
const messagingConcurrent = Number(args["messaging-concurrent"] ?? messagingDefaults.concurrent);
const callDefaults = args.quick ? QUICK : DEFAULTS;
const callRuns = Number(args["call-runs"] ?? process.env.BENCH_CALL_RUNS ?? (args.quick ? QUICK : DEFAULTS).runs);
const callLevels = String(args["call-levels"] ?? process.env.BENCH_CALL_LEVELS ?? (args.quick ? QUICK : DEFAULTS).levels.join(","))
  .split(",")
  .map((s) => Number(s.trim()));
if (
  !(durationSeconds > 0 && durationSeconds <= 60) ||
  !(Number.isInteger(rounds) && rounds >= 1 && rounds <= 10) ||
  connectionLevels.length === 0 ||
  !Number.isFinite(agentCount) ||
  !(Number.isInteger(costRequests) && costRequests >= 0 && costRequests <= 100_000) ||
  only?.some((p) => !PARTS.includes(p as Part)) ||
  !(Number.isInteger(messagingUsers) && messagingUsers >= 0 && messagingUsers <= 500) ||
  !(Number.isInteger(messagingConcurrent) && messagingConcurrent >= 0 && messagingConcurrent <= 500) ||
  !(Number.isInteger(callRuns) && callRuns >= 0 && callRuns <= 100) ||
  callLevels.some((n) => !(Number.isInteger(n) && n > 0 && n <= 200)) ||
  callLevels.some((n, i) => i > 0 && n <= (callLevels[i - 1] as number))
) {
  console.error(HELP);
  process.exit(2);
}

// The whole run is bounded too: a hang anywhere ends it with a clear message. Every part on this
// 2-core machine takes about 20 minutes (the calls part alone 11 to 13); the bound leaves room for a
// slower machine.
const HARD_LIMIT_MS = 45 * 60_000;
const watchdog = setTimeout(() => {
  console.error(`bench: gave up after ${HARD_LIMIT_MS / 60_000} minutes`);
  process.exit(2);
}, HARD_LIMIT_MS);
watchdog.unref();

/** biome.json lints bench/**, JSON included: format the results as biome would, so `npm run lint` stays clean. */
function formatJson(files: string[]): void {
  const biome = fileURLToPath(new URL("../node_modules/@biomejs/biome/bin/biome", import.meta.url));
  if (existsSync(biome)) spawnSync(process.execPath, [biome, "format", "--write", ...files], { stdio: "ignore", timeout: 30_000 });
}

const started = Date.now();
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(0).padStart(3)} s`;
const log = (line: string) => console.log(`[${elapsed()}] ${line}`);

const machine = describeMachine();
const backend = process.env.DATABASE_URL || process.env.REDIS_URL ? "real" : "embedded";
console.log(`Benchmark, ${new Date().toISOString()}`);
console.log(
  `Machine: ${machine.cores} cores (${machine.cpuModel}), ${machine.memoryGiB} GiB, Node ${machine.node}, ${machine.os}, load average ${machine.loadAverage.start}`,
);
console.log(
  `Backend: Postgres ${process.env.DATABASE_URL ? `real (${new URL(process.env.DATABASE_URL).host}, DATABASE_URL)` : "embedded PGlite (in memory)"}, ` +
    `Redis ${process.env.REDIS_URL ? `real (${new URL(process.env.REDIS_URL).host}, REDIS_URL)` : "in-memory bridge"}`,
);
const want = (part: Part) => parts.has(part);
const toolRuns = args.quick ? 20 : 100;
const plan = [
  want("routes") &&
    `routes: ${durationSeconds} s per case in ${rounds} interleaved round${rounds === 1 ? "" : "s"}${args.quick ? " (--quick)" : ""}, connections ${connectionLevels.join("/")}` +
      (costRequests > 0 ? `, then ${costRequests} requests per route counted at the forwarders` : ""),
  want("strategies") && `strategy comparison at ${STRATEGY_CONNECTIONS}`,
  want("webhooks") && "webhooks",
  want("models") && "models",
  want("messaging") &&
    `messaging: ${messagingUsers} users one after another, then ${messagingConcurrent} conversations at once, ${messagingDefaults.messagesEach} messages each`,
  want("calls") &&
    `calls: ${callRuns} in a row per voice loop, ${callDefaults.webRuns} web conversation(s), ${callDefaults.bargeTries} + ${callDefaults.bargeTries} barge-in tries, then ${callLevels.join("/")} at once`,
  want("agent-tests") &&
    `agent-tests: ${(args.quick ? AGENT_TESTS_QUICK : AGENT_TESTS_DEFAULTS).runs} voice-mode runs next to as many bare web calls (realistic profile)`,
  want("tools") && `tools: ${toolRuns} widget chats with one tool call each`,
  want("knowledge") &&
    `knowledge: ${(args.quick ? KNOWLEDGE_QUICK : KNOWLEDGE_DEFAULTS).passages} passages seeded, ${(args.quick ? KNOWLEDGE_QUICK : KNOWLEDGE_DEFAULTS).runs} queries, a 100-page PDF, 30 questions`,
  want("campaigns") &&
    `campaigns: ${(args.quick ? CAMPAIGN_QUICK : CAMPAIGN_DEFAULTS).recipients} recipients at ${(args.quick ? CAMPAIGN_QUICK : CAMPAIGN_DEFAULTS).inFlight} in flight, a worker restart halfway`,
  want("dashboard") &&
    `dashboard: ${(args.quick ? DASHBOARD_QUICK : DASHBOARD_DEFAULTS).calls} calls seeded, ${(args.quick ? DASHBOARD_QUICK : DASHBOARD_DEFAULTS).runs} requests per page`,
].filter(Boolean);
console.log(`Plan: ${plan.join("; ")}\n`);

let stack: Stack | undefined;
let exitCode = 0;
let cleanup: (() => Promise<void>) | undefined;
let stopFloor: (() => Promise<void>) | undefined;
let stopMeasured: (() => Promise<void>) | undefined;
let embeddedDb: EmbeddedDbProcess | undefined;
try {
  const workerLog = new WorkerLog();
  if (!process.env.DATABASE_URL) {
    log("Postgres: starting embedded PGlite (in memory) in its own process (bench/embedded-db.ts)…");
    embeddedDb = await startEmbeddedDbProcess();
  }
  stack = await startStack({
    databaseUrl: process.env.DATABASE_URL ?? embeddedDb?.url,
    redisUrl: process.env.REDIS_URL,
    // The limiters still run on every /v1 and widget request (their cost is measured) but never reject.
    vars: {
      RATE_LIMIT_REQUESTS: "100000000",
      WIDGET_RATE_LIMIT_ADDRESS: "100000000",
      WIDGET_RATE_LIMIT_VISITOR: "100000000",
      WIDGET_RATE_LIMIT_WIDGET: "100000000",
    },
    log,
    workerLog: workerLog.push,
  });
  // The figures are taken on a second worker of the same build, with the stack's variables but
  // without wrangler's inspector (a per-subrequest tax no deployed Worker pays) and without its
  // file watcher: bench/worker-launch.ts. The stack's own worker stays up, idle.
  log(
    `Worker: starting the measured worker (bench/worker-launch.ts: no inspector, no file watching; ${
      process.env.BENCH_WORKER_DIRECT === "1"
        ? "requests go to the worker's runtime, BENCH_WORKER_DIRECT=1"
        : "requests go through wrangler's proxy worker"
    })…`,
  );
  const measured = await startBenchWorker(stack.vars, { workerLog: workerLog.push });
  stopMeasured = measured.stop;
  stack = { ...stack, baseUrl: measured.baseUrl, ...(embeddedDb && { postgres: "pglite" as const }) };
  log(`Stack up: worker ${stack.baseUrl}, Postgres ${stack.postgres}, Redis ${stack.redis.backend}`);

  log("Creating the benchmark workspace and API key…");
  const ws = await createBenchWorkspace(stack.databaseUrl, stack.wsProxy);
  const { databaseUrl, wsProxy } = stack;
  cleanup = () => removeBenchWorkspace(databaseUrl, wsProxy, ws);
  const auth = { authorization: `Bearer ${ws.apiKey}` };
  const baseUrl = stack.baseUrl;

  let hasAgents = false;
  const routes: Array<{ label: string; path: string; headers: Record<string, string>; baseUrl?: string }> = [];
  const cases: Array<CaseResult & { causes: Array<{ kind: string; count: number }> }> = [];
  let costs: CostsResult | undefined;
  if (want("routes")) {
    const agentsStatus = await routeStatus(stack.baseUrl, "/v1/agents", ws.apiKey);
    hasAgents = agentsStatus !== 404;
    if (!hasAgents) log("GET /v1/agents answers 404: the route is not there yet, its cases are SKIPPED.");
    else if (agentCount > 0) {
      log(`Seeding ${agentCount} agents through POST /v1/agents…`);
      await seedAgents(stack.baseUrl, ws.apiKey, agentCount, (n) => log(`  ${n}/${agentCount} agents`));
    }

    // The floors of routes with one and two round trips: a bench-only worker's routes that make one
    // bare fetch() to the Upstash bridge (PING), and that then one to the SQL-over-HTTP endpoint
    // (select 1), and nothing else, under the same workerd.
    log(
      "Starting the floor worker (bench/strategies/worker.ts: GET /bench/subrequest and /bench/subrequests2, one and two bare subrequests)…",
    );
    const floor = await startStrategyWorker(stack.vars, workerLog.push);
    stopFloor = floor.stop;
    routes.push(
      { label: "GET /health", path: "/health", headers: {} },
      { label: "GET /v1/me", path: "/v1/me", headers: auth },
      ...(hasAgents ? [{ label: "GET /v1/agents", path: "/v1/agents", headers: auth }] : []),
      { label: FLOOR_LABEL, path: "/bench/subrequest", headers: {}, baseUrl: floor.baseUrl },
      { label: FLOOR2_LABEL, path: "/bench/subrequests2", headers: {}, baseUrl: floor.baseUrl },
    );

    log(`Warming up (${warmupSeconds} s per route)…`);
    for (const r of routes) {
      const w = await warmUp({ label: r.label, url: (r.baseUrl ?? baseUrl) + r.path, headers: r.headers }, warmupSeconds);
      if (failures(w) > 0) log(`  warm-up of ${r.label}: ${w.non2xx} non-2xx, ${w.errors} errors (${JSON.stringify(w.statusCodes)})`);
    }
    workerLog.take();

    // Concurrency outer, then rounds, route inner: each case is measured in `rounds` slices that
    // alternate with the other routes' (its baseline's among them), so a drift of the machine over
    // the run weighs on every route alike instead of on whichever ran during it.
    const sliceSeconds = durationSeconds / rounds;
    let step = 0;
    const steps = connectionLevels.length * rounds * routes.length;
    for (const connections of connectionLevels) {
      const runs = new Map<string, { raw: RawRun[]; causes: Array<{ kind: string; count: number }> }>();
      for (let pass = 1; pass <= rounds; pass++) {
        for (const r of routes) {
          step++;
          log(
            `[${step}/${steps}] ${r.label} × ${connections} connections, ${rounds > 1 ? `round ${pass} of ${rounds}, ` : ""}${round(sliceSeconds, 2)} s…`,
          );
          await new Promise((resolve) => setTimeout(resolve, 500)); // let the previous slice's waitUntil work finish
          workerLog.take();
          const raw = await measure({
            label: r.label,
            url: (r.baseUrl ?? baseUrl) + r.path,
            headers: r.headers,
            connections,
            durationSeconds: sliceSeconds,
          });
          const seen = runs.get(r.label) ?? { raw: [], causes: [] };
          seen.raw.push(raw);
          seen.causes.push(...workerLog.take());
          runs.set(r.label, seen);
          const slice = summarize(r.label, connections, [raw]);
          log(`    ${slice.rps.toFixed(1)} req/s, p50 ${slice.p50.toFixed(1)} ms, p99 ${slice.p99.toFixed(1)} ms`);
        }
      }
      for (const r of routes) {
        const seen = runs.get(r.label);
        if (!seen) continue;
        const result = summarize(r.label, connections, seen.raw);
        cases.push({ ...result, causes: WorkerLog.merge(seen.causes) });
        const bad =
          failures(result) > 0
            ? `  FAILED: ${result.total === 0 ? "no response at all, " : ""}${JSON.stringify(result.statusCodes)}, timeouts ${result.timeouts}`
            : "";
        log(
          `  ${r.label} × ${connections}${rounds > 1 ? `, ${rounds} rounds together` : ""}: ${result.rps.toFixed(1)} req/s, p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms, non-2xx ${result.non2xx}, errors ${result.errors}${bad}`,
        );
      }
    }

    await stopFloor?.();
    stopFloor = undefined;
    if (costRequests > 0) {
      log(`Per-route costs at the wire: ${costRequests} requests per route at ${COST_CONNECTIONS} connections (bench/costs.ts)…`);
      workerLog.take();
      const chat = JSON.stringify({
        model: "sandbox-chat",
        messages: [{ role: "user", content: "What are your opening hours on Saturday?" }],
        max_tokens: 64,
      });
      costs = await measureCosts({
        stack,
        ws,
        routes: [
          ...routes.filter((r) => r.baseUrl === undefined),
          ...(stack.provider.sandbox
            ? [
                {
                  label: "POST /v1/llm/chat",
                  path: "/v1/llm/chat",
                  method: "POST" as const,
                  body: chat,
                  headers: { ...auth, "content-type": "application/json" },
                  maxRequests: 200,
                },
              ]
            : []),
        ],
        requests: costRequests,
        concurrency: COST_CONNECTIONS,
        coldKeys: args.quick ? 10 : 50,
        log,
        workerLog: workerLog.push,
      });
      const causes = workerLog.take();
      if (costs.rows.some((r) => r.failed > 0)) for (const c of causes.slice(0, 5)) log(`  ${String(c.count).padStart(6)} × ${c.kind}`);
    }
  }

  let strategies: StrategyResult[] = [];
  if (want("strategies")) {
    log(`Connection strategies at ${STRATEGY_CONNECTIONS} connections (bench/strategies/)…`);
    strategies = await compareStrategies({
      stack,
      connections: STRATEGY_CONNECTIONS,
      rounds: args.quick ? 1 : 3,
      sliceSeconds: args.quick ? 1 : 2,
      warmupSeconds,
      deferredRequests: args.quick ? 10 : 30,
      agents: Math.min(agentCount, 50),
      countRequests: args.quick ? 100 : 200,
      log,
    });
  }
  let webhooks: WebhookBenchResult | undefined;
  if (want("webhooks")) {
    log("Webhooks: one emit fanned out to 100 endpoints (bench/webhooks.ts)…");
    webhooks = await runWebhookBench(stack, log, { emits: args.quick ? 1 : 5 });
  }
  let models: ModelsBenchResult | undefined;
  if (want("models")) {
    log("Models API overhead (bench/models.ts)…");
    models = await runModelsBench(stack, ws.apiKey, { durationSeconds: args.quick ? 1 : durationSeconds, log });
  }
  let messaging: MessagingBenchResult | undefined;
  if (want("messaging")) {
    log("Messaging channels (bench/messaging.ts): inbound message → reply, then conversations at once…");
    messaging = await runMessagingBench(stack, ws, {
      users: messagingUsers,
      // With the provider's fixed delay each message waits for it twice (the reply and the bare call): fewer users.
      delayedUsers: Math.min(messagingUsers, messagingDefaults.delayedUsers),
      concurrent: messagingConcurrent,
      messagesEach: messagingDefaults.messagesEach,
      log,
      workerErrors: () => workerLog.take(),
    });
  }
  let calls: CallsBenchResult | undefined;
  if (want("calls")) {
    log(
      `Live calls (bench/calls.ts): ${callRuns} conversations per voice loop, web calls, barge-in, then ${callLevels.join("/")} at once…`,
    );
    calls = await runCallsBench(stack, ws, {
      runs: callRuns,
      levels: callLevels,
      webRuns: callDefaults.webRuns,
      bargeTries: callDefaults.bargeTries,
      log,
      reloads: () => workerLog.reloads,
    });
  }
  let agentTests: AgentTestsBenchResult | undefined;
  if (want("agent-tests")) {
    log("Agent tests (bench/agent-tests.ts): voice-mode runs and their voice to voice, next to a bare web-call loop…");
    agentTests = await runAgentTestsBench(stack, ws, { ...(args.quick ? AGENT_TESTS_QUICK : AGENT_TESTS_DEFAULTS), log });
  }
  let tools: ToolsBenchResult | undefined;
  if (want("tools")) {
    log("Tools (bench/tools.ts): the platform's overhead per tool call, next to a bare fetch…");
    tools = await runToolsBench(stack, ws, { runs: toolRuns, log, workerLog: workerLog.push });
  }
  let knowledge: KnowledgeBenchResult | undefined;
  if (want("knowledge")) {
    log(
      "Knowledge bases (bench/knowledge.ts): retrieval over a large knowledge base, what it adds to a turn, a PDF's ingestion, the question set…",
    );
    knowledge = await runKnowledgeBench(stack, ws, { ...(args.quick ? KNOWLEDGE_QUICK : KNOWLEDGE_DEFAULTS), log });
  }
  let campaigns: CampaignBenchResult | undefined;
  if (want("campaigns")) {
    log("Campaigns (bench/campaigns.ts): a campaign paced by its runner, a worker restart halfway, next to an integrator's loop…");
    campaigns = await runCampaignBench(stack, { ...(args.quick ? CAMPAIGN_QUICK : CAMPAIGN_DEFAULTS), log });
  }
  let dashboard: DashboardBenchResult | undefined;
  if (want("dashboard")) {
    // Last: it fills the workspace with calls, which no other part should see.
    log("Dashboard (bench/dashboard.ts): every page with thousands of calls in the workspace…");
    dashboard = await runDashboardBench(stack, ws, { ...(args.quick ? DASHBOARD_QUICK : DASHBOARD_DEFAULTS), log });
  }
  machine.loadAverage.end = round(loadavg()[0] ?? 0, 2);

  const order = new Map(routes.map((r, i) => [r.label, i]));
  const rows = withRatios(cases, "GET /health").sort(
    (a, b) => (order.get(a.label) ?? 0) - (order.get(b.label) ?? 0) || a.connections - b.connections,
  );
  if (want("routes")) {
    console.log(`\nResults (${durationSeconds} s per case, ${stack.postgres} + Redis ${stack.redis.backend}):\n`);
    console.log(casesTable(rows));
    if (!hasAgents) console.log("\nGET /v1/agents: SKIPPED (404, the route is not there yet).");
  }
  if (costs) {
    console.log(
      `\nWhat a request costs at the wire, per 1,000 requests (${costs.requestsPerRoute} per route at ${costs.concurrency} connections after a warm-up;\n` +
        "counted at forwarders between a second worker and the stack's WebSocket proxy, SQL-over-HTTP endpoint and Upstash bridge):\n",
    );
    console.log(costsTable(costs));
    if (!costs.sqlHttpCounted) console.log("  SQL over HTTP: not counted, the stack has no DATABASE_HTTP_ENDPOINT.");
  }
  if (strategies.length) {
    const slices = `${strategies[0]?.roundRps.length ?? 0} interleaved rounds of ${args.quick ? 1 : 2} s`;
    console.log(
      `\nConnection strategies, ${STRATEGY_ROUTE.label} at ${STRATEGY_CONNECTIONS} connections (${stack.postgres}, ${slices}):\n`,
    );
    console.log(strategiesTable(strategies));
    for (const s of strategies) console.log(`  ${s.strategy.padEnd(10)} ${s.proxy.padEnd(8)} ${s.description}`);
    console.log(
      "  deferred ok: database work after the response (a sleep, then a query: webhook fan-out's shape) that completed,\n" +
        "  handed to c.var.defer · handed straight to ctx.waitUntil",
    );
    const seen = new Set<string>();
    for (const s of strategies) {
      if (!s.deferred || seen.has(s.strategy)) continue;
      seen.add(s.strategy);
      for (const [via, check] of Object.entries(s.deferred)) {
        if (check.ok === check.requests) continue;
        const why = Object.entries(check.errors).map(([e, n]) => `${n} × ${e}`);
        if (check.unsettled) why.push(`${check.unsettled} never settled`);
        console.log(`  ${s.strategy} via ${via}: ${why.join("; ")}`);
      }
    }
  }

  const failed = [...cases, ...(models?.cases ?? []).map((c) => ({ ...c, causes: [] }))].filter((c) => failures(c) > 0);
  const webhooksFailed = webhooks?.failed ?? 0;
  const costsFailed = costs?.rows.filter((r) => r.failed > 0) ?? [];
  for (const r of costsFailed) console.log(`\nCosts, ${r.label}: ${r.failed} of ${r.requests} requests did not answer 2xx.`);
  if (webhooksFailed > 0) console.log(`\nWebhooks: ${webhooksFailed} deliveries failed.`);
  const messagingRoundsFailed = messaging?.concurrency.filter(roundFailed).length ?? 0;
  const messagingFailed = messagingRoundsFailed + (messaging?.latencyFailures ?? 0);
  const messagingWhat = [
    messagingRoundsFailed > 0 && `${messagingRoundsFailed} of the conversation rounds lost, repeated, reordered or misrecorded replies`,
    (messaging?.latencyFailures ?? 0) > 0 && `${messaging?.latencyFailures} latency messages got no reply or a wrong one`,
  ].filter(Boolean);
  const callsFailed = calls?.sequentialFailures ?? 0;
  if (callsFailed > 0) console.log(`\nCalls: ${callsFailed} of the sequential conversation calls did not end as they should.`);
  const failedStrategies = strategies.filter((s) => failures(s) > 0);
  const explain = (name: string, c: CaseResult & { causes: Array<{ kind: string; count: number }> }) => {
    console.log(`\n${name}: ${c.non2xx} non-2xx ${JSON.stringify(c.statusCodes)}, ${c.errors} errors (${c.timeouts} timeouts)`);
    for (const cause of c.causes.slice(0, 5)) console.log(`  ${String(cause.count).padStart(6)} × ${cause.kind}`);
  };
  for (const c of failed) explain(`${c.label} × ${c.connections}`, c);
  for (const s of failedStrategies) explain(`strategy ${s.strategy} via ${s.proxy} proxy`, s);
  if (models)
    console.log(
      `\nModels API, ours next to the provider sandbox called directly (${models.cases[0]?.durationSeconds ?? "?"} s per case):\n\n${modelsTable(models)}`,
    );
  if (webhooks) console.log(`\n${webhookLines(webhooks).join("\n")}`);
  if (messaging) console.log(`\n${[...latencyLines(messaging.latency), "", ...concurrencyLines(messaging.concurrency)].join("\n")}`);
  if (messagingFailed > 0) console.log(`\nMessaging: ${messagingWhat.join("; ")} (above).`);
  if (agentTests) console.log(`\n${agentTestsLines(agentTests).join("\n")}`);
  const agentTestsFailed = agentTests?.failures.length ?? 0;
  if (tools) console.log(`\n${toolsLines(tools).join("\n")}`);
  const toolsFailed = tools?.failures ?? 0;
  if (knowledge) console.log(`\n${knowledgeLines(knowledge, KNOWLEDGE_GOALS).join("\n")}`);
  const knowledgeFailed = knowledge?.failures.length ?? 0;
  if (campaigns) console.log(`\n${campaignLines(campaigns).join("\n")}`);
  const campaignsFailed = campaigns?.failures.length ?? 0;
  if (dashboard) console.log(`\n${dashboardLines(dashboard).join("\n")}`);
  const dashboardFailed = dashboard?.failures.length ?? 0;
  const verdicts = judge({ rows: want("routes") ? rows : [], costs, models, webhooks, messaging, calls });
  console.log(`\nTargets (the issues'; figures from this run, ratios against GET /health in the same run):\n${verdictLines(verdicts)}`);
  const floorNote = floorLine(rows);
  if (floorNote) console.log(floorNote);
  const messagingNote = messagingLine(messaging);
  if (messagingNote) console.log(messagingNote);
  console.log(`\nLoad average: ${machine.loadAverage.start} at the start, ${machine.loadAverage.end} at the end (${machine.cores} cores).`);

  const report = {
    date: new Date(started).toISOString(),
    durationSeconds,
    quick: args.quick,
    parts: [...parts],
    machine,
    backend: { name: backend, postgres: stack.postgres, redis: stack.redis.backend },
    routes: routes.map((r) => r.label),
    agentsSeeded: hasAgents ? agentCount : 0,
    cases: rows,
    costs,
    strategies,
    webhooks,
    models,
    messaging,
    calls,
    agentTests,
    tools,
    campaigns,
    knowledge,
    dashboard,
    verdicts,
    failedCases:
      failed.length +
      costsFailed.length +
      (webhooksFailed > 0 ? 1 : 0) +
      (messagingFailed > 0 ? 1 : 0) +
      (callsFailed > 0 ? 1 : 0) +
      (agentTestsFailed > 0 ? 1 : 0) +
      (toolsFailed > 0 ? 1 : 0) +
      (knowledgeFailed > 0 ? 1 : 0) +
      (campaignsFailed > 0 ? 1 : 0) +
      (dashboardFailed > 0 ? 1 : 0),
    totalSeconds: round((Date.now() - started) / 1000, 0),
  };
  mkdirSync(new URL("./results/", import.meta.url), { recursive: true });
  const json = `${JSON.stringify(report, null, 2)}\n`;
  const files = [new URL("./results/latest.json", import.meta.url), new URL(`./results/latest-${backend}.json`, import.meta.url)].map((u) =>
    fileURLToPath(u),
  );
  for (const file of files) writeFileSync(file, json);
  formatJson(files);
  console.log(`Results written to bench/results/latest.json (${report.totalSeconds} s in all).`);

  if (
    failed.length > 0 ||
    costsFailed.length > 0 ||
    webhooksFailed > 0 ||
    messagingFailed > 0 ||
    callsFailed > 0 ||
    agentTestsFailed > 0 ||
    toolsFailed > 0 ||
    knowledgeFailed > 0 ||
    campaignsFailed > 0 ||
    dashboardFailed > 0
  ) {
    const what = [
      failed.length > 0 && `${failed.length} of ${cases.length + (models?.cases.length ?? 0)} cases had non-2xx responses or errors`,
      costsFailed.length > 0 && `${costsFailed.length} of the per-route cost counts had failed requests`,
      webhooksFailed > 0 && `${webhooksFailed} webhook deliveries failed`,
      messagingFailed > 0 && `messaging: ${messagingWhat.join("; ")}`,
      callsFailed > 0 && `${callsFailed} conversation calls did not end as they should`,
      agentTestsFailed > 0 && `agent tests: ${agentTests?.failures.slice(0, 3).join("; ")}`,
      toolsFailed > 0 && `tools: ${tools?.failuresWhy.join("; ")}`,
      knowledgeFailed > 0 && `knowledge: ${knowledge?.failures.join("; ")}`,
      campaignsFailed > 0 && `campaigns: ${campaigns?.failures.slice(0, 5).join("; ")}`,
      dashboardFailed > 0 && `dashboard: ${dashboard?.failures.join("; ")}`,
    ].filter(Boolean);
    console.error(`\nFAILED: ${what.join("; ")}.`);
    exitCode = 1;
  }
} catch (err) {
  console.error(`\nbench: ${(err as Error).stack ?? err}`);
  exitCode = 2;
} finally {
  log("Removing the benchmark workspace and stopping the stack…");
  await stopFloor?.().catch(() => undefined);
  await stopMeasured?.().catch(() => undefined);
  await cleanup?.().catch((err) => console.error(`bench: could not remove the benchmark workspace: ${(err as Error).message}`));
  await stack?.stop().catch(() => undefined);
  await embeddedDb?.stop().catch(() => undefined);
}
process.exit(exitCode);
