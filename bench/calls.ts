// Live-call benchmark (docs/benchmarks.md, "Calls"). Every call is a real call through the
// worker: phone calls through the telephony sandbox (dev/sandbox/telephony.ts, in this process as
// `stack.telephony`), whose scripted callee says three lines, and web calls from this process
// (bench/web-call.ts, the browser's protocol). Speech-to-text, the LLM and text-to-speech run on the
// provider sandbox with a hosted provider's timings (its latency profiles, docs/sandbox.md).
//
// 1. Voice loops, K phone conversations each, alternating, on workers of the same build that differ
//    only in their variables and the provider profile their base URLs carry:
//    - `streaming-stt`: the default worker (CALL_TRANSCRIPTION=auto with the sandbox's Deepgram:
//      the caller's audio streams to Flux, whose EndOfTurn ends the turn), `realistic` profile,
//      the default voice (Cartesia's Katie on this stack, which runs a Cartesia sandbox);
//    - `streaming-stt-openai`: the same with OpenAI's Alloy, what a deployment without Cartesia gets;
//    - `batch`: CALL_TRANSCRIPTION=batch (the endpointing silence, then the upload, speculation on
//      pauses), `realistic` profile;
//    - `fast`: `streaming-stt` on the `fast` profile (a Groq-class LLM, Cartesia Sonic: the agent
//      of this loop speaks with a Cartesia voice).
//    Each agent reply carries the worker's own measure (transcript[].latency: voiceToVoiceMs =
//    endpointingMs + sttMs + llmMs + ttsMs + platformMs; docs/calls.md "Latency") and the callee
//    measures from its side (SandboxCall.latencies).
// 2. Web calls against phone calls on the default loop: the same three lines said from a web
//    client, the same parts of each reply's latency side by side.
// 3. Barge-in on the default loop, from a web client while the agent speaks its (long) first
//    message: a backchannel ("Mhm.", "Yeah.") N times, counting the `clear`s (a stop); "Wait,
//    stop." N times, timing the `clear` from the end of "wait" (and from the start of the sound).
// 4. What a call-minute costs: every worker reaches Postgres, Redis and the provider sandbox
//    through counting forwarders (bench/counters.ts), so each call's requests, sockets and socket
//    messages are counted; the worker's workerd CPU time is read from /proc; the Durable Object's
//    active time is the call's dial-to-hang-up; all priced with published rates (COST_RATES).
// 5. Concurrency, on the default loop: N simultaneous phone calls (placed 150 ms apart), N
//    ramping. A level holds when every call was ended by the agent's goodbye, every callee line is
//    in the transcript, the callee heard no gap in the agent's audio (underruns) and the sandbox
//    itself kept time (late frames ≤ 1 %). The ramp stops at the first level where a check of the
//    worker fails (then tries once halfway below), or where the sandbox is so late (> 10 %) that
//    it no longer drives the load it claims. This process is the load generator, so its lag is
//    reported apart.
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
import { type LatencyProfileName, withLatencyProfile } from "../dev/sandbox/latency";
import type { SandboxCall, TelephonySandbox } from "../dev/sandbox/telephony";
import { type Stack, startStack } from "../dev/stack";
import { FRAME_MS, mulawDecode, rms, TELEPHONY_RATE } from "../src/calls/codec";
import type { TurnTaking } from "../src/calls/turns";
import { createDb } from "../src/db/client";
import { calls, type TranscriptTurn } from "../src/db/schema";
import { parseEnv } from "../src/env";
import { adjustCredits } from "../src/metering/meter";
import {
  type CountingHttp,
  type CountingTcp,
  type HttpCounts,
  type StreamCounts,
  sqlStatements,
  startCountingHttp,
  startCountingStream,
  startCountingTcp,
  upstashCommands,
} from "./counters";
import { percentile, round, table } from "./report";
import { type BenchWorkspace, createBenchWorkspace, removeBenchWorkspace } from "./setup";
import { converse, firstWordEndMs, joinWebCall, sandboxSpeech, WEB_RATE } from "./web-call";
import { type BenchWorker, startBenchWorker } from "./worker-launch";
import { WorkerLog } from "./worker-log";

/** The voice loops measured side by side (docs/calls.md: "Streaming transcription", "Turn-taking"). */
export const LOOPS = ["streaming-stt", "streaming-stt-openai", "batch", "fast"] as const;
export type Loop = (typeof LOOPS)[number];
interface LoopSpec {
  profile: LatencyProfileName;
  vars: Record<string, string>;
  /**
   * The agent's voice: the platform's default (Cartesia's Katie where Cartesia is configured, as on the
   * local stack; docs/voices.md), a Cartesia system voice, or OpenAI's Alloy (a deployment without Cartesia).
   */
  voice: "default" | "cartesia" | "openai";
  describe: string;
}
export const LOOP_SPECS: Record<Loop, LoopSpec> = {
  "streaming-stt": {
    profile: "realistic",
    vars: { CALL_TRANSCRIPTION: "auto" },
    voice: "default",
    describe: "CALL_TRANSCRIPTION=auto: Deepgram Flux streamed, its EndOfTurn ends the turn; default voice; realistic profile",
  },
  "streaming-stt-openai": {
    profile: "realistic",
    vars: { CALL_TRANSCRIPTION: "auto" },
    voice: "openai",
    describe:
      "the streaming-stt loop with OpenAI's Alloy (a deployment without Cartesia): the same realistic profile, the voice the only change",
  },
  batch: {
    profile: "realistic",
    vars: { CALL_TRANSCRIPTION: "batch", CALL_SPECULATION: "on" },
    voice: "default",
    describe: "CALL_TRANSCRIPTION=batch CALL_SPECULATION=on: endpointing silence, upload, speculation on pauses; realistic profile",
  },
  fast: {
    profile: "fast",
    vars: { CALL_TRANSCRIPTION: "auto" },
    voice: "cartesia",
    describe: "CALL_TRANSCRIPTION=auto on the fast profile (Groq-class LLM, Flux), Cartesia voice",
  },
};
/** The loop the concurrency ramp, the web calls, barge-in and the costs run on: the worker's default. */
export const DEFAULT_LOOP: Loop = "streaming-stt";
/** Cartesia's Katie and OpenAI's Alloy (drizzle/0015, drizzle/0001), system voices. */
const CARTESIA_VOICE_ID = "00000000-0000-7000-8000-000000000012";
const OPENAI_VOICE_ID = "00000000-0000-7000-8000-000000000001";

/** The issue's goals. */
export const GOAL = {
  realisticP50: 850,
  realisticP95: 1_300,
  fastP50: 550,
  platformP50: 30,
  platformP95: 60,
  simultaneous: 32,
  /** A backchannel stops the agent in at most this many of `bargeTries` tries. */
  backchannelMaxStops: 1,
  bargeTries: 10,
  /** "Wait, stop." stops it within this, from the end of "wait", every time. */
  interruptMs: 300,
  costPerMinuteUsd: 0.002,
};

/**
 * Published rates (docs/benchmarks.md, "What a call-minute costs" cites each): Workers Standard,
 * Durable Objects (incoming WebSocket messages billed 20:1; duration at 128 MB), Upstash Redis pay
 * as you go, Neon Launch compute.
 */
export const COST_RATES = {
  workerRequestUsd: 0.3 / 1e6,
  workerCpuMsUsd: 0.02 / 1e6,
  doRequestUsd: 0.15 / 1e6,
  doWebSocketMessagesPerRequest: 20,
  doGbSecondUsd: 12.5 / 1e6,
  doGb: 0.125,
  redisCommandUsd: 0.2 / 1e5,
  neonCuHourUsd: 0.106,
  /** The smallest Neon compute: what a statement's time is charged at. */
  neonCu: 0.25,
};

/** The default conversation (docs/sandbox.md): any number without a scenario of its own. */
const CONVERSATION = "+12025550100";
/** The callee who says one line and hangs up: a short call for the warm-up. */
const HANGS_UP = "+12025550107";
const FIRST_MESSAGE = "Hello.";
/** The barge-in agent's first message: long enough (about 9 s of speech) to be talked over. */
const LONG_FIRST_MESSAGE =
  "Thanks for calling the clinic. I can help you book, move or cancel an appointment, tell you our opening hours, and explain how parking works at each of our three offices in the city.";
const BACKCHANNELS = ["Mhm.", "Yeah."];
const INTERRUPTION = "Wait, stop.";
/** The workers' CALL_MIN_INTERRUPTION_MS (the stack's, else the worker's default): sound this long stops the agent without a word. */
let MIN_INTERRUPTION_MS = 700;
/** A conversation takes about 20 s alone; these bound a call that goes wrong (and end it quickly). */
const MAX_CALL_SECONDS = 60;
const SILENCE_TIMEOUT_SECONDS = 10;
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
 * process hosts the sandboxes, so a garbage collection delays a few frames of every live call
 * even with one call on the line.
 */
const LATE_TOLERANCE = 0.01;
/** Past this share of late frames the load generator no longer drives the calls it claims: the ramp stops. */
const LATE_OVERWHELMED = 0.1;

/**
 * K = 5 conversations per loop (15 replies each) in a row, 3 web conversations, 10 + 10 barge-in
 * tries, then 16 and 32 calls at once: about 9 minutes on 2 cores. A level that fails the worker's
 * checks is followed by one halfway below it, so the coarse steps still end on a bracket.
 */
export const DEFAULTS = { runs: 5, levels: [1, 16, 32], webRuns: 3, bargeTries: 10 };
export const QUICK = { runs: 2, levels: [1, 8], webRuns: 1, bargeTries: 4 };

export interface CallsBenchOptions {
  /** Sequential conversation calls per loop for the voice-to-voice figures (K). */
  runs: number;
  /** Concurrency levels, ascending; the ramp stops after the first that does not hold. */
  levels: number[];
  /** Web conversations (three lines each) on the default loop, next to its phone calls. */
  webRuns?: number;
  /** Barge-in tries of each kind (backchannel, interruption). */
  bargeTries?: number;
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
  /** The caller turns' turn-taking (src/calls/turns.ts): the wait each turn took, how it ended. */
  userTurns: TurnTaking[];
  calleeLatencies: number[];
  underruns: number;
  lateFrames: number;
  framesSent: number;
  /** Marks the callee echoed (each a WebSocket message to the Durable Object). */
  marksEchoed: number;
  /** Status callbacks Twilio's stand-in sent the worker. */
  callbacks: number;
  /** From the dial to the hang-up at the sandbox, seconds: the Durable Object's life for the call. */
  dialToEndSeconds: number | null;
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
  /** This process's event-loop delay (it hosts the telephony sandbox and the provider sandbox's HTTP side). */
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

/** The parts of each reply's latency (transcript[].latency), as spreads. */
export interface Parts {
  voiceToVoice: Spread;
  endpointing: Spread;
  stt: Spread;
  llm: Spread;
  tts: Spread;
  platform: Spread;
}

export interface VoiceSummary {
  loop: Loop;
  profile: LatencyProfileName;
  calls: number;
  replies: number;
  /** The worker's measure of each reply, by part. */
  parts: Parts;
  /** As the callee reports it: from the line's last frame sent to the first agent audio received. */
  calleeVoiceToVoice: Spread;
  /**
   * The callee's measure moved to the end of the line's last loud frame (where the worker's starts),
   * less the same reply's endpointing and provider parts: the platform's share plus the two hops
   * between the sandbox and workerd.
   */
  calleePlatform: Spread;
  /** How the caller turns ended (model: the streaming provider's EndOfTurn; sentence / silence: batch). */
  endedBy: Record<string, number>;
  turns: number;
  /** Transcription requests per caller turn (batch: speculation's price; streaming: 0). */
  transcriptionsPerTurn: number;
  discarded: number;
  quietTailsMs: number[];
  /** What a minute of these calls cost at the wire and in compute. */
  cost: CostSummary | null;
  failures: number;
}

/** Counts over some calls, and their conversation time. */
export interface CostSample {
  calls: number;
  /** Answer to hang-up, summed: the minutes of conversation. */
  conversationSeconds: number;
  /** Dial to hang-up, summed: the Durable Object's active (wall) time. */
  doWallSeconds: number;
  /** CPU time of the worker's workerd (worker and Durable Object together), ms; null when /proc is not there. */
  workerdCpuMs: number | null;
  /** The conversation seconds of the calls whose CPU time was read (the same workerd before and after). */
  cpuConversationSeconds: number;
  /** Requests to the worker: the POST that places the call, the status callbacks, the media socket's upgrade. */
  workerRequests: number;
  /** WebSocket messages into the Durable Object from the caller's side (media frames, marks). */
  mediaMessagesIn: number;
  /** Durable Object RPC sessions and alarms, estimated: one per status callback, the dial's `prepare`, the watchdog's alarm. */
  doCalls: number;
  pgSessions: number;
  sqlRequests: number;
  sqlStatements: number;
  sqlUpstreamMs: number;
  redisRequests: number;
  redisCommands: number;
  providerRequests: Record<string, number>;
  providerSockets: Record<string, number>;
  providerMessagesOut: Record<string, number>;
  providerMessagesIn: Record<string, number>;
}

export interface CostSummary {
  sample: CostSample;
  minutes: number;
  /** Per minute of conversation. */
  perMinute: {
    workerdCpuMs: number | null;
    doWallSeconds: number;
    workerRequests: number;
    doRequests: number;
    pgSessions: number;
    sqlRequests: number;
    sqlStatements: number;
    redisCommands: number;
    providerRequests: number;
    providerSockets: number;
    providerMessages: number;
  };
  /** US dollars per minute, by item, and in all. */
  usd: {
    workerRequests: number;
    workerCpu: number;
    doRequests: number;
    doDuration: number;
    redis: number;
    postgres: number;
    total: number;
  };
}

export interface WebVsPhone {
  webCalls: number;
  web: Parts;
  phone: Parts;
  /** The client's measure on the web calls: the line's last frame sent to the first agent audio received. */
  webClient: Spread;
  /** The same on the phone calls (the callee's). */
  phoneCallee: Spread;
  /** The web calls' caller turns as transcribed, where they differ from the script's lines. */
  webHeardDiffers: string[];
  /** The agent's turns on a web call and on a phone call (the first of each): what the LLM's first chunk was cut from. */
  webReplies: string[];
  phoneReplies: string[];
  failures: string[];
}

export interface BargeTry {
  kind: "backchannel" | "interruption";
  phrase: string;
  /** A `clear` came within 2 s of the sound's start. */
  stopped: boolean;
  /** From the first frame of the sound sent to the `clear` received, ms. */
  fromStartMs: number | null;
  /** From the end of its first word ("wait") sent to the `clear`, ms. */
  fromWordEndMs: number | null;
  problem?: string;
}

export interface BargeInResult {
  tries: BargeTry[];
  /** Loud audio of each phrase, ms (the interruption rule's 600 ms applies to sound without a word). */
  loudMs: Record<string, number>;
  /** Where "wait" ends in the interruption's audio, ms from its start. */
  wordEndMs: number | null;
  backchannelStops: number;
  backchannelTries: number;
  interruptionStops: number;
  interruptionTries: number;
  interruption: { fromStart: Spread; fromWordEnd: Spread; max: number };
  /**
   * Per phrase, the p50 from the sound's start to the `clear`. "Mhm." can stop the agent only by its
   * length (CALL_MIN_INTERRUPTION_MS); when "Wait, stop." stops it at the same offset, that rule
   * fired there too, not the word.
   */
  fromStartByPhrase: Record<string, number>;
}

export interface CallsBenchResult {
  runs: number;
  /** Per voice loop. */
  voiceToVoice: Partial<Record<Loop, VoiceSummary>>;
  webVsPhone: WebVsPhone | null;
  bargeIn: BargeInResult | null;
  /** The default loop's cost per minute over all its phone calls (sequential and the levels). */
  cost: CostSummary | null;
  sequentialFailures: number;
  /** The concurrency ramp, on the default loop. */
  levels: LevelResult[];
  highestHeld: number | null;
  /** The highest level up to which the worker's own checks held, the load generator lagging or not. */
  highestWorkerHeld: number | null;
  /** Calls or levels run again because workerd restarted under them (wrangler reloads on a changed file). */
  redoneAfterRestart: number;
  /** What could not run (no Cartesia voice, no streaming provider), said in the report. */
  notes: string[];
  seconds: number;
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
      marksEchoed: 0,
      callbacks: 0,
      dialToEndSeconds: null,
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
      out.marksEchoed = sc.marksEchoed;
      out.callbacks = sc.callbacks.length;
      if (sc.endedAt !== undefined) out.dialToEndSeconds = (sc.endedAt - sc.createdAt) / 1000;
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

/** CPU time (user + system) of the workerd processes under `pid`, ms, and their pids; null without /proc. */
async function workerdCpuMs(pid: number | undefined): Promise<{ ms: number; pids: string } | null> {
  if (pid === undefined) return null;
  const rows = await procTable();
  if (!rows) return null;
  const mine = new Set([pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const r of rows)
      if (!mine.has(r.pid) && mine.has(r.ppid)) {
        mine.add(r.pid);
        grew = true;
      }
  }
  let ticks = 0;
  const found = rows.filter((r) => mine.has(r.pid) && r.comm.includes("workerd"));
  for (const r of found) {
    try {
      const stat = await readFile(`/proc/${r.pid}/stat`, "utf8");
      const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks += Number(rest[11]) + Number(rest[12]); // utime, stime (clock ticks: 100 a second on Linux)
    } catch {
      return null; // ended meanwhile: no reading
    }
  }
  return found.length > 0 ? { ms: ticks * 10, pids: found.map((r) => r.pid).join(",") } : null;
}

/** The counting forwarders every call worker reaches Postgres, Redis and the providers through. */
interface Meters {
  websocket: CountingTcp;
  sqlHttp: CountingHttp | undefined;
  redis: CountingHttp;
  provider: Awaited<ReturnType<typeof startCountingStream>>;
  stop(): Promise<void>;
}

interface Reading {
  ws: number;
  sql: HttpCounts | null;
  redis: HttpCounts;
  provider: StreamCounts;
  cpuMs: { ms: number; pids: string } | null;
}

async function read(m: Meters, pid: number | undefined): Promise<Reading> {
  return {
    ws: m.websocket.counts().connections,
    sql: m.sqlHttp?.counts() ?? null,
    redis: m.redis.counts(),
    provider: m.provider.counts(),
    cpuMs: await workerdCpuMs(pid),
  };
}

/** Waits until no forwarder has counted anything for 600 ms (work after the call: the analysis, the settlement), at most 8 s. */
async function quiet(m: Meters): Promise<void> {
  const total = () =>
    m.websocket.counts().connections +
    (m.sqlHttp?.counts().requests ?? 0) +
    m.redis.counts().requests +
    sum(Object.values(m.provider.counts().requests));
  let last = total();
  let stableSince = Date.now();
  const deadline = Date.now() + 8_000;
  while (Date.now() < deadline && Date.now() - stableSince < 600) {
    await sleep(100);
    const now = total();
    if (now !== last) {
      last = now;
      stableSince = Date.now();
    }
  }
}

const diffMap = (a: Record<string, number>, b: Record<string, number>) => {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(b)) if (v - (a[k] ?? 0) !== 0) out[k] = v - (a[k] ?? 0);
  return out;
};
const addMap = (a: Record<string, number>, b: Record<string, number>) => {
  const out = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = (out[k] ?? 0) + v;
  return out;
};

function costSample(before: Reading, after: Reading, outcomes: CallOutcome[]): CostSample {
  const done = outcomes.filter((o) => o.seconds !== null);
  // The same workerd processes before and after, and time that only went forward: else no CPU figure.
  const cpuOk =
    before.cpuMs !== null && after.cpuMs !== null && before.cpuMs.pids === after.cpuMs.pids && after.cpuMs.ms >= before.cpuMs.ms;
  return {
    calls: outcomes.length,
    conversationSeconds: sum(done.map((o) => o.seconds as number)),
    doWallSeconds: sum(outcomes.map((o) => o.dialToEndSeconds ?? 0)),
    workerdCpuMs: cpuOk ? (after.cpuMs as { ms: number }).ms - (before.cpuMs as { ms: number }).ms : null,
    cpuConversationSeconds: cpuOk ? sum(done.map((o) => o.seconds as number)) : 0,
    workerRequests: sum(outcomes.map((o) => 2 + o.callbacks)),
    mediaMessagesIn: sum(outcomes.map((o) => o.framesSent + o.marksEchoed + 2)),
    doCalls: sum(outcomes.map((o) => o.callbacks + 2)),
    pgSessions: after.ws - before.ws,
    sqlRequests: (after.sql?.requests ?? 0) - (before.sql?.requests ?? 0),
    sqlStatements: (after.sql?.units ?? 0) - (before.sql?.units ?? 0),
    sqlUpstreamMs: sum((after.sql?.upstreamMs ?? []).slice(before.sql?.upstreamMs.length ?? 0)),
    redisRequests: after.redis.requests - before.redis.requests,
    redisCommands: after.redis.units - before.redis.units,
    providerRequests: diffMap(before.provider.requests, after.provider.requests),
    providerSockets: diffMap(before.provider.sockets, after.provider.sockets),
    providerMessagesOut: diffMap(before.provider.messagesOut, after.provider.messagesOut),
    providerMessagesIn: diffMap(before.provider.messagesIn, after.provider.messagesIn),
  };
}

function addSamples(a: CostSample, b: CostSample): CostSample {
  return {
    calls: a.calls + b.calls,
    conversationSeconds: a.conversationSeconds + b.conversationSeconds,
    doWallSeconds: a.doWallSeconds + b.doWallSeconds,
    workerdCpuMs: a.workerdCpuMs === null && b.workerdCpuMs === null ? null : (a.workerdCpuMs ?? 0) + (b.workerdCpuMs ?? 0),
    cpuConversationSeconds: a.cpuConversationSeconds + b.cpuConversationSeconds,
    workerRequests: a.workerRequests + b.workerRequests,
    mediaMessagesIn: a.mediaMessagesIn + b.mediaMessagesIn,
    doCalls: a.doCalls + b.doCalls,
    pgSessions: a.pgSessions + b.pgSessions,
    sqlRequests: a.sqlRequests + b.sqlRequests,
    sqlStatements: a.sqlStatements + b.sqlStatements,
    sqlUpstreamMs: a.sqlUpstreamMs + b.sqlUpstreamMs,
    redisRequests: a.redisRequests + b.redisRequests,
    redisCommands: a.redisCommands + b.redisCommands,
    providerRequests: addMap(a.providerRequests, b.providerRequests),
    providerSockets: addMap(a.providerSockets, b.providerSockets),
    providerMessagesOut: addMap(a.providerMessagesOut, b.providerMessagesOut),
    providerMessagesIn: addMap(a.providerMessagesIn, b.providerMessagesIn),
  };
}

/** Per minute of conversation, priced with COST_RATES. */
export function priceCost(s: CostSample): CostSummary | null {
  const minutes = s.conversationSeconds / 60;
  if (minutes <= 0) return null;
  const r = COST_RATES;
  const per = (n: number) => n / minutes;
  const providerMessagesIn = sum(Object.values(s.providerMessagesIn));
  const providerMessages = sum(Object.values(s.providerMessagesOut)) + providerMessagesIn;
  // Billed Durable Object requests: RPC sessions and alarms, and every incoming WebSocket message at
  // 20:1: the caller's media and marks, and (an upper bound: Cloudflare bills messages its
  // WebSocket server receives) the provider sockets' messages.
  const doRequests = s.doCalls + (s.mediaMessagesIn + providerMessagesIn) / r.doWebSocketMessagesPerRequest;
  const neonSeconds = s.sqlUpstreamMs / 1000;
  const cpuPerMinute = s.workerdCpuMs === null || s.cpuConversationSeconds <= 0 ? null : s.workerdCpuMs / (s.cpuConversationSeconds / 60);
  const usd = {
    workerRequests: per(s.workerRequests) * r.workerRequestUsd,
    workerCpu: cpuPerMinute === null ? 0 : cpuPerMinute * r.workerCpuMsUsd,
    doRequests: per(doRequests) * r.doRequestUsd,
    doDuration: per(s.doWallSeconds) * r.doGb * r.doGbSecondUsd,
    redis: per(s.redisCommands) * r.redisCommandUsd,
    postgres: (per(neonSeconds) / 3600) * r.neonCu * r.neonCuHourUsd,
    total: 0,
  };
  usd.total = usd.workerRequests + usd.workerCpu + usd.doRequests + usd.doDuration + usd.redis + usd.postgres;
  return {
    sample: s,
    minutes,
    perMinute: {
      workerdCpuMs: cpuPerMinute,
      doWallSeconds: per(s.doWallSeconds),
      workerRequests: per(s.workerRequests),
      doRequests: per(doRequests),
      pgSessions: per(s.pgSessions),
      sqlRequests: per(s.sqlRequests),
      sqlStatements: per(s.sqlStatements),
      redisCommands: per(s.redisCommands),
      providerRequests: per(sum(Object.values(s.providerRequests))),
      providerSockets: per(sum(Object.values(s.providerSockets))),
      providerMessages: per(providerMessages),
    },
    usd,
  };
}

/** The callee's audio of each script line (the sandbox's 8 kHz μ-law): its last frames under the worker's speech threshold. */
async function quietTails(stack: Stack): Promise<number[]> {
  const voice = new CalleeVoice({ url: stack.provider.baseUrl, apiKey: stack.provider.apiKey }, "nova");
  const frame = (TELEPHONY_RATE * FRAME_MS) / 1000;
  return Promise.all(
    SCRIPT.map(async (text) => {
      const speech = mulawDecode(await voice.audio(text));
      const frames = Math.ceil(speech.length / frame);
      let lastLoud = frames - 1;
      while (lastLoud > 0 && rms(speech.subarray(lastLoud * frame, (lastLoud + 1) * frame)) <= SPEECH_RMS) lastLoud--;
      return (frames - 1 - lastLoud) * FRAME_MS;
    }),
  );
}

function partsOf(replies: ReplyLatency[]): Parts {
  return {
    voiceToVoice: spread(replies.map((r) => r.voiceToVoiceMs)),
    endpointing: spread(replies.map((r) => r.endpointingMs ?? 0)),
    stt: spread(replies.map((r) => r.sttMs)),
    llm: spread(replies.map((r) => r.llmMs)),
    tts: spread(replies.map((r) => r.ttsMs)),
    platform: spread(replies.map((r) => r.platformMs)),
  };
}

function summarizeVoice(loop: Loop, sequential: CallOutcome[], tails: number[], cost: CostSample | null): VoiceSummary {
  const replies = sequential.flatMap((o) => o.replies);
  const turns = sequential.flatMap((o) => o.userTurns);
  const endedBy: Record<string, number> = {};
  for (const t of turns) endedBy[t.endedBy] = (endedBy[t.endedBy] ?? 0) + 1;
  const tail = (text: string | undefined) => tails[SCRIPT.indexOf(text ?? "")] ?? 0;
  const calleePlatform = sequential.flatMap((o) =>
    o.calleeLatencies.length === o.replies.length
      ? o.replies.map(
          (r, i) => (o.calleeLatencies[i] as number) + tail(o.said[i]) - FRAME_MS - ((r.endpointingMs ?? 0) + r.sttMs + r.llmMs + r.ttsMs),
        )
      : [],
  );
  return {
    loop,
    profile: LOOP_SPECS[loop].profile,
    calls: sequential.length,
    replies: replies.length,
    parts: partsOf(replies),
    calleeVoiceToVoice: spread(sequential.flatMap((o) => o.calleeLatencies)),
    calleePlatform: spread(calleePlatform),
    endedBy,
    turns: turns.length,
    transcriptionsPerTurn: turns.length > 0 ? sum(turns.map((t) => t.transcriptions)) / turns.length : 0,
    discarded: sum(turns.map((t) => t.discarded)),
    quietTailsMs: tails,
    cost: cost ? priceCost(cost) : null,
    failures: sequential.filter((o) => o.problems.length > 0).length,
  };
}

/** The samples from the first to the last frame louder than near-silence (RMS 50). */
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

async function postJson(url: string, apiKey: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(url, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    json = { raw: text.slice(0, 200) };
  }
  return { status: res.status, json };
}

async function createAgent(stack: Stack, apiKey: string, extra: Record<string, unknown>): Promise<string> {
  const { status, json } = await postJson(`${stack.baseUrl}/v1/agents`, apiKey, {
    name: "Bench call agent",
    personaId: randomUUID(),
    llmModel: "sandbox-chat",
    firstMessage: FIRST_MESSAGE,
    endCallPhrases: ["goodbye"],
    maxDurationSeconds: MAX_CALL_SECONDS,
    silenceTimeoutSeconds: SILENCE_TIMEOUT_SECONDS,
    ...extra,
  });
  if (status !== 201) throw new Error(`POST /v1/agents answered ${status}: ${JSON.stringify(json).slice(0, 300)}`);
  return json.id as string;
}

async function startWebCall(ctx: Context): Promise<{ callId: string; url: string }> {
  const { status, json } = await postJson(`${ctx.baseUrl}/v1/agents/${ctx.agentId}/web-call`, ctx.apiKey, {});
  if (status !== 201) throw new Error(`POST /v1/agents/:id/web-call answered ${status}: ${JSON.stringify(json).slice(0, 300)}`);
  return { callId: (json.call as { id: string }).id, url: (json.webCall as { url: string }).url };
}

/**
 * One web conversation: the callee's three lines said from a web client (the same words, at 16 kHz),
 * each after the agent finished, as the telephony sandbox's callee does. The client's measure per
 * reply: the line's last frame sent to the first agent audio received after it.
 */
async function webConversation(ctx: Context, lines: Int16Array[]): Promise<{ callId: string; client: number[]; problems: string[] }> {
  const problems: string[] = [];
  const { callId, url } = await startWebCall(ctx);
  const client = await joinWebCall(url);
  const measured: number[] = [];
  try {
    measured.push(...(await converse(client, lines, problems)));
    await Promise.race([client.closed, sleep(8_000)]);
  } finally {
    client.hangup();
    client.close();
  }
  return { callId, client: measured, problems };
}

/** The transcript of calls, read from the database once they ended. */
async function transcripts(ctx: Context, ids: string[]): Promise<Map<string, { status: string; transcript: TranscriptTurn[] }>> {
  let rows: Array<{ id: string; status: string; transcript: TranscriptTurn[] }> = [];
  for (const until = Date.now() + 20_000; ids.length > 0; ) {
    rows = await ctx.db
      .select({ id: calls.id, status: calls.status, transcript: calls.transcript })
      .from(calls)
      .where(inArray(calls.id, ids));
    if (rows.every((r) => ENDED.has(r.status)) || Date.now() > until) break;
    await sleep(500);
  }
  return new Map(rows.map((r) => [r.id, r]));
}

/** Barge-in tries from a web client, each on a call of its own, while the agent speaks its long first message. */
async function bargeIn(ctx: Context, tries: number, log: (line: string) => void): Promise<BargeInResult> {
  const provider = { baseUrl: ctx.stack.provider.baseUrl, apiKey: ctx.stack.provider.apiKey };
  const sounds = new Map<string, Int16Array>();
  for (const phrase of [...BACKCHANNELS, INTERRUPTION]) sounds.set(phrase, await sandboxSpeech(provider, phrase, WEB_RATE));
  const loudMs: Record<string, number> = {};
  const frame = (WEB_RATE * FRAME_MS) / 1000;
  for (const [phrase, s] of sounds) {
    let loud = 0;
    for (let i = 0; i < s.length; i += frame) if (rms(s.subarray(i, i + frame)) > SPEECH_RMS) loud += FRAME_MS;
    loudMs[phrase] = loud;
  }
  const word = firstWordEndMs(sounds.get(INTERRUPTION) as Int16Array, SPEECH_RMS);
  const out: BargeTry[] = [];
  const plan: Array<{ kind: BargeTry["kind"]; phrase: string }> = [];
  for (let i = 0; i < tries; i++) {
    plan.push({ kind: "backchannel", phrase: BACKCHANNELS[i % BACKCHANNELS.length] as string });
    plan.push({ kind: "interruption", phrase: INTERRUPTION });
  }
  for (const [i, p] of plan.entries()) {
    const t: BargeTry = { kind: p.kind, phrase: p.phrase, stopped: false, fromStartMs: null, fromWordEndMs: null };
    try {
      const { url } = await startWebCall(ctx);
      const client = await joinWebCall(url);
      try {
        const until = Date.now() + 10_000;
        while (client.audioAt.length === 0 && Date.now() < until) await client.silence(100);
        const first = client.audioAt[0];
        if (first === undefined) throw new Error("the first message did not come");
        // 1.2 s into the agent's speech, with at least 2 s of it still to play.
        while (Date.now() < first + 1_200) await client.silence(20);
        if (client.playbackEnds() < Date.now() + 2_000) throw new Error("the agent was not speaking long enough to talk over");
        const { startedAt } = await client.send(sounds.get(p.phrase) as Int16Array);
        await client.silence(1_500);
        const clear = client.events.find((e) => e.type === "clear" && e.at >= startedAt);
        if (clear && clear.at - startedAt <= 2_000) {
          t.stopped = true;
          t.fromStartMs = clear.at - startedAt;
          if (word && p.kind === "interruption") t.fromWordEndMs = clear.at - (startedAt + word.endMs);
        }
      } finally {
        client.hangup();
        await Promise.race([client.closed, sleep(3_000)]);
        client.close();
      }
    } catch (err) {
      t.problem = (err as Error).message;
    }
    out.push(t);
    log(
      `calls: barge-in [${i + 1}/${plan.length}] ${p.kind} "${p.phrase}": ${t.problem ? `not measured (${t.problem})` : t.stopped ? `stopped the agent, clear ${t.fromStartMs} ms after the sound's start${t.fromWordEndMs !== null ? `, ${t.fromWordEndMs} ms after the end of its first word` : ""}` : "did not stop the agent"}`,
    );
  }
  const measured = out.filter((t) => !t.problem);
  const back = measured.filter((t) => t.kind === "backchannel");
  const inter = measured.filter((t) => t.kind === "interruption");
  const stopped = inter.filter((t) => t.stopped);
  return {
    tries: out,
    loudMs,
    wordEndMs: word?.endMs ?? null,
    backchannelStops: back.filter((t) => t.stopped).length,
    backchannelTries: back.length,
    interruptionStops: stopped.length,
    interruptionTries: inter.length,
    interruption: {
      fromStart: spread(stopped.map((t) => t.fromStartMs as number)),
      fromWordEnd: spread(stopped.map((t) => t.fromWordEndMs as number).filter((n) => Number.isFinite(n))),
      max: Math.max(...stopped.map((t) => t.fromWordEndMs ?? Number.NaN)),
    },
    fromStartByPhrase: Object.fromEntries(
      [...BACKCHANNELS, INTERRUPTION].map((phrase) => [
        phrase,
        percentile(
          measured.filter((t) => t.phrase === phrase && t.stopped).map((t) => t.fromStartMs as number),
          50,
        ),
      ]),
    ),
  };
}

export async function runCallsBench(stack: Stack, ws: BenchWorkspace, opts: CallsBenchOptions): Promise<CallsBenchResult> {
  const { log } = opts;
  const reloads = opts.reloads ?? (() => 0);
  const telephony = stack.telephony;
  if (!telephony || !stack.provider.sandbox)
    throw new Error("the calls bench needs the local provider and telephony sandboxes; unset OPENAI_API_KEY");
  const started = performance.now();
  const notes: string[] = [];
  MIN_INTERRUPTION_MS = parseEnv(stack.vars).CALL_MIN_INTERRUPTION_MS;
  const { db, pool } = createDb(stack.databaseUrl, stack.wsProxy, 2);
  const workers: BenchWorker[] = [];
  const stops: Array<() => Promise<void>> = [];
  try {
    // Dozens of calls: plenty of credits, so the balance is never what ends one.
    await adjustCredits(db, ws.organizationId, { addMicro: 1_000_000_000 });
    const cartesia = stack.cartesia?.sandbox === true;
    const streaming = stack.deepgram?.sandbox === true;
    if (!streaming) notes.push("the stack has no sandbox Deepgram: the streaming loops ran on whatever CALL_TRANSCRIPTION=auto chose");
    if (!cartesia) notes.push("the stack has no sandbox Cartesia: the fast loop's agent speaks with the default voice");
    const agentId = await createAgent(stack, ws.apiKey, {});
    const cartesiaAgentId = cartesia ? await createAgent(stack, ws.apiKey, { voiceId: CARTESIA_VOICE_ID }) : agentId;
    const openaiAgentId = await createAgent(stack, ws.apiKey, { voiceId: OPENAI_VOICE_ID });
    const agentOf = { default: agentId, cartesia: cartesiaAgentId, openai: openaiAgentId };
    const bargeAgentId = await createAgent(stack, ws.apiKey, { firstMessage: LONG_FIRST_MESSAGE, endCallPhrases: [] });

    // The counting forwarders: Postgres (WebSocket sessions, SQL over HTTP), Redis, the provider sandbox.
    const websocket = await startCountingTcp(stack.wsProxy);
    stops.push(() => websocket.stop());
    const sqlHttp = stack.vars.DATABASE_HTTP_ENDPOINT
      ? await startCountingHttp(stack.vars.DATABASE_HTTP_ENDPOINT, sqlStatements)
      : undefined;
    if (sqlHttp) stops.push(() => sqlHttp.stop());
    const redis = await startCountingHttp(stack.redis.url, upstashCommands);
    stops.push(() => redis.stop());
    const providerOrigin = new URL(stack.provider.baseUrl);
    const provider = await startCountingStream(providerOrigin.host);
    stops.push(() => provider.stop());
    const meters: Meters = { websocket, sqlHttp, redis, provider, stop: async () => undefined };
    const counted = (origin: string) => `http://${provider.address}${new URL(origin).pathname.replace(/\/$/, "")}`;
    const sameSandbox = (url: string | undefined) => url !== undefined && new URL(url).host === providerOrigin.host;

    const loopVars = (loop: Loop): Record<string, string> => {
      const { profile, vars } = LOOP_SPECS[loop];
      const v: Record<string, string> = {
        ...stack.vars,
        DATABASE_WS_PROXY: websocket.address,
        ...(sqlHttp && { DATABASE_HTTP_ENDPOINT: sqlHttp.url }),
        UPSTASH_REDIS_REST_URL: redis.url,
        OPENAI_BASE_URL: withLatencyProfile(counted(stack.provider.baseUrl), profile),
      };
      // The other provider sides of the same sandbox, with the profile's prefix (and through the counter).
      for (const key of ["ELEVENLABS_BASE_URL", "CARTESIA_BASE_URL", "DEEPGRAM_BASE_URL"]) {
        const url = stack.vars[key];
        if (sameSandbox(url)) v[key] = withLatencyProfile(counted(url as string), profile);
      }
      return { ...v, ...vars };
    };
    const base: Partial<Record<Loop, BenchWorker>> = {};
    for (const loop of LOOPS) {
      log(`calls: starting the ${loop} loop's worker (${LOOP_SPECS[loop].describe})…`);
      const w = await startBenchWorker(loopVars(loop));
      workers.push(w);
      base[loop] = w;
    }
    const ctxOf = (loop: Loop, agent = agentOf[LOOP_SPECS[loop].voice]): Context => ({
      stack,
      baseUrl: (base[loop] as BenchWorker).baseUrl,
      telephony,
      apiKey: ws.apiKey,
      agentId: agent,
      db,
      log,
    });
    const ctx = ctxOf(DEFAULT_LOOP);
    const pidOf = (loop: Loop) => base[loop]?.pid;

    /** One batch of calls on a loop, with what it cost at the forwarders and in workerd's CPU. */
    const costedBatch = async (loop: Loop, n: number, phone = CONVERSATION) => {
      const before = await read(meters, pidOf(loop));
      const outcomes = await runBatch(ctxOf(loop), n, phone);
      await quiet(meters);
      const after = await read(meters, pidOf(loop));
      return { outcomes, cost: costSample(before, after, outcomes) };
    };

    const tails = await quietTails(stack);
    // Warm-up, not measured: the first call of a worker instantiates the Durable Object class and
    // the call path. The hanging-up callee says one line and hangs up, so it costs seconds, not a conversation.
    log("calls: warm-up (one short call per worker, not measured)…");
    for (const loop of LOOPS) await runBatch(ctxOf(loop), 1, HANGS_UP);

    // -- 1. the voice loops, one call at a time, alternating ----------------------------------
    const sequential: Record<Loop, CallOutcome[]> = { "streaming-stt": [], "streaming-stt-openai": [], batch: [], fast: [] };
    const costs: Partial<Record<Loop, CostSample>> = {};
    let redone = 0;
    const seq = await observed(reloads, async () => {
      for (let k = 0; k < opts.runs; k++) {
        for (const loop of k % 2 === 0 ? LOOPS : [...LOOPS].reverse()) {
          let { outcomes, cost } = await costedBatch(loop, 1);
          if (outcomes[0]?.cutByRestart && redone < 3) {
            redone++;
            log(`calls: ${outcomes[0].callId} was cut by a workerd restart: once more`);
            ({ outcomes, cost } = await costedBatch(loop, 1));
          }
          const o = outcomes[0];
          if (!o) continue;
          sequential[loop].push(o);
          const prev = costs[loop];
          costs[loop] = prev ? addSamples(prev, cost) : cost;
          const parts = o.replies.map((r) => `${Math.round(r.voiceToVoiceMs)}`).join("/");
          log(
            `calls: [${k + 1}/${opts.runs}] ${loop.padEnd(13)} ${o.callId} ${o.status}/${o.endedReason} in ${o.seconds ?? "?"} s, ` +
              `v2v ${parts || "—"} ms (worker), ${o.calleeLatencies.join("/") || "—"} ms (callee)` +
              `${o.problems.length ? `  PROBLEM: ${o.problems.join("; ")}` : ""}${o.notes.length ? `  NOTE: ${o.notes.join("; ")}` : ""}`,
          );
        }
      }
    });
    const voiceToVoice: Partial<Record<Loop, VoiceSummary>> = {};
    for (const loop of LOOPS) voiceToVoice[loop] = summarizeVoice(loop, sequential[loop], tails, costs[loop] ?? null);
    const all = LOOPS.flatMap((l) => sequential[l]);
    const sequentialFailures = all.filter((o) => o.problems.length > 0).length + (LOOPS.length * opts.runs - all.length);

    // -- 2. web calls next to phone calls, on the default loop --------------------------------
    let webVsPhone: WebVsPhone | null = null;
    const webRuns = opts.webRuns ?? 0;
    if (webRuns > 0) {
      log(`calls: ${webRuns} web conversation(s) on the ${DEFAULT_LOOP} loop (the callee's lines from a web client)…`);
      // Trimmed to the speech, as the telephony callee's lines are (their quiet tails are 0 to 20 ms).
      const lines = (await Promise.all(SCRIPT.map((text) => sandboxSpeech(stack.provider, text, WEB_RATE)))).map(trimSilence);
      const ids: string[] = [];
      const client: number[] = [];
      const failures: string[] = [];
      for (let i = 0; i < webRuns; i++) {
        try {
          const w = await webConversation(ctx, lines);
          ids.push(w.callId);
          client.push(...w.client);
          failures.push(...w.problems.map((p) => `${w.callId}: ${p}`));
          log(
            `calls: web [${i + 1}/${webRuns}] ${w.callId}: ${w.client.join("/") || "—"} ms (client)${w.problems.length ? `  PROBLEM: ${w.problems.join("; ")}` : ""}`,
          );
        } catch (err) {
          failures.push((err as Error).message);
          log(`calls: web [${i + 1}/${webRuns}] failed: ${(err as Error).message}`);
        }
      }
      const rows = await transcripts(ctx, ids);
      const webReplies = [...rows.values()].flatMap((r) =>
        r.transcript.flatMap((t) => (t.role === "agent" && t.latency ? [t.latency] : [])),
      );
      const phone = sequential[DEFAULT_LOOP];
      const phoneId = phone[0]?.callId;
      const phoneRows = phoneId ? await transcripts(ctx, [phoneId]) : new Map<string, { transcript: TranscriptTurn[] }>();
      const phoneAgentTexts = ((phoneId && phoneRows.get(phoneId)?.transcript) || []).filter((t) => t.role === "agent").map((t) => t.text);
      webVsPhone = {
        webCalls: ids.length,
        web: partsOf(webReplies),
        phone: partsOf(phone.flatMap((o) => o.replies)),
        webClient: spread(client),
        phoneCallee: spread(phone.flatMap((o) => o.calleeLatencies)),
        webHeardDiffers: [...rows.values()]
          .flatMap((r) => r.transcript.filter((t) => t.role === "user").map((t) => t.text))
          .filter((t) => !SCRIPT.includes(t)),
        webReplies: ([...rows.values()][0]?.transcript ?? []).filter((t) => t.role === "agent").map((t) => t.text),
        phoneReplies: phoneAgentTexts,
        failures,
      };
    }

    // -- 3. barge-in, on the default loop -----------------------------------------------------
    const tries = opts.bargeTries ?? 0;
    const bargeResult = tries > 0 ? await bargeIn(ctxOf(DEFAULT_LOOP, bargeAgentId), tries, log) : null;

    // -- 4. concurrency ramp (its calls also count towards the default loop's cost) ------------
    let defaultCost = costs[DEFAULT_LOOP] ?? null;
    const levels: LevelResult[] = [];
    const runLevel = async (n: number): Promise<LevelResult> => {
      log(`calls: ${n} simultaneous calls (${DEFAULT_LOOP} loop)…`);
      await sleep(1_000); // let the previous level's analyses and settlements finish
      let run = await observed(reloads, () => costedBatch(DEFAULT_LOOP, n));
      if (run.obs.reloads > 0 && run.value.outcomes.some((o) => o.problems.length > 0)) {
        log(`calls: workerd was restarted during the level (wrangler reloaded the worker): ${n} simultaneous calls once more`);
        redone++;
        await sleep(2_000);
        run = await observed(reloads, () => costedBatch(DEFAULT_LOOP, n));
      }
      defaultCost = defaultCost ? addSamples(defaultCost, run.value.cost) : run.value.cost;
      const level = summarizeLevel(run.value.outcomes, run.obs, n);
      log(
        `calls:   ${n} → ${level.held ? "held" : `DID NOT HOLD: ${level.failedChecks.join("; ")}`} (${level.seconds} s, v2v p50 ${ms(level.voiceToVoice.p50)} ms)`,
      );
      return level;
    };
    for (const n of opts.levels) {
      // One call alone is what part 1 measured K times.
      const alone = sequential[DEFAULT_LOOP];
      const level = n === 1 && alone.length > 0 ? summarizeLevel(alone, seq.obs) : await runLevel(n);
      if (n === 1 && alone.length > 0)
        log(
          `calls:   1 (the ${alone.length} ${DEFAULT_LOOP} calls above) → ${level.held ? "held" : `DID NOT HOLD: ${level.failedChecks.join("; ")}`}`,
        );
      levels.push(level);
      if (!level.workerHeld) {
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
    const highest = (ok: (l: LevelResult) => boolean) => {
      let top: number | null = null;
      for (const l of levels) {
        if (!ok(l)) break;
        top = l.simultaneous;
      }
      return top;
    };

    const result: CallsBenchResult = {
      runs: opts.runs,
      voiceToVoice,
      webVsPhone,
      bargeIn: bargeResult,
      cost: defaultCost ? priceCost(defaultCost) : null,
      sequentialFailures,
      levels,
      highestHeld: highest((l) => l.held),
      highestWorkerHeld: highest((l) => l.workerHeld),
      redoneAfterRestart: redone,
      notes,
      seconds: round((performance.now() - started) / 1000, 0),
    };
    report(result, log);
    return result;
  } finally {
    await Promise.all(workers.map((w) => w.stop().catch(() => undefined)));
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    await pool.end();
  }
}

/** The goals next to one run's figures: the lines of the calls part's summary (also bench/targets.ts's figures). */
export function goalRows(r: CallsBenchResult): Array<{ goal: string; value: string; met: boolean | null }> {
  const rows: Array<{ goal: string; value: string; met: boolean | null }> = [];
  const real = r.voiceToVoice[DEFAULT_LOOP];
  const fast = r.voiceToVoice.fast;
  const v = (s: Spread | undefined, p: "p50" | "p95") => (s && s.n > 0 ? s[p] : Number.NaN);
  const add = (goal: string, value: number, limit: number, unit = "ms") =>
    rows.push({
      goal,
      value: Number.isFinite(value) ? `${ms(value)} ${unit}` : "not measured",
      met: Number.isFinite(value) ? value <= limit : null,
    });
  // Voice-to-voice is judged on the callee's clock (what the caller hears); the worker's own measure,
  // which starts where its voice activity put the end of speech, is beside it.
  const worker = (s: VoiceSummary | undefined, q: "p50" | "p95") => `ms (worker ${ms(v(s?.parts.voiceToVoice, q))} ms)`;
  add(
    `voice-to-voice p50 ≤ ${GOAL.realisticP50} ms, realistic (${DEFAULT_LOOP}, callee's clock)`,
    v(real?.calleeVoiceToVoice, "p50"),
    GOAL.realisticP50,
    worker(real, "p50"),
  );
  add(
    `voice-to-voice p95 ≤ ${GOAL.realisticP95} ms, realistic (${DEFAULT_LOOP}, callee's clock)`,
    v(real?.calleeVoiceToVoice, "p95"),
    GOAL.realisticP95,
    worker(real, "p95"),
  );
  // The same goal with OpenAI's voice, a deployment without Cartesia: the voice's share of the goal.
  const withOpenai = r.voiceToVoice["streaming-stt-openai"];
  add(
    `voice-to-voice p50 ≤ ${GOAL.realisticP50} ms, realistic with OpenAI's voice, no Cartesia (callee's clock)`,
    v(withOpenai?.calleeVoiceToVoice, "p50"),
    GOAL.realisticP50,
    worker(withOpenai, "p50"),
  );
  add(
    `voice-to-voice p50 ≤ ${GOAL.fastP50} ms, fast profile (callee's clock)`,
    v(fast?.calleeVoiceToVoice, "p50"),
    GOAL.fastP50,
    worker(fast, "p50"),
  );
  const batch = r.voiceToVoice.batch;
  const residual = (q: "p50" | "p95") =>
    `ms (the callee's clock less every part: ${DEFAULT_LOOP} ${ms(v(real?.calleePlatform, q))}, batch ${ms(v(batch?.calleePlatform, q))} ms)`;
  add(
    `platform share p50 ≤ ${GOAL.platformP50} ms (${DEFAULT_LOOP}, platformMs)`,
    v(real?.parts.platform, "p50"),
    GOAL.platformP50,
    residual("p50"),
  );
  add(
    `platform share p95 ≤ ${GOAL.platformP95} ms (${DEFAULT_LOOP}, platformMs)`,
    v(real?.parts.platform, "p95"),
    GOAL.platformP95,
    residual("p95"),
  );
  const at = r.levels.find((l) => l.simultaneous === GOAL.simultaneous);
  rows.push({
    goal: `${GOAL.simultaneous} simultaneous calls hold`,
    value: at
      ? `${at.held ? "held" : at.workerHeld ? "worker held, load generator lagged" : `did not hold: ${at.failedChecks.join("; ")}`}`
      : `not run (highest tried: ${r.levels.at(-1)?.simultaneous ?? "none"}, held: ${r.highestHeld ?? "none"})`,
    met: at ? at.workerHeld : null,
  });
  const b = r.bargeIn;
  rows.push({
    goal: `a backchannel stops the agent in ≤ ${GOAL.backchannelMaxStops} of ${GOAL.bargeTries} tries`,
    value: b
      ? `${b.backchannelStops} of ${b.backchannelTries}${b.backchannelTries < GOAL.bargeTries ? ` (${b.backchannelTries} tries, the goal counts ${GOAL.bargeTries})` : ""}`
      : "not measured",
    // More stops than the goal allows in 10 is a miss however few the tries; fewer tries than 10 cannot meet it.
    met:
      !b || b.backchannelTries === 0
        ? null
        : b.backchannelStops > GOAL.backchannelMaxStops
          ? false
          : b.backchannelTries >= GOAL.bargeTries
            ? true
            : null,
  });
  rows.push({
    goal: `"${INTERRUPTION}" stops it within ${GOAL.interruptMs} ms of the end of "wait", every time`,
    value: b
      ? `${b.interruptionStops} of ${b.interruptionTries} stopped; from the end of "wait" p50 ${ms(b.interruption.fromWordEnd.p50)} / max ${ms(b.interruption.max)} ms (from the sound's start p50 ${ms(b.interruption.fromStart.p50)})`
      : "not measured",
    met:
      !b || b.interruptionTries === 0
        ? null
        : b.interruptionStops < b.interruptionTries || !(b.interruption.max <= GOAL.interruptMs)
          ? false
          : b.interruptionTries >= GOAL.bargeTries
            ? true
            : null,
  });
  const c = r.cost;
  rows.push({
    goal: `a call-minute costs < $${GOAL.costPerMinuteUsd} (Workers, Durable Object, Postgres, Redis)`,
    value: c ? `$${c.usd.total.toFixed(6)} per minute over ${round(c.minutes, 1)} min` : "not measured",
    met: c ? c.usd.total < GOAL.costPerMinuteUsd : null,
  });
  return rows;
}

function report(r: CallsBenchResult, log: (line: string) => void): void {
  const loops = LOOPS.filter((l) => r.voiceToVoice[l]);
  const each = (f: (v: VoiceSummary) => string | number) => loops.map((l) => f(r.voiceToVoice[l] as VoiceSummary));
  const p = (s: Spread) => `${ms(s.p50)} / ${ms(s.p95)}`;
  log("");
  log(
    `Calls: the voice loops, ${r.runs} phone conversations each (3 replies each), one at a time; worker's measure p50 / p95 ms unless said`,
  );
  log(
    table(
      ["measure", ...loops.map((l) => `${l} (${LOOP_SPECS[l].profile})`), "goal"],
      [
        [
          "voice-to-voice (worker)",
          ...each((v) => p(v.parts.voiceToVoice)),
          `${GOAL.realisticP50} / ${GOAL.realisticP95}; fast ${GOAL.fastP50} p50`,
        ],
        ["voice-to-voice (callee's clock)", ...each((v) => p(v.calleeVoiceToVoice)), "—"],
        ["  endpointing (until the turn was judged over)", ...each((v) => p(v.parts.endpointing)), "—"],
        ["  stt (after the turn's end)", ...each((v) => p(v.parts.stt)), "—"],
        ["  llm (to the first chunk)", ...each((v) => p(v.parts.llm)), "—"],
        ["  tts (first chunk to first byte)", ...each((v) => p(v.parts.tts)), "—"],
        ["  platform (platformMs: the rest)", ...each((v) => p(v.parts.platform)), `${GOAL.platformP50} / ${GOAL.platformP95}`],
        ["platform + hops, callee's clock", ...each((v) => p(v.calleePlatform)), "—"],
        ["replies / calls / failed calls", ...each((v) => `${v.replies} / ${v.calls} / ${v.failures}`), "—"],
        [
          "caller turns ended by",
          ...each(
            (v) =>
              Object.entries(v.endedBy)
                .map(([k, n]) => `${k} ${n}`)
                .join(", ") || "—",
          ),
          "—",
        ],
        ["transcription requests per turn / discarded", ...each((v) => `${v.transcriptionsPerTurn.toFixed(2)} / ${v.discarded}`), "—"],
      ],
      new Set([1, 2, 3, 4]),
    ),
  );
  log(
    "  voice-to-voice = endpointing + stt + llm + tts + platform, per reply (the parts' percentiles do not add up). Callee's clock: from its line's last frame; " +
      `the lines' quiet tails ${loops.length ? (r.voiceToVoice[loops[0] as Loop] as VoiceSummary).quietTailsMs.join("/") : "—"} ms sit between it and the worker's start (the last loud frame).`,
  );

  const w = r.webVsPhone;
  if (w) {
    log("");
    log(`Calls: web against phone, the same three lines on the ${DEFAULT_LOOP} loop (${w.webCalls} web conversation(s)); p50 / p95 ms`);
    const row = (label: string, a: Spread, b: Spread) => [label, p(b), p(a), ms(a.p50 - b.p50)];
    log(
      table(
        ["measure", "phone", "web", "web − phone p50"],
        [
          row("voice-to-voice (worker)", w.web.voiceToVoice, w.phone.voiceToVoice),
          row("  endpointing", w.web.endpointing, w.phone.endpointing),
          row("  stt", w.web.stt, w.phone.stt),
          row("  llm", w.web.llm, w.phone.llm),
          row("  tts", w.web.tts, w.phone.tts),
          row("  platform", w.web.platform, w.phone.platform),
          row("the caller's clock (last frame sent → first audio)", w.webClient, w.phoneCallee),
        ],
        new Set([1, 2, 3]),
      ),
    );
    log(
      `  replies: phone ${w.phone.voiceToVoice.n}, web ${w.web.voiceToVoice.n}${w.failures.length ? `; problems: ${w.failures.join("; ")}` : ""}`,
    );
    log(
      `  web caller turns transcribed otherwise than the script: ${w.webHeardDiffers.length ? JSON.stringify(w.webHeardDiffers) : "none"}`,
    );
    log(`  agent turns, a web call: ${JSON.stringify(w.webReplies)}`);
    log(`  agent turns, a phone call: ${JSON.stringify(w.phoneReplies)}`);
  }

  const b = r.bargeIn;
  if (b) {
    log("");
    log(
      `Calls: barge-in from a web client, ${DEFAULT_LOOP} loop, while the agent speaks (1.2 s into its first message): ` +
        `loud audio ${Object.entries(b.loudMs)
          .map(([k, v]) => `"${k}" ${v} ms`)
          .join(", ")}; "wait" ends ${b.wordEndMs ?? "?"} ms into "${INTERRUPTION}"`,
    );
    for (const phrase of [...BACKCHANNELS, INTERRUPTION]) {
      const ts = b.tries.filter((t) => t.phrase === phrase && !t.problem);
      log(`  "${phrase}": stopped the agent ${ts.filter((t) => t.stopped).length} of ${ts.length}`);
    }
    log(
      `  "${INTERRUPTION}" → clear: from the end of "wait" p50 ${ms(b.interruption.fromWordEnd.p50)} / p95 ${ms(b.interruption.fromWordEnd.p95)} / max ${ms(b.interruption.max)} ms; ` +
        `from the sound's start p50 ${ms(b.interruption.fromStart.p50)} / p95 ${ms(b.interruption.fromStart.p95)} ms (client's clock: frame sent → clear received)`,
    );
    log(
      `  sound's start → clear, p50 by phrase: ${Object.entries(b.fromStartByPhrase)
        .map(([k, v]) => `"${k}" ${ms(v)} ms`)
        .join(
          ", ",
        )}. "Mhm." can stop the agent only by its length (${MIN_INTERRUPTION_MS} ms, CALL_MIN_INTERRUPTION_MS): where "${INTERRUPTION}" stops it at the same offset, that rule fired, not its first word`,
    );
    const failed = b.tries.filter((t) => t.problem);
    if (failed.length) log(`  not measured: ${failed.length} tries (${failed[0]?.problem})`);
  }

  log("");
  log(
    "Calls: what a minute of conversation costs (counted at forwarders in front of Postgres, Redis and the provider sandbox; workerd's CPU from /proc)",
  );
  const costLoops: Array<[string, CostSummary | null]> = [
    ...loops.map((l): [string, CostSummary | null] => [l, (r.voiceToVoice[l] as VoiceSummary).cost]),
    [`${DEFAULT_LOOP}, all its phone calls`, r.cost],
  ];
  const cols = costLoops.filter(([, c]) => c !== null) as Array<[string, CostSummary]>;
  const num = (n: number | null, d = 1) => (n === null || !Number.isFinite(n) ? "—" : n.toFixed(d));
  if (cols.length > 0) {
    log(
      table(
        ["per minute of conversation", ...cols.map(([k]) => k)],
        [
          ["minutes measured (calls)", ...cols.map(([, c]) => `${c.minutes.toFixed(1)} (${c.sample.calls})`)],
          ["workerd CPU ms (worker + Durable Object, local)", ...cols.map(([, c]) => num(c.perMinute.workerdCpuMs, 0))],
          ["Durable Object active (wall) s", ...cols.map(([, c]) => num(c.perMinute.doWallSeconds))],
          ["requests to the worker", ...cols.map(([, c]) => num(c.perMinute.workerRequests))],
          ["Durable Object billed requests (WS messages 20:1)", ...cols.map(([, c]) => num(c.perMinute.doRequests))],
          ["Postgres: WebSocket sessions", ...cols.map(([, c]) => num(c.perMinute.pgSessions))],
          [
            "Postgres: SQL-over-HTTP requests / statements",
            ...cols.map(([, c]) => `${num(c.perMinute.sqlRequests)} / ${num(c.perMinute.sqlStatements)}`),
          ],
          ["Redis commands", ...cols.map(([, c]) => num(c.perMinute.redisCommands))],
          ["provider HTTP requests", ...cols.map(([, c]) => num(c.perMinute.providerRequests))],
          [
            "provider sockets / their messages",
            ...cols.map(([, c]) => `${num(c.perMinute.providerSockets)} / ${num(c.perMinute.providerMessages, 0)}`),
          ],
          ["$ Workers (requests + CPU)", ...cols.map(([, c]) => (c.usd.workerRequests + c.usd.workerCpu).toFixed(7))],
          ["$ Durable Object (requests + duration)", ...cols.map(([, c]) => (c.usd.doRequests + c.usd.doDuration).toFixed(7))],
          ["$ Postgres (Neon compute) + Redis (Upstash)", ...cols.map(([, c]) => (c.usd.postgres + c.usd.redis).toFixed(7))],
          [`$ in all (goal < ${GOAL.costPerMinuteUsd})`, ...cols.map(([, c]) => c.usd.total.toFixed(6))],
        ],
        new Set(cols.map((_, i) => i + 1)),
      ),
    );
    const c = r.cost ?? cols[0]?.[1];
    if (c)
      log(
        `  provider traffic (${DEFAULT_LOOP}, all calls): requests ${JSON.stringify(c.sample.providerRequests)}, sockets ${JSON.stringify(c.sample.providerSockets)}, ` +
          `messages out ${JSON.stringify(c.sample.providerMessagesOut)}, in ${JSON.stringify(c.sample.providerMessagesIn)}`,
      );
    log(
      "  rates (docs/benchmarks.md): Workers $0.30/M requests + $0.02/M CPU ms (workerd's CPU priced as Workers CPU: an upper bound, the Durable Object's CPU is in its duration); " +
        "Durable Objects $0.15/M requests (incoming WebSocket messages 20:1; provider sockets' messages included, an upper bound) + $12.50/M GB-s at 128 MB for the dial-to-hang-up; " +
        "Upstash $0.20/100K commands; Neon $0.106/CU-hour × 0.25 CU for the SQL requests' time at the endpoint.",
    );
  } else log("  not measured");

  log("");
  log(`Calls: concurrency (simultaneous phone calls on one local stack, ${DEFAULT_LOOP} loop)`);
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
      "callee: the sandbox's measure, first audio: answer to the agent's first audio, ms. loop delay: this process's worst event-loop stall, ms.",
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
  if (r.redoneAfterRestart > 0) log(`  ${r.redoneAfterRestart} call(s) or level(s) were run again: workerd was restarted under them.`);
  for (const n of r.notes) log(`  note: ${n}`);

  log("");
  log("Calls: the goals");
  log(
    table(
      ["goal", "this run", "verdict"],
      goalRows(r).map((g) => [g.goal, g.value, g.met === null ? "not measured" : g.met ? "met" : "not met"]),
    ),
  );
  const breakdown = breakdownLine(r);
  if (breakdown) log(breakdown);
}

/** Where the default loop's p50 goes, next to the goal, and what the fast profile's parts say. */
function breakdownLine(r: CallsBenchResult): string | null {
  const v = r.voiceToVoice[DEFAULT_LOOP];
  if (!v || v.replies === 0) return null;
  const pp = v.parts;
  return (
    `  ${DEFAULT_LOOP} p50 by part (ms): endpointing ${ms(pp.endpointing.p50)}, stt ${ms(pp.stt.p50)}, llm ${ms(pp.llm.p50)}, tts ${ms(pp.tts.p50)}, platform ${ms(pp.platform.p50)}; ` +
    `sum of the parts' p50s ${ms(pp.endpointing.p50 + pp.stt.p50 + pp.llm.p50 + pp.tts.p50 + pp.platform.p50)} against the goal's ${GOAL.realisticP50}.`
  );
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
  const d = quick ? QUICK : DEFAULTS;
  try {
    const result = await runCallsBench(stack, ws, {
      runs: Number(process.env.BENCH_CALL_RUNS ?? d.runs),
      levels: process.env.BENCH_CALL_LEVELS?.split(",").map(Number) ?? d.levels,
      webRuns: d.webRuns,
      bargeTries: d.bargeTries,
      log: console.log,
      reloads: () => workerLog.reloads,
    });
    if (result.sequentialFailures > 0) process.exitCode = 1;
  } finally {
    await removeBenchWorkspace(stack.databaseUrl, stack.wsProxy, ws).catch(() => undefined);
    await stack.stop();
  }
}
