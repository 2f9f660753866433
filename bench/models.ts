// Models API overhead (issue 4): our /v1/llm/chat and /v1/tts next to calling the provider
// sandbox directly, p50/p99 at 10 concurrent connections, in one run. What we add per call:
// authentication, rate limiting, voice resolution, the credit hold and the settlement with its
// request log row (three database statements), and the hop through the worker.
import type { Stack } from "../dev/stack";
import { type CaseResult, runCase, warmUp } from "./load";
import { round, table } from "./report";

export interface ModelsBenchResult {
  cases: CaseResult[];
  overhead: Array<{ route: string; p50Ms: number; p99Ms: number; rpsRatio: number; p50Ratio: number }>;
}

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
  const pairs = [
    {
      route: "POST /v1/llm/chat",
      direct: { label: "sandbox /chat/completions", url: `${provider.baseUrl}/chat/completions`, headers: direct, body: chat },
      ours: { label: "POST /v1/llm/chat", url: `${baseUrl}/v1/llm/chat`, headers: ours, body: chat },
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
  const cases: CaseResult[] = [];
  const overhead: ModelsBenchResult["overhead"] = [];
  // Requests autocannon sent before it stopped are still queued in the sandbox's single speech
  // thread; a case started then would wait behind that backlog. One probe through the same
  // FIFO queue returns once it is drained.
  const drain = (side: { url: string; headers: Record<string, string>; body: string }) =>
    fetch(side.url, { method: "POST", headers: side.headers, body: side.body, signal: AbortSignal.timeout(120_000) }).then((r) =>
      r.arrayBuffer(),
    );
  for (const pair of pairs) {
    for (const side of [pair.direct, pair.ours]) {
      opts.log(`models: ${side.label}, 10 connections, ${seconds} s…`);
      await warmUp({ ...side, method: "POST" }, 2);
      await drain(side);
      cases.push(await runCase({ ...side, method: "POST", connections: 10, durationSeconds: seconds, timeoutSeconds: 30 }));
      await drain(side);
    }
    const [d, o] = cases.slice(-2) as [CaseResult, CaseResult];
    overhead.push({ route: pair.route, p50Ms: o.p50 - d.p50, p99Ms: o.p99 - d.p99, rpsRatio: o.rps / d.rps, p50Ratio: o.p50 / d.p50 });
  }
  opts.log("");
  opts.log("Models API overhead at 10 connections (ours next to the provider sandbox called directly)");
  opts.log(
    table(
      ["case", "req/s", "p50 ms", "p99 ms", "errors"],
      cases.map((c) => [c.label, round(c.rps), round(c.p50, 2), round(c.p99, 2), c.non2xx + c.errors]),
      new Set([1, 2, 3, 4]),
    ),
  );
  for (const o of overhead) {
    opts.log(
      `  ${o.route}: +${round(o.p50Ms, 2)} ms at p50 (×${round(o.p50Ratio, 2)}), +${round(o.p99Ms, 2)} ms at p99, throughput ×${round(o.rpsRatio, 2)}`,
    );
  }
  return { cases, overhead };
}
