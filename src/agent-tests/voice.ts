// A voice-mode test run (docs/agent-tests.md, "Voice mode"): the scenario played as a web call
// through the whole pipeline. The run places a web call to the agent at the run's version (the calls
// service, as POST /v1/agents/{id}/web-call does, so it counts against the workspace's calls in
// flight), joins it from the worker as the caller (web-caller.ts: the browser's protocol), says each
// caller line in real time through the deployment's text-to-speech, waits for the agent's reply to
// play, and goes on until the scenario ends; then hangs up. What is judged is the call's own stored
// transcript (the caller's lines as the agent's speech-to-text heard them), and the latency is the
// call's own per-reply trace: voice to voice.
import { pcm16FromBytes, resample } from "../calls/codec";
import { endCall } from "../calls/hang-up";
import { isEnded } from "../calls/lifecycle";
import { joinWebCallInWorker, type PlaceNeeds, startWebCall } from "../calls/place";
import { getCall } from "../calls/service";
import { WEB_CALL_RATE } from "../calls/transports";
import { analysisSkippedOf } from "../calls/views";
import type { Agent, AgentTest, AgentTestRun, Call, ChatTurn } from "../db/schema";
import { ApiError } from "../lib/errors";
import type { Payer } from "../metering/metered";
import { synthesizeWhole } from "../metering/speech";
import type { DomainContext, Op } from "../services";
import { telephonyProvider } from "../telephony/registry";
import { defaultVoiceId, getVoice } from "../voices/service";
import { configForRun } from "./config";
import { type RunOutcome, setRunCall } from "./queries";
import { beforeDeadline, CapReached, callerTurn, failedRun, latencyOf, runPayer, toolsCalledIn, verdict } from "./run";
import { MAX_TURNS } from "./schema";
import { WebCaller } from "./web-caller";

/** A voice run plays in real time (each line said, each reply heard): its time cap is twice a chat's. */
export const VOICE_RUN_TIME_CAP_MS = 120_000;
/** The caller's pause after the agent's reply has played, before it speaks (the telephony sandbox's callee waits as long). */
export const CALLER_PAUSE_MS = 200;
/** A caller line the agent does not start answering within this long was not heard as a turn: the run fails. */
export const REPLY_WAIT_MS = 15_000;
/** At most this long for the call to go live, its first message to play, its end to be written, its analysis to be settled. */
const SETTLE_MS = 15_000;
/** The providers' PCM (16-bit, 24 kHz), resampled to the web call's 16 kHz. */
const PCM_RATE = 24_000;

/** What a voice run needs: a run's context, with the calls' Durable Objects and the public origin. */
export type VoiceRunDeps = Pick<DomainContext, "db" | "config" | "providers" | "waitUntil" | "origin"> & {
  callSessions?: () => DurableObjectNamespace;
  publicOrigin?: string;
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The calls service's context for the run's workspace. */
function callsCtx(deps: VoiceRunDeps, run: AgentTestRun): Op<unknown, PlaceNeeds | "telephony">["ctx"] {
  const { callSessions } = deps;
  if (!callSessions) throw new ApiError("misconfigured", "The CALL_SESSIONS Durable Object binding is missing (wrangler.toml).");
  return {
    db: deps.db,
    config: deps.config,
    providers: deps.providers,
    waitUntil: deps.waitUntil,
    origin: deps.origin,
    organizationId: run.organizationId,
    publicOrigin: deps.publicOrigin ?? deps.config.PUBLIC_BASE_URL ?? deps.origin ?? "",
    callSessions,
    telephony: () => telephonyProvider(deps.config),
  };
}

/** The caller's voice: the deployment's default voice, its line synthesized (metered to the run) as 16 kHz PCM. */
async function callerVoice(deps: VoiceRunDeps, payer: Payer) {
  const voice = await getVoice({ ctx: { db: deps.db, organizationId: payer.organizationId }, input: { id: defaultVoiceId(deps.config) } });
  const provider = deps.providers.tts(voice.provider);
  const model = deps.providers.ttsModel(voice.provider);
  return async (text: string): Promise<Int16Array> => {
    const audio = await synthesizeWhole(
      deps.db,
      payer,
      provider,
      { text, voice: voice.providerVoiceId, model, format: "pcm" },
      deps.waitUntil,
    );
    return resample(pcm16FromBytes(new Uint8Array(audio)), PCM_RATE, WEB_CALL_RATE);
  };
}

/** The call's transcript as a run's: its turns at their time, tool turns with their detail. */
export function chatTurnsOfCall(call: Pick<Call, "transcript" | "startedAt" | "createdAt">): ChatTurn[] {
  const start = (call.startedAt ?? call.createdAt).getTime();
  return call.transcript.map((t) => ({
    role: t.role,
    text: t.text,
    at: new Date(start + t.startMs).toISOString(),
    ...(t.tool ? { tool: t.tool } : {}),
  }));
}

/** Each agent reply's voice-to-voice time, from the call's own trace (the first message has none). */
export const voiceToVoiceOf = (call: Pick<Call, "transcript">): number[] =>
  call.transcript.flatMap((t) => (t.role === "agent" && t.latency ? [t.latency.voiceToVoiceMs] : []));

/** The analysis of the call is stored, failed, or will not be made: its cost is all in. */
const analysisSettled = (call: Call) => Boolean(call.analysis || call.analysisError || analysisSkippedOf(call));

/** The conversation spoken: until the scenario ends, the agent ends the call, or a cap; why it stopped short, or null. */
async function converse(...args: Parameters<typeof speakScenario>): Promise<string | null> {
  try {
    return await speakScenario(...args);
  } catch (err) {
    if (err instanceof CapReached) return err.message;
    throw err;
  }
}

async function speakScenario(
  deps: VoiceRunDeps,
  payer: Payer,
  test: VoiceScenario,
  agent: Agent,
  model: string,
  caller: WebCaller,
  speak: (text: string) => Promise<Int16Array>,
  deadline: number,
  capMs: number,
): Promise<string | null> {
  const timeCap = `The conversation did not finish within ${capMs / 1000} s (the time cap).`;
  if (!(await caller.waitFor(() => caller.live || caller.gone, Math.min(deadline, Date.now() + SETTLE_MS))) || caller.gone)
    return caller.gone ? `The call ended before it went live (${caller.endedReason ?? "its socket closed"}).` : timeCap;
  // The agent's first message, heard out (with a first message, the session sends its mark once it is sent).
  if (agent.firstMessage)
    await caller.waitFor(() => (caller.marks > 0 && caller.playedOut()) || caller.gone, Math.min(deadline, Date.now() + SETTLE_MS));
  // What the caller knows of the conversation: its own lines as it said them, the agent's as the session sent them.
  const said: ChatTurn[] = [];
  let agentLines = 0;
  const hearAgent = () => {
    for (const line of caller.heard.slice(agentLines)) if (line.role === "agent") said.push({ role: "agent", text: line.text, at: now() });
    agentLines = caller.heard.length;
  };
  hearAgent();
  const maxTurns = test.scenario.kind === "simulated" ? Math.min(test.scenario.maxTurns, MAX_TURNS) : test.scenario.turns.length;
  const left = () => deadline - Date.now();
  for (let i = 0; ; i++) {
    if (caller.gone) return null;
    const line = await beforeDeadline(callerTurn(deps, payer, test, model, said, i), deadline, capMs);
    if (!line) return null;
    if (i >= maxTurns) return `The simulated caller was not done after ${maxTurns} turns (the scenario's maxTurns).`;
    const samples = await beforeDeadline(speak(line.text), deadline, capMs);
    if (caller.gone) return null;
    const [marks, audio] = [caller.marks, caller.audioMessages];
    const endedAt = await caller.say(samples);
    said.push({ role: "user", text: line.text, at: now() });
    // The reply starts (its first audio), then plays to its end (its mark, and the audio before it played).
    const started = await caller.waitFor(() => caller.audioMessages > audio || caller.gone, Math.min(deadline, endedAt + REPLY_WAIT_MS));
    if (!started)
      return left() <= 0
        ? timeCap
        : `The agent did not answer the caller's line ${i + 1} within ${REPLY_WAIT_MS / 1000} s (the call's transcript shows what speech-to-text heard).`;
    if (!(await caller.waitFor(() => (caller.marks > marks && caller.playedOut()) || caller.gone, deadline))) return timeCap;
    hearAgent();
    if (caller.gone || line.last) return null;
    await sleep(CALLER_PAUSE_MS);
  }
}

const now = () => new Date().toISOString();

/** The call, once its end is written (and its analysis settled, when `analysis`); as last read after SETTLE_MS. */
async function settledCall(ctx: Op<unknown>["ctx"], id: string, analysis: boolean): Promise<Call> {
  const until = Date.now() + SETTLE_MS;
  for (;;) {
    const call = await getCall({ ctx, input: { id } });
    if ((isEnded(call) && (!analysis || analysisSettled(call))) || Date.now() > until) return call;
    await sleep(200);
  }
}

/** What a voice run plays and judges: a test's, or a replay's (the recorded caller turns as a script). */
export type VoiceScenario = Pick<AgentTest, "scenario" | "criteria" | "toolExpectations" | "judgeModel">;

/**
 * Plays the scenario as a voice call and judges the call's transcript; the outcome to store (with
 * the call's id). Never throws; whatever happens, a call it placed is ended. `endpoint` names the
 * run's model calls in the usage log.
 */
export async function playVoiceRun(
  deps: VoiceRunDeps,
  run: AgentTestRun,
  test: VoiceScenario,
  capMs = VOICE_RUN_TIME_CAP_MS,
  endpoint = "/v1/agents/{id}/tests/{testId}/runs",
): Promise<RunOutcome> {
  const payer = runPayer(run, endpoint);
  const outcome: RunOutcome = { status: "error", transcript: [], results: null, toolsCalled: [], latency: null, error: null, callId: null };
  let caller: WebCaller | null = null;
  let ctx: ReturnType<typeof callsCtx> | null = null;
  try {
    ctx = callsCtx(deps, run);
    const agent = await configForRun(ctx, run.agentId, run.agentVersion);
    const model = test.judgeModel ?? deps.config.DEFAULT_CHAT_MODEL;
    const speak = await callerVoice(deps, payer);
    const deadline = Date.now() + capMs;
    const session = await startWebCall({
      ctx,
      input: { agent, agentVersion: run.agentVersion ?? agent.liveVersion, metadata: { agentTestRunId: run.id } },
    });
    outcome.callId = session.call.id;
    await setRunCall(deps.db, run.id, session.call.id);
    caller = new WebCaller(await joinWebCallInWorker({ ctx, input: { session } }));
    const cut = await converse(deps, payer, test, agent, model, caller, speak, deadline, capMs);
    // Hung up as a browser does; the session writes the call's end, then closes the socket.
    caller.stop();
    const open = caller;
    if (!open.gone) open.hangup();
    await open.waitFor(() => open.closed, Date.now() + SETTLE_MS);
    const call = await settledCall(ctx, session.call.id, false);
    outcome.transcript = chatTurnsOfCall(call);
    outcome.toolsCalled = toolsCalledIn(outcome.transcript);
    outcome.latency = latencyOf(voiceToVoiceOf(call));
    if (cut) return { ...outcome, status: "failed", error: cut };
    // The call's analysis (metered to the call) settles while the judge reads: the run's cost includes both.
    const [judged] = await Promise.all([verdict(deps, payer, model, test, outcome, agent), settledCall(ctx, session.call.id, true)]);
    return judged;
  } catch (err) {
    return { ...outcome, status: "error", error: failedRun(run, err) };
  } finally {
    caller?.close();
    if (ctx && outcome.callId) await endIfLive(ctx, outcome.callId);
  }
}

/** A call the run placed and did not see end (it failed before hanging up) is ended, so it holds no place in flight. */
async function endIfLive(ctx: Op<unknown, PlaceNeeds | "telephony">["ctx"], id: string): Promise<void> {
  try {
    if (!isEnded(await getCall({ ctx, input: { id } }))) await endCall({ ctx, input: { id } });
  } catch (err) {
    if (!(err instanceof ApiError))
      console.error(JSON.stringify({ level: "error", msg: "test run's call not ended", callId: id, error: (err as Error).name }));
  }
}
