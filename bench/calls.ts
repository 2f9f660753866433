// Live-call benchmark (issue: "the platform's own share of voice-to-voice latency at p50/p95, and
// the number of concurrent sandbox calls one local stack holds with no dropped frames").
//
// Every call is a real outbound phone call: POST /v1/agents/:id/calls, the worker's Twilio adapter,
// the telephony sandbox (dev/sandbox/telephony.ts, in this process as `stack.telephony`) answering
// with its scripted three-line conversation, the Media Stream into the call's Durable Object, and
// speech-to-text, the agent's LLM and text-to-speech on the provider sandbox.
//
// The calls run on the provider sandbox's `realistic` latency profile (docs/sandbox.md), on three
// workers of the same build that differ only in CALL_PIPELINE and CALL_SPECULATION: the serial loop,
// the streaming one, and the streaming one with speculative turn-taking (the default; docs/calls.md).
//
// 1. Voice-to-voice: K calls on each loop, alternating. Each agent reply carries the worker's own
//    measurement (calls.transcript[].latency: voiceToVoiceMs, sttMs, llmMs, ttsMs, platformMs;
//    docs/calls.md) and the callee measures from its side (SandboxCall.latencies). Baseline, in the
//    same run, right before each pair of calls: the bare provider chain timed from Node (transcription
//    of the callee's line as an 8 kHz WAV, the chat completion, the speech), one chain per line, and
//    the same streamed (the chat to its first sentence, that sentence's speech to its first byte).
// 2. Concurrency, on the default loop (streaming, speculative turn-taking): N simultaneous calls (placed 150 ms apart), N ramping. A level holds when every
//    call was ended by the agent's goodbye, every callee line is in the transcript, the callee heard
//    no gap in the agent's audio (underruns) and the sandbox itself kept time (late frames ≤ 1 %).
//    The ramp stops at the first level where a check of the worker fails (then tries once halfway
//    below), or where the sandbox is so late (> 10 %) that it no longer drives the load it claims.
//    This process is the load generator and hosts PGlite, so its lag is reported apart.
//
// Runs inside `npm run bench` (bench/run.ts) or alone: `npx tsx bench/calls.ts [--quick]`.
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { appendFileSync, writeFileSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { inArray } from "drizzle-orm";
import { CalleeVoice, FIRST_WORDS_MS, SCRIPT } from "../dev/sandbox/callee";
import { withLatencyProfile } from "../dev/sandbox/latency";
import type { SandboxCall, TelephonySandbox } from "../dev/sandbox/telephony";
import { type Stack, startStack } from "../dev/stack";
import { FRAME_MS, mulawDecode, pcm16ToBytes, rms, TELEPHONY_RATE } from "../src/calls/codec";
import type { TurnTaking } from "../src/calls/turns";
import { createDb } from "../src/db/client";
import { calls, type TranscriptTurn } from "../src/db/schema";
import { parseEnv } from "../src/env";
import { pcmToWav } from "../src/lib/audio";
import { adjustCredits } from "../src/metering/meter";
import { percentile, round, table } from "./report";
import { type BenchWorkspace, createBenchWorkspace, removeBenchWorkspace } from "./setup";
import { type BenchWorker, startBenchWorker } from "./worker-launch";
import { WorkerLog } from "./worker-log";

/**
 * The voice loops measured side by side on the provider sandbox's `realistic` profile: the serial
 * and streaming loops (CALL_PIPELINE) waiting out the endpointing silence, and the streaming loop
 * with speculative turn-taking (CALL_SPECULATION=on, the worker's default).
 */
export const PIPELINES = ["serial", "streaming", "speculative"] as const;
export type Pipeline = (typeof PIPELINES)[number];
const PIPELINE_VARS: Record<Pipeline, Record<string, string>> = {
  serial: { CALL_PIPELINE: "serial", CALL_SPECULATION: "off" },
  streaming: { CALL_PIPELINE: "streaming", CALL_SPECULATION: "off" },
  speculative: { CALL_PIPELINE: "streaming", CALL_SPECULATION: "on" },
};
/** The loop the goal is measured on and the concurrency ramp runs: the worker's default. */
const DEFAULT_PIPELINE: Pipeline = "speculative";
/** The issue's goal on `realistic`, with 16 simultaneous calls. */
export const GOAL = { p50: 800, p95: 1_100, platformP50: 50, simultaneous: 16 };

/** The default conversation (docs/sandbox.md): any number without a scenario of its own. */
const CONVERSATION = "+12025550100";
/** The callee who says one line and hangs up: a short call for the warm-up. */
const HANGS_UP = "+12025550107";
const FIRST_MESSAGE = "Hello.";
/** A conversation takes about 20 s alone; these bound a call that goes wrong (and end it quickly). */
const MAX_CALL_SECONDS = 60;
const SILENCE_TIMEOUT_SECONDS = 10;
/** What the worker adds to the system prompt on a call (src/calls/session.ts), so the bare chat request is the call's. */
const VOICE_INSTRUCTIONS =
  "You are speaking on a live voice call. Answer in one to three short spoken sentences, without lists, markdown or emoji.";
/** The worker's turn audio: 200 ms of pre-roll + the 60 ms start delay before the speech, the endpointing silence after. */
const PRE_ROLL_MS = 260;
/**
 * Calls of a level are placed this far apart (32 calls build up over 4.7 s), so that their first
 * messages do not all queue at once in the provider sandbox's single speech thread; they then
 * overlap for their whole conversation (about 20 s).
 */
const STAGGER_MS = 150;
/** The worker's turn detector: a frame is speech above RMS 400 (3× the noise floor, which is 0 on the sandbox's silence). */
const SPEECH_RMS = 400;
/**
 * Sandbox frames sent over 40 ms late that still count as "about zero": 1 % of the frames. This
 * process hosts the sandboxes and PGlite, so a garbage collection or a heavy query delays a few
 * frames of every live call even with one call on the line.
 */
const LATE_TOLERANCE = 0.01;
/** Past this share of late frames the load generator no longer drives the calls it claims: the ramp stops. */
const LATE_OVERWHELMED = 0.1;

/**
 * K = 5 conversations (15 replies) in a row, then 16 and 32 at once: about 3 minutes, a call being
 * about 20 s of speech whatever the load. A level that fails the worker's checks is followed by one
 * halfway below it, so the coarse steps still end on a bracket.
 */
export const DEFAULTS = { runs: 5, levels: [1, 16, 32] };
export const QUICK = { runs: 2, levels: [1, 8] };

export interface CallsBenchOptions {
  /** Sequential conversation calls for the voice-to-voice figures (K). */
  runs: number;
  /** Concurrency levels, ascending; the ramp stops after the first that does not hold. */
  levels: number[];
  log: (line: string) => void;
  /**
   * How many times wrangler has reloaded the worker so far (bench/worker-log.ts; the line shows at
   * WORKER_LOG_LEVEL=info). A reload cuts every live call; a new workerd pid reveals it at any level.
   */
  reloads?: () => number;
}

type ReplyLatency = NonNullable<TranscriptTurn["latency"]>;

interface CallOutcome {
  callId: string | null;
  sid: string | null;
  status: string | null;
  endedReason: string | null;
  said: string[];
  heard: string[];
  replies: ReplyLatency[];
  /** The caller turns' turn-taking (src/calls/turns.ts): the wait each turn took, its speculations. */
  userTurns: TurnTaking[];
  calleeLatencies: number[];
  underruns: number;
  lateFrames: number;
  framesSent: number;
  endedBy: string | null;
  /** Answer to hang-up at the sandbox, seconds. */
  seconds: number | null;
  /** The sandbox's answer and hang-up (epoch ms), to count the calls live at once. */
  span: [number, number] | null;
  /** Answer to the first audio of the agent (its first message), ms. */
  firstAudioMs: number | null;
  errors: string[];
  /** What went wrong, for the report: empty when the call did everything it should. */
  problems: string[];
  /** What was unusual without failing a check (the callee spoke first: the first message was late). */
  notes: string[];
  /** The call failed while workerd was restarted under it: not a measurement. */
  cutByRestart?: boolean;
}

interface Spread {
  n: number;
  p50: number;
  p95: number;
}

export interface LevelResult {
  /** Calls at the same time. */
  simultaneous: number;
  /** Calls in all (part 1's K sequential calls for the level of 1). */
  calls: number;
  /** Every check passed: the worker's and the load generator's. */
  held: boolean;
  /** The worker's checks passed (every call ended by the agent, every line transcribed, no underrun). */
  workerHeld: boolean;
  /** The telephony sandbox sent more than 1 % of its frames over 40 ms late: its own lag. */
  loadGeneratorLagged: boolean;
  /** Over 10 % of the frames were late: the ramp stopped after this level (the load generator's limit). */
  stoppedRamp?: boolean;
  /** Why it did not hold, by check, with the count of calls that failed it. */
  failedChecks: string[];
  agentEnded: number;
  transcribed: number;
  underruns: number;
  lateFrames: number;
  framesSent: number;
  voiceToVoice: Spread;
  calleeSide: Spread;
  /** Answer to the agent's first audio (the first message: database reads, then speech). */
  firstAudio: Spread;
  /** The most calls live (answered, not hung up) at the same moment. */
  peakLive: number;
  platform: Spread;
  /** Peak resident memory of the workerd process(es) under this bench process, MiB; null when ps found none. */
  workerdRssMiB: number | null;
  /** This process's event-loop delay (it hosts the telephony sandbox, the provider sandbox's HTTP side and PGlite). */
  loopDelayMs: { p99: number; max: number };
  /** wrangler reloads during the level (a changed source file): they cut live calls. */
  reloads: number;
  seconds: number;
  endings: Record<string, number>;
  /** Call ids of the calls that failed a check (at most 5), with what went wrong. */
  examples: Array<{ callId: string | null; sid: string | null; problems: string[] }>;
  /** Counts of what was unusual without failing a check. */
  notes: string[];
}

export interface CallsBenchResult {
  endpointingMs: number;
  endpointingSource: "stack vars" | "worker default";
  runs: number;
  replies: number;
  /** The provider sandbox's latency profile the calls ran on (docs/sandbox.md#latency-profiles). */
  profile: "realistic";
  /** Per voice loop: the same measures, from calls that alternate between the two workers. */
  voiceToVoice: Record<Pipeline, VoiceSummary>;
  sequentialFailures: number;
  /** The concurrency ramp, on the streaming loop. */
  levels: LevelResult[];
  highestHeld: number | null;
  /** The highest level up to which the worker's own checks held, the load generator lagging or not. */
  highestWorkerHeld: number | null;
  /** Calls or levels run again because workerd restarted under them (wrangler reloads on a changed file). */
  redoneAfterRestart: number;
  seconds: number;
}

export interface VoiceSummary {
  replies: number;
  /**
   * The endpointing silence as the worker counts it, p50: from the end of the last loud frame to the
   * turn's end (one frame less than configured; shorter when speculative turn-taking ended a turn on a sentence).
   */
  endpointingWaitMs: number;
  /** Speculative turn-taking over the loop's caller turns (src/calls/turns.ts): counts, summed. */
  turnTaking: {
    turns: number;
    endedBySentence: number;
    speculations: number;
    committed: number;
    discarded: number;
    /** Transcription requests in all (each one a provider call, discarded ones included). */
    transcriptions: number;
  };
  /** Per script line: its last frames under the worker's speech threshold (where the two clocks start apart). */
  quietTailsMs: number[];
  /** platformMs of each reply: voice-to-voice less the time inside the providers (which includes each credit hold). */
  platform: Spread;
  platformMinusEndpointing: Spread;
  /** The same from the callee's clock: it adds the hops between the sandbox and workerd. */
  calleePlatform: Spread;
  calleePlatformMinusEndpointing: Spread;
  /**
   * Time inside the provider calls that is ours: for stt (not when speculative), llm and tts, the call's p50 less the bare
   * chain's, summed (credit holds and the hop through workerd). p50 only: the p95 of both sides is
   * the sandbox's speech thread being replaced (every 25 syntheses), which lands on either side.
   */
  providersOverhead: number;
  workerVoiceToVoice: Spread;
  /** As the sandbox reports it: from the line's last frame sent to the first agent audio received. */
  calleeVoiceToVoice: Spread;
  /** The same from the end of the line's last loud frame, where the worker's measure starts. */
  calleeFromLoud: Spread;
  providersInCall: Spread;
  bareChain: Spread;
  /** providers inside the call ÷ the bare chain, at p50 and p95. */
  providersRatio: { p50: number; p95: number };
  parts: Array<{ part: "stt" | "llm" | "tts"; inCall: Spread; bare: Spread }>;
}

const spread = (xs: number[]): Spread => ({ n: xs.length, p50: percentile(xs, 50), p95: percentile(xs, 95) });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const ENDED = new Set(["completed", "failed", "busy", "no-answer", "canceled"]);

interface Proc {
  pid: number;
  ppid: number;
  rssKiB: number;
  comm: string;
}

/** Every process from /proc (Linux): no child process and no blocking call, so the sandbox's frame pacing is not disturbed. */
async function procTable(): Promise<Proc[] | null> {
  let names: string[];
  try {
    names = await readdir("/proc");
  } catch {
    return null;
  }
  const rows = await Promise.all(
    names
      .filter((n) => /^\d+$/.test(n))
      .map(async (n) => {
        try {
          // "pid (comm) state ppid …", rss (pages) is the 24th field
          const stat = await readFile(`/proc/${n}/stat`, "utf8");
          const close = stat.lastIndexOf(")");
          const rest = stat.slice(close + 2).split(" ");
          return { pid: Number(n), ppid: Number(rest[1]), rssKiB: Number(rest[21]) * 4, comm: stat.slice(stat.indexOf("(") + 1, close) };
        } catch {
          return null; // ended meanwhile
        }
      }),
  );
  return rows.filter((r): r is Proc => r !== null);
}

/** The same from `ps` where there is no /proc (macOS). */
function psTable(): Promise<Proc[]> {
  return new Promise((resolve) =>
    execFile("ps", ["-axo", "pid=,ppid=,rss=,comm="], { encoding: "utf8", timeout: 5_000 }, (err, out) =>
      resolve(
        err
          ? []
          : out
              .trim()
              .split("\n")
              .map((l) => l.trim().split(/\s+/))
              .map(([pid, ppid, rss, ...comm]) => ({ pid: Number(pid), ppid: Number(ppid), rssKiB: Number(rss), comm: comm.join(" ") })),
      ),
    ),
  );
}

/**
 * The workerd processes under this one (wrangler dev's runtime) and their resident memory. A pid
 * that appears during a measurement means wrangler restarted the runtime: it does that when a file
 * of the worker's bundle changes, and every live call is cut.
 */
async function workerdProcesses(): Promise<Array<{ pid: number; rssKiB: number }>> {
  const rows = (await procTable()) ?? (await psTable());
  const mine = new Set([process.pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const r of rows) {
      if (!mine.has(r.pid) && mine.has(r.ppid)) {
        mine.add(r.pid);
        grew = true;
      }
    }
  }
  return rows.filter((r) => mine.has(r.pid) && r.comm.includes("workerd")).map(({ pid, rssKiB }) => ({ pid, rssKiB }));
}

interface Context {
  stack: Stack;
  /** The worker the calls are placed on (one per voice loop). */
  baseUrl: string;
  telephony: TelephonySandbox;
  apiKey: string;
  agentId: string;
  db: ReturnType<typeof createDb>["db"];
  log: (line: string) => void;
}

async function placeCall(ctx: Context, phoneNumber: string): Promise<{ id: string } | { error: string }> {
  try {
    const res = await fetch(`${ctx.baseUrl}/v1/agents/${ctx.agentId}/calls`, {
      method: "POST",
      headers: { authorization: `Bearer ${ctx.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ phoneNumber }),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    if (res.status !== 201) return { error: `POST /v1/agents/:id/calls answered ${res.status}: ${text.slice(0, 200)}` };
    return { id: (JSON.parse(text) as { id: string }).id };
  } catch (err) {
    return { error: `POST /v1/agents/:id/calls: ${(err as Error).message}` };
  }
}

/** Places `n` calls at once and waits for every one to end on both sides; one outcome per call. */
async function runBatch(ctx: Context, n: number, phoneNumber = CONVERSATION): Promise<CallOutcome[]> {
  const pidsBefore = new Set((await workerdProcesses()).map((p) => p.pid));
  const placed = await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      await sleep(i * STAGGER_MS);
      return placeCall(ctx, phoneNumber);
    }),
  );
  const ids = placed.flatMap((p) => ("id" in p ? [p.id] : []));
  // The sandbox call exists once the POST answered (the worker dials inside the request).
  const byCall = new Map<string, SandboxCall>();
  const deadline = Date.now() + (MAX_CALL_SECONDS + 30) * 1000;
  for (;;) {
    for (const c of ctx.telephony.calls) {
      const id = c.customParameters.callId;
      if (id && ids.includes(id)) byCall.set(id, c);
    }
    const open = ids.filter((id) => {
      const c = byCall.get(id);
      return !c || c.endedAt === undefined;
    });
    if (open.length === 0 || Date.now() > deadline) break;
    await sleep(250);
  }
  // The last status callback is attempted after the hang-up; wait for it (the worker's side of the end).
  await Promise.all([...byCall.values()].map((c) => ctx.telephony.waitFor(c.sid, 20_000).catch(() => undefined)));

  // The worker's record: status, ending and the transcript with each reply's latency, from the database.
  let rows: Array<{ id: string; status: string; endedReason: string | null; transcript: TranscriptTurn[] }> = [];
  for (const until = Date.now() + 30_000; ids.length > 0; ) {
    rows = await ctx.db
      .select({ id: calls.id, status: calls.status, endedReason: calls.endedReason, transcript: calls.transcript })
      .from(calls)
      .where(inArray(calls.id, ids));
    if (rows.every((r) => ENDED.has(r.status)) || Date.now() > until) break;
    await sleep(500);
  }
  const rowOf = new Map(rows.map((r) => [r.id, r]));
  const restarted = (await workerdProcesses()).filter((p) => !pidsBefore.has(p.pid)).length;

  return placed.map((p) => {
    const out: CallOutcome = {
      callId: null,
      sid: null,
      status: null,
      endedReason: null,
      said: [],
      heard: [],
      replies: [],
      userTurns: [],
      calleeLatencies: [],
      underruns: 0,
      lateFrames: 0,
      framesSent: 0,
      endedBy: null,
      seconds: null,
      span: null,
      firstAudioMs: null,
      errors: [],
      problems: [],
      notes: [],
    };
    if ("error" in p) {
      out.problems.push(p.error);
      return out;
    }
    out.callId = p.id;
    const row = rowOf.get(p.id);
    const sc = byCall.get(p.id);
    if (sc) {
      out.sid = sc.sid;
      out.said = sc.said.map((s) => s.text);
      out.calleeLatencies = [...sc.latencies];
      out.underruns = sc.underruns;
      out.lateFrames = sc.lateFrames;
      out.framesSent = sc.framesSent;
      out.endedBy = sc.endedBy ?? null;
      if (sc.answeredAt !== undefined && sc.endedAt !== undefined) {
        out.seconds = round((sc.endedAt - sc.answeredAt) / 1000, 1);
        out.span = [sc.answeredAt, sc.endedAt];
      }
      const firstAudio = sc.agentUtterances[0]?.firstFrameAt;
      if (sc.answeredAt !== undefined && firstAudio !== undefined) out.firstAudioMs = Math.round(firstAudio - sc.answeredAt);
      const calleeFirst = sc.said[0] && (firstAudio === undefined || sc.said[0].startAt < firstAudio);
      if (calleeFirst)
        out.notes.push(
          `the callee spoke first: the agent's first message ${firstAudio === undefined ? "never came" : `came ${out.firstAudioMs} ms after the answer`} (the callee waits ${FIRST_WORDS_MS} ms)`,
        );
      out.errors = [...sc.errors];
      if (sc.endedAt === undefined) out.problems.push(`the sandbox call had not ended after ${MAX_CALL_SECONDS + 30} s`);
      if (sc.errors.length > 0) out.problems.push(`sandbox errors: ${sc.errors.slice(0, 2).join("; ")}`);
    } else out.problems.push("no sandbox call carries this call id");
    if (row) {
      out.status = row.status;
      out.endedReason = row.endedReason;
      out.heard = row.transcript.filter((t) => t.role === "user").map((t) => t.text);
      out.replies = row.transcript.flatMap((t) => (t.role === "agent" && t.latency ? [t.latency] : []));
      out.userTurns = row.transcript.flatMap((t) => (t.role === "user" && t.turnTaking ? [t.turnTaking] : []));
      if (!ENDED.has(row.status)) out.problems.push(`still ${row.status} in the database`);
      else if (row.endedReason !== "agent-ended-call")
        out.problems.push(
          `ended ${row.status} / ${row.endedReason} (sandbox: ended by ${sc?.endedBy ?? "?"}${sc?.closeCode ? `, stream closed ${sc.closeCode} ${sc.closeReason ?? ""}` : ""}, ${sc?.agentUtterances.length ?? 0} agent utterances)`,
        );
    } else out.problems.push("no row in calls");
    if (out.said.length !== SCRIPT.length || out.heard.join("\n") !== out.said.join("\n"))
      out.problems.push(`transcript user turns ${JSON.stringify(out.heard)} ≠ callee said ${JSON.stringify(out.said)}`);
    if (out.underruns > 0) out.problems.push(`${out.underruns} underruns`);
    if (restarted > 0 && out.problems.length > 0) {
      out.cutByRestart = true;
      out.problems.push("workerd was restarted during the call (wrangler reloads when a file of the worker changes)");
    }
    return out;
  });
}

interface Line {
  /** The line as the worker hands it to speech-to-text: a WAV of the turn at 8 kHz. */
  wav: Uint8Array;
  /**
   * The line's last frames that are too quiet to count as speech for the worker's turn detector
   * (RMS ≤ 400 on silence): the callee's measure starts at the line's last frame, the worker's
   * at its last loud one, this much earlier.
   */
  quietTailMs: number;
}

/** The callee's audio of each script line (the sandbox's 8 kHz μ-law), decoded, as the worker receives it. */
async function scriptLines(stack: Stack): Promise<Line[]> {
  const voice = new CalleeVoice({ url: stack.provider.baseUrl, apiKey: stack.provider.apiKey }, "nova");
  const silence = (ms: number) => new Int16Array((TELEPHONY_RATE * ms) / 1000);
  const frame = (TELEPHONY_RATE * FRAME_MS) / 1000;
  return Promise.all(
    SCRIPT.map(async (text) => {
      const speech = mulawDecode(await voice.audio(text));
      const frames = Math.ceil(speech.length / frame);
      let lastLoud = frames - 1;
      while (lastLoud > 0 && rms(speech.subarray(lastLoud * frame, (lastLoud + 1) * frame)) <= SPEECH_RMS) lastLoud--;
      const pre = silence(PRE_ROLL_MS);
      const post = silence(parseEnv(stack.vars).CALL_ENDPOINTING_MS);
      const turn = new Int16Array(pre.length + speech.length + post.length);
      turn.set(speech, pre.length);
      return { wav: pcmToWav(pcm16ToBytes(turn), TELEPHONY_RATE), quietTailMs: (frames - 1 - lastLoud) * FRAME_MS };
    }),
  );
}

interface ChainTiming {
  sttMs: number;
  llmMs: number;
  ttsMs: number;
  totalMs: number;
  recognized: boolean;
  /** The same turn streamed: the transcription, the chat streamed to its first sentence, that sentence's speech to its first byte. */
  streamed: { llmMs: number; ttsMs: number; totalMs: number };
}

/** Reads an SSE chat stream until its text holds a complete first sentence (or ends); returns that sentence. */
async function firstSentence(res: Response): Promise<string> {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let raw = "";
  let text = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    raw += decoder.decode(value, { stream: true });
    for (let nl = raw.indexOf("\n\n"); nl !== -1; nl = raw.indexOf("\n\n")) {
      const data = raw.slice(0, nl).replace(/^data: /, "");
      raw = raw.slice(nl + 2);
      if (data === "[DONE]") break;
      text += (JSON.parse(data) as { choices: Array<{ delta?: { content?: string } }> }).choices[0]?.delta?.content ?? "";
      const m = /^.*?[.!?…]+(?=\s)/s.exec(text);
      if (m) {
        await reader.cancel();
        return m[0].trim();
      }
    }
  }
  return text.trim();
}

/**
 * One conversation's worth of the bare provider chain, from Node to the provider sandbox: for each
 * line, the requests the worker makes for a turn (src/providers/openai.ts), nothing else.
 */
async function bareChains(stack: Stack, lines: Line[], baseUrl: string): Promise<ChainTiming[]> {
  const { apiKey } = stack.provider;
  const auth = { authorization: `Bearer ${apiKey}` };
  const history: Array<{ role: string; content: string }> = [
    { role: "system", content: VOICE_INSTRUCTIONS },
    { role: "assistant", content: FIRST_MESSAGE },
  ];
  const out: ChainTiming[] = [];
  for (const [i, { wav }] of lines.entries()) {
    const t0 = performance.now();
    const form = new FormData();
    form.set("file", new Blob([wav], { type: "audio/wav" }), "turn.wav");
    form.set("model", "whisper-1");
    form.set("response_format", "verbose_json");
    form.set("language", "en");
    const stt = await fetch(`${baseUrl}/audio/transcriptions`, { method: "POST", headers: auth, body: form });
    const text = ((await stt.json()) as { text?: string }).text?.trim() ?? "";
    const t1 = performance.now();
    history.push({ role: "user", content: text });
    const chat = await fetch(`${baseUrl}/chat/completions`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ model: "sandbox-chat", messages: history, temperature: 0.7, max_tokens: 300, stream: false }),
    });
    const reply = ((await chat.json()) as { choices?: Array<{ message?: { content?: string } }> }).choices?.[0]?.message?.content ?? "";
    const t2 = performance.now();
    history.push({ role: "assistant", content: reply });
    const tts = await fetch(`${baseUrl}/audio/speech`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ model: "tts-1", input: reply || "Sorry?", voice: "alloy", response_format: "pcm" }),
    });
    await tts.arrayBuffer();
    const t3 = performance.now();
    // Streamed: the same chat request with stream: true to its first sentence, then that sentence's speech to its first byte.
    const s1 = performance.now();
    const streamedChat = await fetch(`${baseUrl}/chat/completions`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ model: "sandbox-chat", messages: history.slice(0, -1), temperature: 0.7, max_tokens: 300, stream: true }),
    });
    const sentence = await firstSentence(streamedChat);
    const s2 = performance.now();
    const speech = await fetch(`${baseUrl}/audio/speech`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ model: "tts-1", input: sentence || "Sorry?", voice: "alloy", response_format: "pcm" }),
    });
    const sr = (speech.body as ReadableStream<Uint8Array>).getReader();
    await sr.read();
    const s3 = performance.now();
    await sr.cancel();
    out.push({
      sttMs: t1 - t0,
      llmMs: t2 - t1,
      ttsMs: t3 - t2,
      totalMs: t3 - t0,
      recognized: text === SCRIPT[i] && stt.ok && chat.ok && tts.ok,
      streamed: { llmMs: s2 - s1, ttsMs: s3 - s2, totalMs: t1 - t0 + (s3 - s1) },
    });
  }
  return out;
}

/** The most calls live at the same moment, from the sandbox's answer and hang-up times. */
function peakLive(outcomes: CallOutcome[]): number {
  const edges = outcomes.flatMap((o) =>
    o.span
      ? [
          { at: o.span[0], d: 1 },
          { at: o.span[1], d: -1 },
        ]
      : [],
  );
  edges.sort((a, b) => a.at - b.at || a.d - b.d);
  let live = 0;
  let peak = 0;
  for (const e of edges) {
    live += e.d;
    peak = Math.max(peak, live);
  }
  return peak;
}

/** A level: `simultaneous` calls at a time (1: the sequential calls of part 1), every call's checks. */
function summarizeLevel(outcomes: CallOutcome[], obs: Observation, simultaneous = 1): LevelResult {
  const n = outcomes.length;
  const agentEnded = outcomes.filter((o) => o.status === "completed" && o.endedReason === "agent-ended-call").length;
  const transcribed = outcomes.filter((o) => o.said.length === SCRIPT.length && o.heard.join("\n") === o.said.join("\n")).length;
  const underruns = sum(outcomes.map((o) => o.underruns));
  const lateFrames = sum(outcomes.map((o) => o.lateFrames));
  const framesSent = sum(outcomes.map((o) => o.framesSent));
  const failedChecks: string[] = [];
  if (agentEnded < n) failedChecks.push(`${n - agentEnded} of ${n} did not end agent-ended-call`);
  if (transcribed < n) failedChecks.push(`${n - transcribed} of ${n} with callee lines not all transcribed`);
  if (underruns > 0) failedChecks.push(`${underruns} underruns (audible gaps) in ${outcomes.filter((o) => o.underruns > 0).length} calls`);
  if (obs.reloads > 0 && outcomes.some((o) => o.problems.length > 0))
    failedChecks.push(
      `workerd was restarted ${obs.reloads}× during the level (wrangler reloads when a file of the worker changes): live calls were cut, not a load failure`,
    );
  const workerHeld = failedChecks.length === 0;
  const loadGeneratorLagged = lateFrames > Math.max(1, LATE_TOLERANCE * framesSent);
  if (loadGeneratorLagged)
    failedChecks.push(
      `the sandbox sent ${lateFrames} of ${framesSent} frames over 40 ms late (${round((lateFrames / framesSent) * 100, 1)} %, this process stalled up to ${obs.loop.max} ms): the load generator's limit, not the worker's`,
    );
  const endings: Record<string, number> = {};
  for (const o of outcomes) {
    const k = o.status ? `${o.status}/${o.endedReason}` : "not placed";
    endings[k] = (endings[k] ?? 0) + 1;
  }
  const replies = outcomes.flatMap((o) => o.replies);
  const calleeFirst = outcomes.filter((o) => o.notes.length > 0).length;
  return {
    simultaneous,
    calls: n,
    held: failedChecks.length === 0,
    workerHeld,
    loadGeneratorLagged,
    failedChecks,
    agentEnded,
    transcribed,
    underruns,
    lateFrames,
    framesSent,
    voiceToVoice: spread(replies.map((r) => r.voiceToVoiceMs)),
    calleeSide: spread(outcomes.flatMap((o) => o.calleeLatencies)),
    firstAudio: spread(outcomes.flatMap((o) => (o.firstAudioMs === null ? [] : [o.firstAudioMs]))),
    peakLive: peakLive(outcomes),
    platform: spread(replies.map((r) => r.platformMs)),
    workerdRssMiB: obs.rssKiB === null ? null : round(obs.rssKiB / 1024, 0),
    loopDelayMs: obs.loop,
    reloads: obs.reloads,
    seconds: round(obs.seconds, 1),
    endings,
    notes:
      calleeFirst > 0
        ? [
            `${calleeFirst} of ${n} calls: the callee spoke first (the agent's first message came after the callee's ${FIRST_WORDS_MS} ms wait)`,
          ]
        : [],
    // The calls that failed a check first, then those with a note.
    examples: [...outcomes.filter((o) => o.problems.length > 0), ...outcomes.filter((o) => o.problems.length === 0 && o.notes.length > 0)]
      .slice(0, 5)
      .map((o) => ({ callId: o.callId, sid: o.sid, problems: [...o.problems, ...o.notes] })),
  };
}

interface Observation {
  seconds: number;
  rssKiB: number | null;
  loop: LevelResult["loopDelayMs"];
  reloads: number;
}

/** Runs `fn` while sampling workerd's RSS, this process's event-loop delay and wrangler's reloads. */
async function observed<T>(reloads: () => number, fn: () => Promise<T>): Promise<{ value: T; obs: Observation }> {
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  let rssKiB: number | null = null;
  const pids = new Set<number>();
  let first = true;
  let restarts = 0;
  const sample = async () => {
    const procs = await workerdProcesses();
    if (procs.length > 0) rssKiB = Math.max(rssKiB ?? 0, sum(procs.map((p) => p.rssKiB)));
    for (const p of procs) {
      if (!pids.has(p.pid) && !first) restarts++;
      pids.add(p.pid);
    }
    first = false;
  };
  await sample();
  const timer = setInterval(() => void sample(), 2_000);
  const t0 = performance.now();
  const reloadsBefore = reloads();
  try {
    const value = await fn();
    await sample();
    const obs: Observation = {
      seconds: (performance.now() - t0) / 1000,
      rssKiB,
      loop: { p99: round(loop.percentile(99) / 1e6, 0), max: round(loop.max / 1e6, 0) },
      reloads: Math.max(restarts, reloads() - reloadsBefore),
    };
    return { value, obs };
  } finally {
    clearInterval(timer);
    loop.disable();
  }
}

const ms = (n: number) => (Number.isFinite(n) ? String(Math.round(n)) : "—");
const x = (n: number) => (Number.isFinite(n) ? `×${n.toFixed(2)}` : "—");

export async function runCallsBench(stack: Stack, ws: BenchWorkspace, opts: CallsBenchOptions): Promise<CallsBenchResult> {
  const { log } = opts;
  const reloads = opts.reloads ?? (() => 0);
  const telephony = stack.telephony;
  if (!telephony || !stack.provider.sandbox)
    throw new Error("the calls bench needs the local provider and telephony sandboxes; unset OPENAI_API_KEY");
  const started = performance.now();
  const endpointingMs = parseEnv(stack.vars).CALL_ENDPOINTING_MS;
  const endpointingSource = stack.vars.CALL_ENDPOINTING_MS ? "stack vars" : "worker default";
  const { db, pool } = createDb(stack.databaseUrl, stack.wsProxy, 2);
  const workers: BenchWorker[] = [];
  try {
    // Dozens of calls: plenty of credits, so the balance is never what ends one.
    await adjustCredits(db, ws.organizationId, { addMicro: 1_000_000_000 });
    const res = await fetch(`${stack.baseUrl}/v1/agents`, {
      method: "POST",
      headers: { authorization: `Bearer ${ws.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({
        name: "Bench call agent",
        personaId: randomUUID(),
        llmModel: "sandbox-chat",
        firstMessage: FIRST_MESSAGE,
        endCallPhrases: ["goodbye"],
        maxDurationSeconds: MAX_CALL_SECONDS,
        silenceTimeoutSeconds: SILENCE_TIMEOUT_SECONDS,
      }),
    });
    if (res.status !== 201) throw new Error(`POST /v1/agents answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
    const agentId = ((await res.json()) as { id: string }).id;
    // One worker per voice loop, both on the provider sandbox's realistic profile (its base URLs
    // carry the profile: docs/sandbox.md#latency-profiles); the callee still speaks through the instant one.
    const realisticVars: Record<string, string> = {
      ...stack.vars,
      OPENAI_BASE_URL: withLatencyProfile(stack.provider.baseUrl, "realistic"),
      ...(stack.elevenLabs?.sandbox && stack.vars.ELEVENLABS_BASE_URL
        ? { ELEVENLABS_BASE_URL: withLatencyProfile(stack.vars.ELEVENLABS_BASE_URL, "realistic") }
        : {}),
    };
    const base: Record<Pipeline, string> = { serial: "", streaming: "", speculative: "" };
    for (const pipeline of PIPELINES) {
      const vars = PIPELINE_VARS[pipeline];
      log(
        `calls: starting the ${pipeline} loop's worker (${Object.entries(vars)
          .map(([k, v]) => `${k}=${v}`)
          .join(" ")}, realistic provider timings)…`,
      );
      const w = await startBenchWorker({ ...realisticVars, ...vars });
      workers.push(w);
      base[pipeline] = w.baseUrl;
    }
    const ctxOf = (pipeline: Pipeline): Context => ({ stack, baseUrl: base[pipeline], telephony, apiKey: ws.apiKey, agentId, db, log });
    const ctx = ctxOf(DEFAULT_PIPELINE);
    const providerUrl = realisticVars.OPENAI_BASE_URL as string;

    // -- 1. voice-to-voice, one call at a time, alternating the two loops, each pair after its bare chain --
    const lines = await scriptLines(stack);
    // Warm-up, not measured: the first call of a worker instantiates the Durable Object class and
    // the call path. The hanging-up callee says one line and hangs up, so it costs seconds, not a conversation.
    log("calls: warm-up (one short call per worker and one bare chain, not measured)…");
    for (const pipeline of PIPELINES) await runBatch(ctxOf(pipeline), 1, HANGS_UP);
    await bareChains(stack, lines, providerUrl);

    const sequential: Record<Pipeline, CallOutcome[]> = { serial: [], streaming: [], speculative: [] };
    const chains: ChainTiming[] = [];
    let redone = 0;
    const seq = await observed(reloads, async () => {
      for (let k = 0; k < opts.runs; k++) {
        chains.push(...(await bareChains(stack, lines, providerUrl)));
        // Alternate the loops' order, so none always follows the bare chain.
        for (const pipeline of k % 2 === 0 ? PIPELINES : [...PIPELINES].reverse()) {
          let [o] = await runBatch(ctxOf(pipeline), 1);
          if (o?.cutByRestart && redone < 3) {
            redone++;
            log(`calls: ${o.callId} was cut by a workerd restart: once more`);
            [o] = await runBatch(ctxOf(pipeline), 1);
          }
          if (!o) continue;
          sequential[pipeline].push(o);
          const v2v = o.replies.map((r) => Math.round(r.voiceToVoiceMs)).join("/");
          log(
            `calls: [${k + 1}/${opts.runs}] ${pipeline.padEnd(9)} ${o.callId} ${o.status}/${o.endedReason} in ${o.seconds ?? "?"} s, ` +
              `v2v ${v2v || "—"} ms (worker), ${o.calleeLatencies.join("/") || "—"} ms (callee)` +
              `${o.problems.length ? `  PROBLEM: ${o.problems.join("; ")}` : ""}${o.notes.length ? `  NOTE: ${o.notes.join("; ")}` : ""}`,
          );
        }
      }
    });
    const unrecognized = chains.filter((c) => !c.recognized).length;
    if (unrecognized > 0) log(`calls: ${unrecognized} bare chains did not get the line back from the transcription (or a request failed)`);
    const wait = endpointingMs - FRAME_MS;
    const voiceToVoice = {
      serial: summarizeVoice(sequential.serial, chains, lines, wait, false),
      streaming: summarizeVoice(sequential.streaming, chains, lines, wait, true),
      speculative: summarizeVoice(sequential.speculative, chains, lines, wait, true),
    };
    const all = PIPELINES.flatMap((p) => sequential[p]);
    const sequentialFailures = all.filter((o) => o.problems.length > 0).length + (PIPELINES.length * opts.runs - all.length);
    const replies = all.flatMap((o) => o.replies);

    // -- 2. concurrency ramp ------------------------------------------------------------------
    const levels: LevelResult[] = [];
    const runLevel = async (n: number): Promise<LevelResult> => {
      log(`calls: ${n} simultaneous calls (${DEFAULT_PIPELINE} loop)…`);
      await sleep(1_000); // let the previous level's analyses and settlements finish
      let run = await observed(reloads, () => runBatch(ctx, n));
      if (run.obs.reloads > 0 && run.value.some((o) => o.problems.length > 0)) {
        log(`calls: workerd was restarted during the level (wrangler reloaded the worker): ${n} simultaneous calls once more`);
        redone++;
        await sleep(2_000);
        run = await observed(reloads, () => runBatch(ctx, n));
      }
      const level = summarizeLevel(run.value, run.obs, n);
      log(
        `calls:   ${n} → ${level.held ? "held" : `DID NOT HOLD: ${level.failedChecks.join("; ")}`} (${level.seconds} s, v2v p50 ${ms(level.voiceToVoice.p50)} ms)`,
      );
      return level;
    };
    for (const n of opts.levels) {
      // One call alone is what part 1 measured K times.
      const alone = sequential[DEFAULT_PIPELINE];
      const level = n === 1 && alone.length > 0 ? summarizeLevel(alone, seq.obs) : await runLevel(n);
      if (n === 1 && alone.length > 0)
        log(
          `calls:   1 (the ${alone.length} ${DEFAULT_PIPELINE} calls above) → ${level.held ? "held" : `DID NOT HOLD: ${level.failedChecks.join("; ")}`}`,
        );
      levels.push(level);
      // A level where only the load generator lagged says nothing against the worker: go on, so its
      // own limit is still found. Stop at the first level where a check of the worker failed, or
      // when the load generator is so late that a higher level would measure it, not the worker.
      if (!level.workerHeld) {
        // The levels are far apart (to keep the run short): try once halfway to the last that held.
        const below = levels.at(-2);
        const mid = below ? Math.round((below.simultaneous + n) / 2) : 0;
        if (below?.workerHeld && mid > below.simultaneous && mid < n) levels.splice(-1, 0, await runLevel(mid));
        break;
      }
      if (level.lateFrames > LATE_OVERWHELMED * level.framesSent) {
        log(
          `calls:   the load generator sent ${round((level.lateFrames / level.framesSent) * 100, 1)} % of its frames late: the ramp stops here`,
        );
        level.stoppedRamp = true;
        break;
      }
    }
    /** The highest level reached with every level up to it passing `ok`. */
    const highest = (ok: (l: LevelResult) => boolean) => {
      let top: number | null = null;
      for (const l of levels) {
        if (!ok(l)) break;
        top = l.simultaneous;
      }
      return top;
    };
    const highestHeld = highest((l) => l.held);
    const highestWorkerHeld = highest((l) => l.workerHeld);

    const result: CallsBenchResult = {
      endpointingMs,
      endpointingSource,
      runs: opts.runs,
      replies: replies.length,
      profile: "realistic",
      voiceToVoice,
      sequentialFailures,
      levels,
      highestHeld,
      highestWorkerHeld,
      redoneAfterRestart: redone,
      seconds: round((performance.now() - started) / 1000, 0),
    };
    report(result, log);
    return result;
  } finally {
    await Promise.all(workers.map((w) => w.stop().catch(() => undefined)));
    await pool.end();
  }
}

/** One loop's voice-to-voice figures from its sequential calls, against the bare chain (streamed for the streaming loop). */
function summarizeVoice(sequential: CallOutcome[], chains: ChainTiming[], lines: Line[], wait: number, streamed: boolean): VoiceSummary {
  const replies = sequential.flatMap((o) => o.replies);
  // Each reply's endpointing wait as its caller turn took it (replies and caller turns pair up in
  // order when the call has as many of each); the configured one otherwise.
  const waits = sequential.flatMap((o) =>
    o.userTurns.length === o.replies.length ? o.userTurns.map((t) => t.waitMs) : o.replies.map(() => wait),
  );
  const turnTaking = sequential
    .flatMap((o) => o.userTurns)
    .reduce(
      (n, t) => ({
        turns: n.turns + 1,
        endedBySentence: n.endedBySentence + (t.endedBy === "sentence" ? 1 : 0),
        speculations: n.speculations + t.speculations,
        committed: n.committed + (t.committed ? 1 : 0),
        discarded: n.discarded + t.discarded,
        transcriptions: n.transcriptions + t.transcriptions,
      }),
      { turns: 0, endedBySentence: 0, speculations: 0, committed: 0, discarded: 0, transcriptions: 0 },
    );
  const providers = replies.map((r) => r.sttMs + r.llmMs + r.ttsMs);
  // The callee's measure of each reply, moved to where the worker's starts (the end of the line's
  // last loud frame), less the same reply's time inside the providers. Replies and callee lines
  // pair up in order when the call has as many of each.
  const tail = (text: string | undefined) => lines[SCRIPT.indexOf(text ?? "")]?.quietTailMs ?? 0;
  const calleeFromLoud = sequential.flatMap((o) =>
    o.calleeLatencies.length === o.replies.length ? o.calleeLatencies.map((l, i) => l + tail(o.said[i]) - FRAME_MS) : [],
  );
  const calleePlatform = sequential.flatMap((o) =>
    o.calleeLatencies.length === o.replies.length
      ? o.replies.map((r, i) => ({
          platform: (o.calleeLatencies[i] as number) + tail(o.said[i]) - FRAME_MS - (r.sttMs + r.llmMs + r.ttsMs),
          wait: o.userTurns.length === o.replies.length ? (o.userTurns[i] as TurnTaking).waitMs : wait,
        }))
      : [],
  );
  const bareOf = (c: ChainTiming) =>
    streamed ? { sttMs: c.sttMs, llmMs: c.streamed.llmMs, ttsMs: c.streamed.ttsMs, totalMs: c.streamed.totalMs } : c;
  const bareChains = chains.map(bareOf);
  const bare = bareChains.map((c) => c.totalMs);
  return {
    replies: replies.length,
    endpointingWaitMs: waits.length > 0 ? percentile(waits, 50) : wait,
    turnTaking,
    quietTailsMs: lines.map((l) => l.quietTailMs),
    platform: spread(replies.map((r) => r.platformMs)),
    platformMinusEndpointing: spread(replies.map((r, i) => r.platformMs - (waits[i] ?? wait))),
    calleePlatform: spread(calleePlatform.map((c) => c.platform)),
    calleePlatformMinusEndpointing: spread(calleePlatform.map((c) => c.platform - c.wait)),
    // A committed speculation's stt in the call is only what was left of it after the turn's end: not comparable with the bare one.
    providersOverhead: sum(
      (turnTaking.committed > 0 ? (["llm", "tts"] as const) : (["stt", "llm", "tts"] as const)).map(
        (part) =>
          percentile(
            replies.map((r) => r[`${part}Ms`]),
            50,
          ) -
          percentile(
            bareChains.map((c) => c[`${part}Ms`]),
            50,
          ),
      ),
    ),
    workerVoiceToVoice: spread(replies.map((r) => r.voiceToVoiceMs)),
    calleeVoiceToVoice: spread(sequential.flatMap((o) => o.calleeLatencies)),
    calleeFromLoud: spread(calleeFromLoud),
    providersInCall: spread(providers),
    bareChain: spread(bare),
    providersRatio: { p50: percentile(providers, 50) / percentile(bare, 50), p95: percentile(providers, 95) / percentile(bare, 95) },
    parts: (["stt", "llm", "tts"] as const).map((part) => ({
      part,
      inCall: spread(replies.map((r) => r[`${part}Ms`])),
      bare: spread(bareChains.map((c) => c[`${part}Ms`])),
    })),
  };
}

function report(r: CallsBenchResult, log: (line: string) => void): void {
  const row = (label: string, s: Spread, extra = "") => [label, s.n, ms(s.p50), ms(s.p95), extra];
  const ratio = (a: Spread, b: Spread) => `${x(a.p50 / b.p50)} p50, ${x(a.p95 / b.p95)} p95`;
  for (const pipeline of PIPELINES) {
    const v = r.voiceToVoice[pipeline];
    const wait = v.endpointingWaitMs;
    log("");
    log(
      `Calls, ${pipeline} loop: voice-to-voice over ${v.replies} agent replies in ${r.runs} conversation calls, one at a time, ` +
        `provider sandbox on its ${r.profile} profile (endpointing ${r.endpointingMs} ms, ${r.endpointingSource}); ` +
        `baseline: the bare provider chain from Node${pipeline !== "serial" ? ", streamed (chat to its first sentence, speech to its first byte)" : ""}, ` +
        `${v.bareChain.n} times in the same run; the lines' quiet tails: ${v.quietTailsMs.join("/")} ms`,
    );
    log(
      table(
        ["measure", "n", "p50 ms", "p95 ms", "vs bare chain"],
        [
          row("platform share: worker's v2v − its time inside the providers", v.platform),
          row(
            `  − each turn's endpointing wait (p50 ${wait} ms): our code and database outside provider calls`,
            v.platformMinusEndpointing,
          ),
          row("platform share on the callee's clock (from its last loud frame)", v.calleePlatform),
          row(`  − each turn's endpointing wait (p50 ${wait} ms): the same + the hops sandbox ⇄ workerd`, v.calleePlatformMinusEndpointing),
          [
            "inside the provider calls: credit holds + hops through workerd",
            v.providersInCall.n,
            ms(v.providersOverhead),
            "—",
            "Σ part p50 in call − bare",
          ],
          row("voice-to-voice, measured in the worker", v.workerVoiceToVoice, ratio(v.workerVoiceToVoice, v.bareChain)),
          row("voice-to-voice, callee (from its line's last frame)", v.calleeVoiceToVoice, ratio(v.calleeVoiceToVoice, v.bareChain)),
          row("voice-to-voice, callee (from its last loud frame)", v.calleeFromLoud, ratio(v.calleeFromLoud, v.bareChain)),
          row("providers inside the call (stt + llm + tts)", v.providersInCall, ratio(v.providersInCall, v.bareChain)),
          row("bare provider chain from Node (baseline)", v.bareChain, "×1.00"),
          ...v.parts.flatMap((p) => [
            row(`  ${p.part} inside the call`, p.inCall, ratio(p.inCall, p.bare)),
            row(`  ${p.part} bare`, p.bare),
          ]),
        ],
        new Set([1, 2, 3]),
      ),
    );
  }
  const at16 = r.levels.find((l) => l.simultaneous === GOAL.simultaneous);
  const g = r.voiceToVoice[DEFAULT_PIPELINE];
  log("");
  log(
    `Calls: the loops side by side (${r.profile} provider timings), and the goal (on the ${DEFAULT_PIPELINE} loop, the worker's default)`,
  );
  const gap = (value: number, goal: number) => (Number.isFinite(value) ? `${value - goal > 0 ? "+" : ""}${Math.round(value - goal)}` : "—");
  const each = (f: (v: VoiceSummary) => string | number) => PIPELINES.map((p) => f(r.voiceToVoice[p]));
  const part = (v: VoiceSummary, i: number) => ms(v.parts[i]?.inCall.p50 ?? Number.NaN);
  const perTurn = (v: VoiceSummary, n: number) => (v.turnTaking.turns > 0 ? (n / v.turnTaking.turns).toFixed(2) : "—");
  log(
    table(
      ["measure", ...PIPELINES, "goal", `${DEFAULT_PIPELINE} − goal`],
      [
        [
          "voice-to-voice p50, callee's clock",
          ...each((v) => ms(v.calleeVoiceToVoice.p50)),
          GOAL.p50,
          gap(g.calleeVoiceToVoice.p50, GOAL.p50),
        ],
        [
          "voice-to-voice p95, callee's clock",
          ...each((v) => ms(v.calleeVoiceToVoice.p95)),
          GOAL.p95,
          gap(g.calleeVoiceToVoice.p95, GOAL.p95),
        ],
        [
          "platform share p50: our code and database between provider calls",
          ...each((v) => ms(v.platformMinusEndpointing.p50)),
          GOAL.platformP50,
          gap(g.platformMinusEndpointing.p50, GOAL.platformP50),
        ],
        ["  + inside the provider calls (holds, hops; in-call − bare p50, noisy)", ...each((v) => ms(v.providersOverhead)), "—", "—"],
        ["  endpointing wait p50 (as the turns took it)", ...each((v) => ms(v.endpointingWaitMs)), "—", "—"],
        ["  stt p50 (in call; speculative: what was left after the turn's end)", ...each((v) => part(v, 0)), "—", "—"],
        ["  llm p50 (serial: whole reply; streaming: to the first sentence)", ...each((v) => part(v, 1)), "—", "—"],
        ["  tts p50 (serial: whole audio; streaming: to the first byte)", ...each((v) => part(v, 2)), "—", "—"],
        ["caller turns", ...each((v) => v.turnTaking.turns), "—", "—"],
        ["  ended early on a sentence", ...each((v) => v.turnTaking.endedBySentence), "—", "—"],
        [
          "  speculations started / committed / discarded",
          ...each((v) => `${v.turnTaking.speculations} / ${v.turnTaking.committed} / ${v.turnTaking.discarded}`),
          "—",
          "—",
        ],
        ["  transcription requests (provider calls) per turn", ...each((v) => perTurn(v, v.turnTaking.transcriptions)), "—", "—"],
        [
          `voice-to-voice p50 / p95 at ${GOAL.simultaneous} simultaneous calls (worker)`,
          ...PIPELINES.map((p) =>
            p !== DEFAULT_PIPELINE ? "—" : at16 ? `${ms(at16.voiceToVoice.p50)} / ${ms(at16.voiceToVoice.p95)}` : "not run",
          ),
          `${GOAL.p50} / ${GOAL.p95}`,
          at16 ? `${gap(at16.voiceToVoice.p50, GOAL.p50)} / ${gap(at16.voiceToVoice.p95, GOAL.p95)}` : "—",
        ],
      ],
      new Set([1, 2, 3, 4, 5]),
    ),
  );
  log(
    "  platform share = the worker's platformMs less each turn's endpointing wait; the credit holds and hops inside the provider calls are estimated apart (Σ part p50 in call − bare: on the realistic profile each part varies by ±20 %, so with few replies this is noise around a few tens of ms). " +
      "Streaming: llm is the time to the first complete sentence, tts the first sentence's time to its first audio byte. " +
      "Speculative: the caller's turn is transcribed on a 200 ms pause and the turn ends as soon as that transcript ends a sentence; stt is what the reply still waited for it after the turn's end, so its in-call − bare estimate is not an overhead there.",
  );
  if (r.sequentialFailures > 0)
    log(`  ${r.sequentialFailures} of the ${PIPELINES.length * r.runs} calls did not end as they should (see the lines above).`);
  log("");
  log(`Calls: concurrency (simultaneous conversation calls on one local stack, ${DEFAULT_PIPELINE} loop, realistic provider timings)`);
  log(
    table(
      [
        "simultaneous",
        "peak live",
        "held",
        "agent-ended",
        "transcribed",
        "underruns",
        "late frames",
        "v2v p50",
        "v2v p95",
        "callee p50",
        "callee p95",
        "platform p50",
        "first audio p95",
        "workerd RSS MiB",
        "loop delay max",
        "s",
      ],
      r.levels.map((l) => [
        l.simultaneous === 1 ? `1 (${l.calls} in a row)` : l.simultaneous,
        l.peakLive,
        l.held ? "yes" : l.workerHeld ? "lag" : "NO",
        `${l.agentEnded}/${l.calls}`,
        `${l.transcribed}/${l.calls}`,
        l.underruns,
        `${l.lateFrames}/${l.framesSent}`,
        ms(l.voiceToVoice.p50),
        ms(l.voiceToVoice.p95),
        ms(l.calleeSide.p50),
        ms(l.calleeSide.p95),
        ms(l.platform.p50),
        ms(l.firstAudio.p95),
        l.workerdRssMiB ?? "—",
        l.loopDelayMs.max,
        l.seconds,
      ]),
      new Set([0, 1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]),
    ),
  );
  log(
    "  held: yes, NO (a check of the worker failed), lag (the worker's checks held, the load generator lagged). v2v: worker-measured, " +
      "callee: the sandbox's measure, first audio: answer to the agent's first audio, ms. loop delay: this process's worst event-loop stall " +
      "(it hosts the sandboxes and PGlite), ms.",
  );
  for (const l of r.levels.filter((l) => l.held && l.notes.length > 0))
    log(`  ${l.simultaneous} simultaneous calls: ${l.notes.join("; ")}`);
  for (const l of r.levels.filter((l) => !l.held)) {
    log(
      `  ${l.simultaneous} simultaneous calls ${l.workerHeld ? "held on the worker's side only" : "did not hold"}: ${[...l.failedChecks, ...l.notes].join("; ")}. Endings: ${JSON.stringify(l.endings)}`,
    );
    for (const e of l.examples) log(`    call ${e.callId} (sandbox ${e.sid}): ${e.problems.join("; ")}`);
  }
  const top = r.levels.at(-1)?.simultaneous;
  log(
    `  Highest level that held (every check): ${r.highestHeld ?? "none"}${r.highestHeld === top ? " (the highest tried)" : ""}. ` +
      `Highest level at which the worker's own checks held: ${r.highestWorkerHeld ?? "none"}${r.highestWorkerHeld === top && r.levels.at(-1)?.workerHeld ? " (the highest tried)" : ""}.`,
  );
  if (r.levels.at(-1)?.stoppedRamp)
    log(
      `  The ramp stopped at ${top}: over ${LATE_OVERWHELMED * 100} % of the sandbox's frames were late, so a higher level would measure the load generator (this process, on the same cores as workerd), not the worker.`,
    );
  if (r.redoneAfterRestart > 0)
    log(`  ${r.redoneAfterRestart} call(s) or level(s) were run again: workerd was restarted under them (a file of the worker changed).`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const quick = process.argv.includes("--quick");
  const workerLog = new WorkerLog();
  const logFile = process.env.BENCH_WORKER_LOG; // wrangler's whole output, for a closer look
  if (logFile) writeFileSync(logFile, "");
  const stack = await startStack({
    log: console.log,
    vars: { RATE_LIMIT_REQUESTS: "100000000" },
    workerLog: (chunk) => {
      workerLog.push(chunk);
      if (logFile) appendFileSync(logFile, chunk);
    },
  });
  const ws = await createBenchWorkspace(stack.databaseUrl, stack.wsProxy);
  try {
    const result = await runCallsBench(stack, ws, {
      runs: Number(process.env.BENCH_CALL_RUNS ?? (quick ? QUICK.runs : DEFAULTS.runs)),
      levels: process.env.BENCH_CALL_LEVELS?.split(",").map(Number) ?? (quick ? QUICK.levels : DEFAULTS.levels),
      log: console.log,
      reloads: () => workerLog.reloads,
    });
    if (result.sequentialFailures > 0) process.exitCode = 1;
  } finally {
    await removeBenchWorkspace(stack.databaseUrl, stack.wsProxy, ws).catch(() => undefined);
    await stack.stop();
  }
}
