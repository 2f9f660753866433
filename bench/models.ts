// Models API overhead (issue 4): our /v1/llm/chat and /v1/tts next to calling the provider
// sandbox directly, p50/p99 at 1 and 10 concurrent connections, in one run, and the difference
// in milliseconds. What we add per call: authentication, rate limiting, voice resolution, the
// credit hold and the settlement with its request log row (database statements), and the hop
// through the worker. The chat is measured twice: against the instant sandbox (what the platform
// costs when the provider costs nothing), and against the sandbox's `steady` profile, a hosted
// provider's median timings without spread (docs/sandbox.md#latency-profiles), through a second
// worker whose OPENAI_BASE_URL carries the profile: what a caller waits for beyond the provider
// when the provider takes as long as a real one.
import { withLatencyProfile } from "../dev/sandbox/latency";
import type { Stack } from "../dev/stack";
import { type CaseResult, runCase, warmUp } from "./load";
import { round, table } from "./report";
import { startStrategyWorker } from "./strategies/launch";
import { startBenchWorker } from "./worker-launch";

export interface ModelsOverhead {
  route: string;
  connections: number;
  /** p50 and p99 of ours and of the sandbox called directly, and ours − direct, in ms. */
  oursP50: number;
  directP50: number;
  oursP99: number;
  directP99: number;
  p50Ms: number;
  p99Ms: number;
  rpsRatio: number;
  p50Ratio: number;
  /** p50 of a bare worker route that forwards the request to the same provider, when measured. */
  floorP50?: number;
}

export interface ModelsBenchResult {
  cases: Array<CaseResult & { side: "direct" | "floor" | "ours"; route: string }>;
  overhead: ModelsOverhead[];
}

/** Concurrency levels of the Models cases. */
export const MODELS_CONNECTIONS = [1, 10];

/** The chat against a provider with a hosted provider's timings (the sandbox's `steady` profile). */
export const STEADY_CHAT_ROUTE = "POST /v1/llm/chat, steady provider";

const ALLOY = "00000000-0000-7000-8000-000000000001";

export async function runModelsBench(
  stack: Stack,
  apiKey: string,
  opts: { durationSeconds: number; log: (line: string) => void },
): Promise<ModelsBenchResult> {
  const { baseUrl, provider } = stack;
  if (!provider.sandbox) throw new Error("the Models bench compares against the local provider sandbox; unset OPENAI_API_KEY");
  const json = { "content-type": "application/json" };
  const ours = { ...json, authorization: `Bearer ${apiKey}` };
  const direct = { ...json, authorization: `Bearer ${provider.apiKey}` };
  const chat = JSON.stringify({
    model: "sandbox-chat",
    messages: [{ role: "user", content: "What are your opening hours on Saturday?" }],
    max_tokens: 64,
  });
  const speech = "Thanks for calling. How can I help you today?";
  const steadyProvider = withLatencyProfile(provider.baseUrl, "steady");
  opts.log("models: starting a worker whose provider answers with the steady profile's timings…");
  const steadyWorker = await startBenchWorker({ ...stack.vars, OPENAI_BASE_URL: steadyProvider });
  // The floors: a bench-only worker's bare forward to the same provider (bench/strategies/worker.ts),
  // one per profile: what any worker route in front of the provider costs on this machine.
  const floorWorker = await startStrategyWorker({ ...stack.vars, OPENAI_BASE_URL: steadyProvider }, () => {});
  const instantFloorWorker = await startStrategyWorker({ ...stack.vars, OPENAI_BASE_URL: provider.baseUrl }, () => {});
  const pairs = [
    {
      route: "POST /v1/llm/chat",
      direct: { label: "sandbox /chat/completions", url: `${provider.baseUrl}/chat/completions`, headers: direct, body: chat },
      ours: { label: "POST /v1/llm/chat", url: `${baseUrl}/v1/llm/chat`, headers: ours, body: chat },
      floor: {
        label: "bare worker route forwarding to the sandbox",
        url: `${instantFloorWorker.baseUrl}/bench/provider`,
        headers: json,
        body: chat,
      },
    },
    {
      route: STEADY_CHAT_ROUTE,
      direct: { label: "sandbox (steady) /chat/completions", url: `${steadyProvider}/chat/completions`, headers: direct, body: chat },
      ours: { label: "POST /v1/llm/chat (steady provider)", url: `${steadyWorker.baseUrl}/v1/llm/chat`, headers: ours, body: chat },
      floor: { label: "bare worker route forwarding to it", url: `${floorWorker.baseUrl}/bench/provider`, headers: json, body: chat },
      // A request takes about 0.6 s: a longer window gives each p50 enough samples at 1 connection.
      minSeconds: 10,
    },
    {
      route: "POST /v1/tts",
      direct: {
        label: "sandbox /audio/speech",
        url: `${provider.baseUrl}/audio/speech`,
        headers: direct,
        body: JSON.stringify({ model: "tts-1", input: speech, voice: "alloy", response_format: "wav" }),
      },
      ours: { label: "POST /v1/tts", url: `${baseUrl}/v1/tts`, headers: ours, body: JSON.stringify({ text: speech, voiceId: ALLOY }) },
    },
  ];
  // Speech takes a few hundred ms per request at 10 connections: a window under 5 s measures nothing on 2 cores.
  const seconds = Math.max(5, opts.durationSeconds);
  const cases: ModelsBenchResult["cases"] = [];
  const overhead: ModelsOverhead[] = [];
  // Requests autocannon sent before it stopped are still queued in the sandbox's single speech
  // thread; a case started then would wait behind that backlog. One probe through the same
  // FIFO queue returns once it is drained.
  const drain = (side: { url: string; headers: Record<string, string>; body: string }) =>
    fetch(side.url, { method: "POST", headers: side.headers, body: side.body, signal: AbortSignal.timeout(120_000) }).then((r) =>
      r.arrayBuffer(),
    );
  try {
    for (const pair of pairs) {
      const pairSeconds = Math.max(seconds, ("minSeconds" in pair && pair.minSeconds) || 0);
      for (const connections of MODELS_CONNECTIONS) {
        // Direct, then ours, back to back: the pair shares the machine's load of the moment.
        const sides = [
          ["direct", pair.direct],
          ...("floor" in pair && pair.floor ? [["floor", pair.floor] as const] : []),
          ["ours", pair.ours],
        ] as const;
        for (const [sideName, side] of sides) {
          opts.log(`models: ${side.label}, ${connections} connection${connections === 1 ? "" : "s"}, ${pairSeconds} s…`);
          await warmUp({ ...side, method: "POST" }, 2);
          await drain(side);
          const result = await runCase({ ...side, method: "POST", connections, durationSeconds: pairSeconds, timeoutSeconds: 30 });
          cases.push({ ...result, side: sideName, route: pair.route });
          await drain(side);
        }
        const these = cases.slice(-sides.length);
        const d = these.find((c) => c.side === "direct") as ModelsBenchResult["cases"][number];
        const o = these.find((c) => c.side === "ours") as ModelsBenchResult["cases"][number];
        const f = these.find((c) => c.side === "floor");
        overhead.push({
          route: pair.route,
          connections,
          oursP50: o.p50,
          directP50: d.p50,
          oursP99: o.p99,
          directP99: d.p99,
          p50Ms: o.p50 - d.p50,
          p99Ms: o.p99 - d.p99,
          rpsRatio: o.rps / d.rps,
          p50Ratio: o.p50 / d.p50,
          ...(f ? { floorP50: f.p50 } : {}),
        });
      }
    }
  } finally {
    await Promise.all([steadyWorker.stop(), floorWorker.stop(), instantFloorWorker.stop()]);
  }
  opts.log("");
  opts.log(modelsTable({ cases, overhead }));
  return { cases, overhead };
}

const signed = (n: number) => `${n >= 0 ? "+" : "−"}${Math.abs(n).toFixed(2)}`;

/** Ours next to the sandbox called directly, per route and concurrency, with the difference in ms. */
export function modelsTable(result: ModelsBenchResult): string {
  return table(
    [
      "route",
      "conns",
      "req/s direct",
      "req/s ours",
      "p50 ms direct",
      "p50 ms ours",
      "p50 ours − direct ms",
      "p99 ms direct",
      "p99 ms ours",
      "p99 ours − direct ms",
      "p50 ms bare forward",
      "p50 ours − bare forward ms",
      "errors",
    ],
    result.overhead.map((o) => {
      const pair = result.cases.filter((c) => c.route === o.route && c.connections === o.connections);
      const d = pair.find((c) => c.side === "direct");
      const ours = pair.find((c) => c.side === "ours");
      return [
        o.route,
        o.connections,
        round(d?.rps ?? 0),
        round(ours?.rps ?? 0),
        round(o.directP50, 2),
        round(o.oursP50, 2),
        signed(o.p50Ms),
        round(o.directP99, 2),
        round(o.oursP99, 2),
        signed(o.p99Ms),
        o.floorP50 === undefined ? "—" : round(o.floorP50, 2),
        o.floorP50 === undefined ? "—" : signed(o.oursP50 - o.floorP50),
        pair.reduce((n, c) => n + c.non2xx + c.errors, 0),
      ];
    }),
    new Set([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]),
  );
}
