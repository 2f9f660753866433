// A replay (docs/agent-tests.md, "Replay"): the caller's turns of a past call or chat said again,
// one by one and in order, to the agent at the run's version through the same turn runtime a test
// run uses (tools called for real); each new reply is compared with the one recorded at that
// position, then the judge reads the replayed conversation as it reads a test run's.
import { renderTemplate } from "../calls/prompt";
import type { AgentTestRun, ChatTurn, ReplayTurn } from "../db/schema";
import type { ToolTurnDeps } from "../tools/runtime";
import { configForRun } from "./config";
import type { RunOutcome } from "./queries";
import { sourceTranscript } from "./queries";
import {
  agentReply,
  beforeDeadline,
  CapReached,
  failedRun,
  judgeTranscript,
  latencyOf,
  now,
  RUN_TIME_CAP_MS,
  runPayer,
  toolsCalledIn,
} from "./run";
import { playVoiceRun, type VoiceRunDeps, type VoiceScenario } from "./voice";

/** Replays longer than this are refused: the time cap would cut them anyway. */
export const MAX_REPLAY_TURNS = 50;

/** One caller turn of a recorded conversation and what the agent answered it then. */
export interface RecordedTurn {
  caller: string;
  recorded: string;
}

/**
 * The caller's turns of a recorded transcript, in order, each with the agent's words after it and
 * before the next caller turn (several agent turns, as a call may split a reply, joined by a space;
 * tool turns are not words said).
 */
export function recordedTurns(transcript: ReadonlyArray<Pick<ChatTurn, "role" | "text">>): RecordedTurn[] {
  const turns: RecordedTurn[] = [];
  for (const t of transcript) {
    if (t.role === "user") turns.push({ caller: t.text, recorded: "" });
    else if (t.role === "agent" && turns.length > 0) {
      const last = turns[turns.length - 1] as RecordedTurn;
      last.recorded = last.recorded ? `${last.recorded} ${t.text}` : t.text;
    }
  }
  return turns;
}

/** Replies compare equal when they match after collapsing white space, trimming and lower-casing; no fuzzier. */
export const normalizedReply = (text: string) => text.replace(/\s+/g, " ").trim().toLowerCase();

/**
 * The words of a replayed reply, as `recordedTurns` reads a recorded one: a tool's "one moment" said
 * before the answer (an agent turn of its own) and then the answer, joined by a space.
 */
export const replyWords = (reply: { text: string; turns: ReadonlyArray<Pick<ChatTurn, "role" | "text">> }): string =>
  [...reply.turns.filter((t) => t.role === "agent").map((t) => t.text), reply.text].join(" ");

export const turnDiffers = (recorded: string, replayed: string | null) =>
  replayed === null || normalizedReply(recorded) !== normalizedReply(replayed);

/** The replay's turns: each recorded caller turn with the reply then and the reply now (null: not reached). */
function replayTurns(recorded: RecordedTurn[], replies: Array<string | null>): ReplayTurn[] {
  return recorded.map((t, index) => {
    const replayed = replies[index] ?? null;
    return { index, caller: t.caller, recorded: t.recorded, replayed, differs: turnDiffers(t.recorded, replayed) };
  });
}

/**
 * Replays the run's source through the voice pipeline (docs/agent-tests.md, "Replay"): its caller
 * turns spoken as a voice run's script (voice.ts), the replies read from the new call's transcript,
 * the n-th caller turn heard paired with the n-th recorded one. Never throws.
 */
export async function playVoiceReplay(deps: VoiceRunDeps, run: AgentTestRun, capMs?: number): Promise<RunOutcome> {
  const source = run.source ? await sourceTranscript(deps.db, run.organizationId, run.agentId, run.source) : undefined;
  if (!source)
    return {
      status: "error",
      transcript: [],
      results: null,
      toolsCalled: [],
      latency: null,
      error: "The call or chat replayed was deleted before the replay started.",
      turns: null,
    };
  const recorded = recordedTurns(source);
  const scenario: VoiceScenario = {
    scenario: { kind: "script", turns: recorded.map((t) => t.caller) },
    criteria: run.criteria ?? { successCriteria: [], extractionFields: [] },
    toolExpectations: [],
    judgeModel: null,
  };
  const outcome = await playVoiceRun(deps, run, scenario, capMs, "/v1/agents/{id}/replays");
  const heard = recordedTurns(outcome.transcript);
  // A caller turn the new call heard but the agent never answered was not reached.
  return {
    ...outcome,
    turns: replayTurns(
      recorded,
      recorded.map((_, i) => heard[i]?.recorded || null),
    ),
  };
}

/** Replays the run's source and judges it; the outcome to store. Never throws. */
export async function playReplay(deps: ToolTurnDeps, run: AgentTestRun, capMs = RUN_TIME_CAP_MS): Promise<RunOutcome> {
  const payer = runPayer(run, "/v1/agents/{id}/replays");
  const outcome: RunOutcome = { status: "error", transcript: [], results: null, toolsCalled: [], latency: null, error: null, turns: null };
  try {
    const ctx = { db: deps.db, organizationId: run.organizationId };
    const agent = await configForRun(ctx, run.agentId, run.agentVersion);
    const source = run.source ? await sourceTranscript(deps.db, run.organizationId, run.agentId, run.source) : undefined;
    if (!source) return { ...outcome, error: "The call or chat replayed was deleted before the replay started." };
    const recorded = recordedTurns(source);
    const transcript: ChatTurn[] = [];
    const replies: Array<string | null> = recorded.map(() => null);
    const waits: number[] = [];
    let cut: string | null = null;
    if (agent.firstMessage) transcript.push({ role: "agent", text: renderTemplate(agent.firstMessage, {}), at: now() });
    const deadline = Date.now() + capMs;
    try {
      for (const [i, turn] of recorded.entries()) {
        transcript.push({ role: "user", text: turn.caller, at: now() });
        const started = Date.now();
        const reply = await beforeDeadline(agentReply(deps, payer, agent, transcript), deadline, capMs);
        waits.push(Date.now() - started);
        transcript.push(...reply.turns.map((t): ChatTurn => ({ ...t })), { role: "agent", text: reply.text, at: now() });
        replies[i] = replyWords(reply);
        // The agent ended the conversation: the caller's later turns get no reply (each one differs).
        if (reply.ended) break;
      }
    } catch (err) {
      if (!(err instanceof CapReached)) throw err;
      cut = err.message;
    }
    const turns = replayTurns(recorded, replies);
    Object.assign(outcome, {
      transcript,
      turns,
      latency: latencyOf(waits),
      toolsCalled: toolsCalledIn(transcript),
    });
    if (cut) return { ...outcome, status: "failed", error: cut };
    const criteria = run.criteria ?? { successCriteria: [], extractionFields: [] };
    const judged = await judgeTranscript(deps, payer, deps.config.DEFAULT_CHAT_MODEL, criteria, transcript);
    outcome.results = { criteria: judged.criteria, extractedData: judged.extractedData, toolExpectations: [] };
    const failed = judged.criteria.filter((r) => !r.passed).map((r) => r.criterion);
    return failed.length === 0
      ? { ...outcome, status: "passed" }
      : { ...outcome, status: "failed", error: `Failed: ${failed.map((f) => JSON.stringify(f)).join(", ")}.` };
  } catch (err) {
    return { ...outcome, status: "error", error: failedRun(run, err) };
  }
}
