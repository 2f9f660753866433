// The knowledge bench's turns (docs/benchmarks.md, "Knowledge bases"): what retrieval adds to an
// agent's reply, measured as replies with and without it, interleaved, on one worker.
//
// Three agents on the same LLM: `plain` (no knowledge base), `searched` (the 10,000-passage
// knowledge base linked, maxDistance 0: every turn embeds the question and searches, and no passage
// is ever close enough to be kept, so its prompt and reply are the plain agent's and only the
// retrieval's time differs) and `answered` (linked with the defaults: the passages go into the prompt,
// the sandbox LLM answers from the first). Widget chats measure the whole turn at the client (no
// end-of-turn detection: nothing can hide the retrieval). Web calls on Deepgram Flux measure the
// voice-to-voice latency each reply records (transcript[].latency), where the reply, and so its
// retrieval, starts on Flux's EagerEndOfTurn while the end of turn is being confirmed.
import { randomUUID } from "node:crypto";
import { FRAME_MS, rms } from "../src/calls/codec";
import type { TranscriptTurn } from "../src/db/schema";
import { percentile, round } from "./report";
import { converse, joinWebCall, sandboxSpeech, WEB_RATE } from "./web-call";

export interface Spread {
  n: number;
  p50: number;
  p95: number;
}
export const spread = (xs: number[]): Spread => ({ n: xs.length, p50: round(percentile(xs, 50), 1), p95: round(percentile(xs, 95), 1) });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const SITE = "https://bench.example.test";
/** The sandbox LLM echoes what it is told (docs/sandbox.md): the plain reply to a message. */
const echo = (message: string) => `You said: ${message}`;

export type AgentKind = "plain" | "searched" | "answered";
export interface TurnAgents {
  ids: Record<AgentKind, string>;
  widgets: Record<AgentKind, string>;
}

async function post<T>(baseUrl: string, apiKey: string, path: string, body: unknown, status = 201): Promise<T> {
  const res = await fetch(`${baseUrl}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  if (res.status !== status) throw new Error(`POST ${path} answered ${res.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

/** The three agents, each with a widget. */
export async function createTurnAgents(baseUrl: string, apiKey: string, knowledgeBaseId: string): Promise<TurnAgents> {
  const plans: Record<AgentKind, unknown> = {
    plain: { knowledgeBaseIds: [] },
    searched: { knowledgeBaseIds: [knowledgeBaseId], topK: 3, maxDistance: 0 },
    answered: { knowledgeBaseIds: [knowledgeBaseId], topK: 3 },
  };
  const ids = {} as Record<AgentKind, string>;
  const widgets = {} as Record<AgentKind, string>;
  for (const kind of ["plain", "searched", "answered"] as const) {
    const agent = await post<{ id: string }>(baseUrl, apiKey, "/v1/agents", {
      name: `Knowledge bench, ${kind}`,
      personaId: randomUUID(),
      llmModel: "sandbox-chat",
      firstMessage: "Hello.",
      knowledge: plans[kind],
    });
    ids[kind] = agent.id;
    widgets[kind] = (
      await post<{ token: string }>(baseUrl, apiKey, "/v1/widgets", { name: kind, agentId: agent.id, allowedOrigins: [SITE] })
    ).token;
  }
  return { ids, widgets };
}

/** One widget chat message from a new visitor: the client's time to the whole reply, and whether the reply is as it should be. */
async function chatOnce(baseUrl: string, token: string, message: string, kind: AgentKind): Promise<{ ms: number; problem?: string }> {
  const t0 = performance.now();
  const res = await fetch(`${baseUrl}/widget/v1/chat?token=${token}`, {
    method: "POST",
    headers: { origin: SITE, "content-type": "application/json" },
    body: JSON.stringify({ visitorId: `v_${randomUUID().replace(/-/g, "")}`, message }),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  const ms = performance.now() - t0;
  if (res.status !== 200) return { ms, problem: `${kind} chat answered ${res.status}: ${text.slice(0, 200)}` };
  const reply = (JSON.parse(text) as { reply?: { text?: string } }).reply?.text ?? "";
  const ok = kind === "answered" ? reply.startsWith('From "') : reply === echo(message);
  return ok ? { ms } : { ms, problem: `${kind} chat replied ${JSON.stringify(reply.slice(0, 120))}` };
}

export interface ChatsResult {
  byKind: Partial<Record<AgentKind, Spread>>;
  problems: string[];
}

/** `runs` chats per agent kind, interleaved (after 3 each to warm up), each a different question. */
export async function measureChats(
  baseUrl: string,
  agents: TurnAgents,
  kinds: AgentKind[],
  questions: string[],
  runs: number,
): Promise<ChatsResult> {
  const times: Partial<Record<AgentKind, number[]>> = {};
  const problems: string[] = [];
  for (let i = -3; i < runs; i++) {
    const q = questions[(i + 3) % questions.length] as string;
    for (const kind of i % 2 === 0 ? kinds : [...kinds].reverse()) {
      const r = await chatOnce(baseUrl, agents.widgets[kind], q, kind);
      if (r.problem) problems.push(r.problem);
      else if (i >= 0) times[kind] = [...(times[kind] ?? []), r.ms];
    }
  }
  const byKind: Partial<Record<AgentKind, Spread>> = {};
  for (const kind of kinds) byKind[kind] = spread(times[kind] ?? []);
  return { byKind, problems: problems.slice(0, 5) };
}

/** The caller's lines in a web call: questions in the seed's words, then goodbye. */
export const CALL_LINES = [
  "How do I clean the filter of my vacuum cleaner?",
  "What is the warranty on a wireless headset?",
  "When is the service centre open on Saturday?",
];

function trimSilence(samples: Int16Array): Int16Array {
  const frame = (WEB_RATE * FRAME_MS) / 1000;
  const frames = Math.ceil(samples.length / frame);
  const loud = (f: number) => rms(samples.subarray(f * frame, (f + 1) * frame)) > 50;
  let first = 0;
  while (first < frames - 1 && !loud(first)) first++;
  let last = frames - 1;
  while (last > first && !loud(last)) last--;
  return samples.subarray(first * frame, (last + 1) * frame);
}

const ENDED = new Set(["completed", "failed", "busy", "no-answer", "canceled"]);
type Latency = NonNullable<TranscriptTurn["latency"]>;
export interface CallsResult {
  byKind: Partial<
    Record<
      AgentKind,
      {
        replies: number;
        /** Caller turns, and those whose reply started on Flux's EagerEndOfTurn and was committed by its EndOfTurn. */
        callerTurns: number;
        committed: number;
        voiceToVoice: Spread;
        endpointing: Spread;
        llm: Spread;
        platform: Spread;
        client: Spread;
      }
    >
  >;
  problems: string[];
}

/** A call's status and transcript as stored (the caller turns' turn-taking is not in the API's view). */
export type CallRecord = (callId: string) => Promise<{ status: string; transcript: TranscriptTurn[] } | null>;

/** One web call: the lines said one after another, each after the agent's reply ended; the replies' latency records. */
async function webCall(baseUrl: string, apiKey: string, agentId: string, lines: Int16Array[], record: CallRecord) {
  const problems: string[] = [];
  const started = await post<{ call: { id: string }; webCall: { url: string } }>(baseUrl, apiKey, `/v1/agents/${agentId}/web-call`, {});
  const client = await joinWebCall(started.webCall.url);
  const measured: number[] = [];
  try {
    measured.push(...(await converse(client, lines, problems)));
  } finally {
    client.hangup();
    await Promise.race([client.closed, sleep(5_000)]);
    client.close();
  }
  // The call's record, once it ended.
  let turns: TranscriptTurn[] = [];
  for (const until = Date.now() + 20_000; Date.now() < until; await sleep(300)) {
    const call = await record(started.call.id);
    if (!call || !ENDED.has(call.status)) continue;
    turns = call.transcript;
    break;
  }
  const latencies = turns.flatMap((t) => (t.role === "agent" && t.latency ? [t.latency] : []));
  const callerTurns = turns.filter((t) => t.role === "user");
  const committed = callerTurns.filter((t) => t.turnTaking?.committed).length;
  if (latencies.length < lines.length) problems.push(`${latencies.length} replies measured of ${lines.length} lines`);
  return { callId: started.call.id, client: measured, latencies, callerTurns: callerTurns.length, committed, problems };
}

/** `runs` web calls per agent kind, alternating, on a worker whose transcription is Deepgram Flux. */
export async function measureCalls(
  baseUrl: string,
  apiKey: string,
  agents: TurnAgents,
  kinds: AgentKind[],
  provider: { baseUrl: string; apiKey: string },
  runs: number,
  record: CallRecord,
  log: (line: string) => void,
): Promise<CallsResult> {
  const lines = (await Promise.all(CALL_LINES.map((text) => sandboxSpeech(provider, text, WEB_RATE)))).map(trimSilence);
  const got: Partial<Record<AgentKind, { latencies: Latency[]; client: number[]; callerTurns: number; committed: number }>> = {};
  const problems: string[] = [];
  for (let i = 0; i < runs; i++) {
    for (const kind of i % 2 === 0 ? kinds : [...kinds].reverse()) {
      const call = await webCall(baseUrl, apiKey, agents.ids[kind], lines, record);
      const seen = got[kind] ?? { latencies: [], client: [], callerTurns: 0, committed: 0 };
      got[kind] = seen;
      seen.latencies.push(...call.latencies);
      seen.client.push(...call.client);
      seen.callerTurns += call.callerTurns;
      seen.committed += call.committed;
      problems.push(...call.problems.map((p) => `${kind} ${call.callId}: ${p}`));
      log(
        `  web call [${i + 1}/${runs}] ${kind.padEnd(8)} ${call.callId}: voice-to-voice ${call.latencies.map((l) => Math.round(l.voiceToVoiceMs)).join("/") || "—"} ms (worker), ` +
          `${call.client.map(Math.round).join("/") || "—"} ms (client), ${call.committed} of ${call.callerTurns} turns answered from the eager end of turn${call.problems.length ? `  PROBLEM: ${call.problems.join("; ")}` : ""}`,
      );
    }
  }
  const byKind: CallsResult["byKind"] = {};
  for (const kind of kinds) {
    const seen = got[kind] ?? { latencies: [], client: [], callerTurns: 0, committed: 0 };
    byKind[kind] = {
      replies: seen.latencies.length,
      callerTurns: seen.callerTurns,
      committed: seen.committed,
      endpointing: spread(seen.latencies.map((l) => l.endpointingMs ?? 0)),
      voiceToVoice: spread(seen.latencies.map((l) => l.voiceToVoiceMs)),
      llm: spread(seen.latencies.map((l) => l.llmMs)),
      platform: spread(seen.latencies.map((l) => l.platformMs)),
      client: spread(seen.client),
    };
  }
  return { byKind, problems: problems.slice(0, 5) };
}
