// Agent tests bench (issue 34's goal: "a voice-mode test runs the real pipeline and reports its
// voice-to-voice latency"; docs/benchmarks.md, "Agent tests"). On a worker whose provider base
// URLs carry the sandbox's `realistic` profile (hosted providers' timings, docs/sandbox.md), one
// agent, one scripted test of the telephony callee's three lines:
//
// 1. voice-mode runs, one after another: each places a web call, says the lines from inside the
//    worker (src/agent-tests/web-caller.ts) and is judged; per reply, the call's own voice-to-voice
//    trace, which the run reports as its latency;
// 2. the baseline, in the same run on the same worker and agent: a bare web-call loop, the same
//    lines in the same voice said from this process as a browser would (bench/web-call.ts), each
//    reply's trace read from the call.
//
// The ratio of the two p50s says what playing the caller inside the worker costs the measure
// (nothing, if the loop is faithful: the pipeline is the same). Runs inside `npm run bench`
// (bench/run.ts, part `agent-tests`) or alone: `npx tsx bench/agent-tests.ts [--quick]`.
import { fileURLToPath } from "node:url";
import { SCRIPT } from "../dev/sandbox/callee";
import { withLatencyProfile } from "../dev/sandbox/latency";
import { type Stack, startStack } from "../dev/stack";
import { pcm16FromBytes, resample } from "../src/calls/codec";
import { createDb } from "../src/db/client";
import { adjustCredits } from "../src/metering/meter";
import { CARTESIA_DEFAULT_MODEL, Cartesia } from "../src/providers/cartesia";
import { percentile, round } from "./report";
import { type BenchWorkspace, createBenchWorkspace, removeBenchWorkspace } from "./setup";
import { converse, joinWebCall, sandboxSpeech, WEB_RATE } from "./web-call";
import { startBenchWorker } from "./worker-launch";

export const AGENT_TESTS_DEFAULTS = { runs: 5 };
export const AGENT_TESTS_QUICK = { runs: 1 };

export interface Spread {
  n: number;
  p50: number;
  p95: number;
  max: number;
}

/** The p50 of each part of the replies' voice to voice (docs/calls.md, "Latency"). */
export type PartsP50 = Record<"endpointing" | "stt" | "llm" | "tts" | "platform", number>;

export interface AgentTestsBenchResult {
  profile: "realistic";
  /** Voice-mode runs: voice to voice per reply (the call's trace), its parts, and each run's wall time. */
  voiceRuns: {
    runs: number;
    passed: number;
    replies: Spread;
    parts: PartsP50;
    runSeconds: Spread;
    reported: Array<{ p50Ms: number | null; p95Ms: number | null }>;
  };
  /** The bare web-call loop on the same worker and agent: voice to voice per reply (the call's trace) and its parts. */
  webCalls: { calls: number; replies: Spread; parts: PartsP50 };
  /** The voice runs' p50 over the bare loop's. */
  ratioP50: number;
  failures: string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Cartesia's Katie, the deployment's default voice where Cartesia is configured (as on this stack). */
const KATIE = "f786b574-daa5-4673-aa0c-cbe3e8534c02";

/**
 * The baseline's lines in the voice a voice run's caller speaks with (the default voice, Katie, from the
 * sandbox's Cartesia side), so the two loops differ only in who plays the caller; OpenAI's Nova when
 * the stack has no Cartesia sandbox.
 */
async function callerLines(stack: Stack, texts: readonly string[]): Promise<Int16Array[]> {
  const { CARTESIA_BASE_URL: url, CARTESIA_API_KEY: key } = stack.vars;
  if (!url || !key) return Promise.all(texts.map((text) => sandboxSpeech(stack.provider, text, WEB_RATE)));
  const cartesia = new Cartesia(url, key, { timeoutMs: 30_000, retries: 1 });
  return Promise.all(
    texts.map(async (text) => {
      const pcm = await cartesia.synthesize({ text, voice: KATIE, model: CARTESIA_DEFAULT_MODEL, format: "pcm" });
      return resample(pcm16FromBytes(new Uint8Array(pcm)), 24_000, WEB_RATE);
    }),
  );
}
const spread = (xs: number[]): Spread => ({
  n: xs.length,
  p50: round(percentile(xs, 50), 0),
  p95: round(percentile(xs, 95), 0),
  max: round(Math.max(...xs), 0),
});

async function api<T>(baseUrl: string, apiKey: string, path: string, body?: unknown): Promise<{ status: number; json: T }> {
  const res = await fetch(`${baseUrl}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  return { status: res.status, json: (await res.json().catch(() => ({}))) as T };
}

interface RunView {
  id: string;
  status: string;
  error: string | null;
  callId: string | null;
  latency: { turns: number; p50Ms: number | null; p95Ms: number | null } | null;
}
type Trace = { voiceToVoiceMs: number; endpointingMs?: number; sttMs: number; llmMs: number; ttsMs: number; platformMs: number };
interface CallView {
  status: string;
  transcript: { turns: Array<{ role: string; latency?: Trace }> };
}

/** Each agent reply's trace, from the call, once the call has ended. */
async function traceOf(baseUrl: string, apiKey: string, callId: string): Promise<Trace[]> {
  for (const until = Date.now() + 20_000; ; ) {
    const { json: call } = await api<CallView>(baseUrl, apiKey, `/v1/calls/${callId}`);
    if (["completed", "failed", "canceled"].includes(call.status) || Date.now() > until)
      return call.transcript.turns.flatMap((t) => (t.role === "agent" && t.latency ? [t.latency] : []));
    await sleep(250);
  }
}

const partsOf = (traces: Trace[]): PartsP50 => {
  const p50 = (f: (t: Trace) => number) => round(percentile(traces.map(f), 50), 0);
  return {
    endpointing: p50((t) => t.endpointingMs ?? 0),
    stt: p50((t) => t.sttMs),
    llm: p50((t) => t.llmMs),
    tts: p50((t) => t.ttsMs),
    platform: p50((t) => t.platformMs),
  };
};
const v2v = (traces: Trace[]) => traces.map((t) => t.voiceToVoiceMs);

export async function runAgentTestsBench(
  stack: Stack,
  ws: BenchWorkspace,
  opts: { runs: number; log: (line: string) => void },
): Promise<AgentTestsBenchResult> {
  const { log } = opts;
  if (!stack.provider.sandbox) throw new Error("the agent tests bench needs the local provider sandbox; unset OPENAI_API_KEY");
  const failures: string[] = [];
  const { db, pool } = createDb(stack.databaseUrl, stack.wsProxy, 2);
  await adjustCredits(db, ws.organizationId, { addMicro: 100_000_000 });
  await pool.end();
  // The stack's variables with every provider side of the sandbox on the realistic profile.
  const sandboxHost = new URL(stack.provider.baseUrl).host;
  const vars: Record<string, string> = { ...stack.vars, OPENAI_BASE_URL: withLatencyProfile(stack.provider.baseUrl, "realistic") };
  for (const key of ["ELEVENLABS_BASE_URL", "CARTESIA_BASE_URL", "DEEPGRAM_BASE_URL"]) {
    const url = stack.vars[key];
    if (url && new URL(url).host === sandboxHost) vars[key] = withLatencyProfile(url, "realistic");
  }
  log("agent-tests: starting a worker on the realistic profile…");
  const worker = await startBenchWorker(vars);
  const { baseUrl } = worker;
  try {
    const agent = await api<{ id: string }>(baseUrl, ws.apiKey, "/v1/agents", {
      name: "Bench tested agent",
      personaId: crypto.randomUUID(),
      llmModel: "sandbox-chat",
      firstMessage: "Hello.",
      endCallPhrases: ["goodbye"],
      maxDurationSeconds: 60,
    });
    if (agent.status !== 201) throw new Error(`POST /v1/agents answered ${agent.status}`);
    const agentId = agent.json.id;
    const test = await api<{ id: string }>(baseUrl, ws.apiKey, `/v1/agents/${agentId}/tests`, {
      name: "Books Tuesday morning",
      scenario: { kind: "script", turns: SCRIPT },
      criteria: { successCriteria: ['The agent says "Tuesday morning"'], extractionFields: [] },
    });
    if (test.status !== 201) throw new Error(`POST /v1/agents/:id/tests answered ${test.status}`);

    const voiceRun = async (): Promise<{ run: RunView; seconds: number }> => {
      const started = performance.now();
      const queued = await api<{ data: RunView[] }>(baseUrl, ws.apiKey, `/v1/agents/${agentId}/tests/${test.json.id}/runs`, {
        mode: "voice",
      });
      if (queued.status !== 202) throw new Error(`POST …/runs answered ${queued.status}`);
      const id = queued.json.data[0]?.id as string;
      for (const until = Date.now() + 150_000; ; ) {
        const { json: run } = await api<RunView>(baseUrl, ws.apiKey, `/v1/agents/${agentId}/test-runs/${id}`);
        if (!["queued", "running"].includes(run.status)) return { run, seconds: (performance.now() - started) / 1000 };
        if (Date.now() > until) throw new Error(`run ${id} still ${run.status} after 150 s`);
        await sleep(250);
      }
    };
    const lines = await callerLines(stack, SCRIPT);
    const webCall = async (): Promise<string> => {
      const { status, json } = await api<{ call: { id: string }; webCall: { url: string } }>(
        baseUrl,
        ws.apiKey,
        `/v1/agents/${agentId}/web-call`,
        {},
      );
      if (status !== 201) throw new Error(`POST /v1/agents/:id/web-call answered ${status}`);
      const client = await joinWebCall(json.webCall.url);
      const problems: string[] = [];
      try {
        await converse(client, lines, problems);
        await Promise.race([client.closed, sleep(8_000)]);
      } finally {
        client.hangup();
        client.close();
      }
      failures.push(...problems.map((p) => `web call ${json.call.id}: ${p}`));
      return json.call.id;
    };

    log("agent-tests: warm-up (one voice run and one web call, not measured)…");
    await voiceRun();
    await traceOf(baseUrl, ws.apiKey, await webCall());

    const runReplies: Trace[] = [];
    const runSeconds: number[] = [];
    const reported: Array<{ p50Ms: number | null; p95Ms: number | null }> = [];
    const webReplies: Trace[] = [];
    let passed = 0;
    // Alternating, so a drift of the machine weighs on both alike.
    for (let k = 0; k < opts.runs; k++) {
      const { run, seconds } = await voiceRun();
      const trace = run.callId ? await traceOf(baseUrl, ws.apiKey, run.callId) : [];
      if (run.status === "passed") passed++;
      else failures.push(`voice run ${run.id}: ${run.status}${run.error ? `: ${run.error}` : ""}`);
      runReplies.push(...trace);
      runSeconds.push(seconds);
      reported.push({ p50Ms: run.latency?.p50Ms ?? null, p95Ms: run.latency?.p95Ms ?? null });
      log(
        `agent-tests: [${k + 1}/${opts.runs}] voice run ${run.status} in ${round(seconds, 1)} s, v2v ${v2v(trace).join("/") || "—"} ms (reported p50 ${run.latency?.p50Ms ?? "—"}, p95 ${run.latency?.p95Ms ?? "—"})`,
      );
      const callId = await webCall();
      const bare = await traceOf(baseUrl, ws.apiKey, callId);
      webReplies.push(...bare);
      log(`agent-tests: [${k + 1}/${opts.runs}] bare web call, v2v ${v2v(bare).join("/") || "—"} ms`);
    }
    const voice = spread(v2v(runReplies));
    const web = spread(v2v(webReplies));
    const result: AgentTestsBenchResult = {
      profile: "realistic",
      voiceRuns: { runs: opts.runs, passed, replies: voice, parts: partsOf(runReplies), runSeconds: spread(runSeconds), reported },
      webCalls: { calls: opts.runs, replies: web, parts: partsOf(webReplies) },
      ratioP50: round(voice.p50 / web.p50, 2),
      failures,
    };
    for (const line of agentTestsLines(result)) log(line);
    return result;
  } finally {
    await worker.stop();
  }
}

export function agentTestsLines(r: AgentTestsBenchResult): string[] {
  const v = r.voiceRuns;
  const parts = (p: PartsP50) => `endpointing ${p.endpointing}, stt ${p.stt}, llm ${p.llm}, tts ${p.tts}, platform ${p.platform}`;
  return [
    `Agent tests, voice mode (${r.profile} profile; voice to voice per reply from each call's own trace):`,
    `  voice-mode runs: ${v.passed}/${v.runs} passed, ${v.replies.n} replies, p50 ${v.replies.p50} ms, p95 ${v.replies.p95} ms, max ${v.replies.max} ms; a run took ${v.runSeconds.p50} s (p50)`,
    `  bare web-call loop, same worker and agent: ${r.webCalls.replies.n} replies, p50 ${r.webCalls.replies.p50} ms, p95 ${r.webCalls.replies.p95} ms, max ${r.webCalls.replies.max} ms`,
    `  p50 by part (ms): voice runs ${parts(v.parts)}; bare loop ${parts(r.webCalls.parts)}`,
    `  ratio of the p50s (voice runs / bare loop): ${r.ratioP50}`,
    ...r.failures.slice(0, 5).map((f) => `  PROBLEM: ${f}`),
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const quick = process.argv.includes("--quick");
  const stack = await startStack({ log: console.log, vars: { RATE_LIMIT_REQUESTS: "100000000" } });
  const ws = await createBenchWorkspace(stack.databaseUrl, stack.wsProxy);
  try {
    const result = await runAgentTestsBench(stack, ws, { runs: (quick ? AGENT_TESTS_QUICK : AGENT_TESTS_DEFAULTS).runs, log: console.log });
    if (result.failures.length > 0) process.exitCode = 1;
  } finally {
    await removeBenchWorkspace(stack.databaseUrl, stack.wsProxy, ws).catch(() => undefined);
    await stack.stop();
  }
}
