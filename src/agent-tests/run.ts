// One test run (docs/agent-tests.md, "A run"): the scenario's caller and the agent talk through the
// same turn runtime a chat uses (src/tools/runtime.ts agentTurn: the agent's prompt, knowledge and
// tools, which are called for real), until the caller is done, the agent ends the conversation, or
// a cap is reached (turns, time); then the judge reads the transcript, and the tool expectations
// are checked against its tool turns. Every model call is metered to the workspace and tagged with
// the run, whose cost is their sum. Whatever happens, the run ends in a final status with the reason.
import { renderTemplate } from "../calls/prompt";
import type { Agent, AgentTest, AgentTestRun, ChatTurn, TestCriteria, TestRunLatency } from "../db/schema";
import { ApiError } from "../lib/errors";
import type { Payer } from "../metering/metered";
import { ProviderError } from "../providers/http";
import { agentTurn, type ToolTurnDeps } from "../tools/runtime";
import { chatMessages, REPLY_MAX_TOKENS } from "../widgets/reply";
import { CALLER_MAX_TOKENS, callerMessages, readCallerAnswer } from "./caller";
import { configForRun } from "./config";
import { checkExpectations, expectationTools, toolCallsOf } from "./expectations";
import { JUDGE_MAX_TOKENS, type Judgement, JudgeUnreadable, judgeMessages, judgeResponseFormat, readJudgement } from "./judge";
import { completeText } from "./llm";
import type { RunOutcome } from "./queries";
import { MAX_TURNS } from "./schema";

/** A conversation longer than this fails (the time cap), whatever its turns. */
export const RUN_TIME_CAP_MS = 60_000;
/** What the agent is told it is in: a text conversation, as a widget chat is. */
const TEST_INSTRUCTIONS = "You are chatting with a user in a text conversation. Answer in plain text, briefly and helpfully.";

export class CapReached extends Error {}

/** `work`, or CapReached once the deadline passes (the work goes on unheeded; its result is dropped). */
export function beforeDeadline<T>(work: Promise<T>, deadline: number, capMs: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const cap = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new CapReached(`The conversation did not finish within ${capMs / 1000} s (the time cap).`)),
      Math.max(0, deadline - Date.now()),
    );
  });
  return Promise.race([work, cap]).finally(() => clearTimeout(timer));
}

/** Why a run could not finish, in words (a provider's failure, the workspace's credits, ours). */
export function failureReason(err: unknown): string {
  if (err instanceof CapReached || err instanceof JudgeUnreadable) return err.message;
  if (err instanceof ApiError) return err.message;
  if (err instanceof ProviderError) return `The model provider failed (${err.message}).`;
  return "The run failed unexpectedly; run it again, and if it fails again, contact support with the run's id.";
}

/** The reason a run ends `error` with; a failure that is not the judge's is logged. */
export function failedRun(run: AgentTestRun, err: unknown): string {
  if (!(err instanceof JudgeUnreadable))
    console.error(
      JSON.stringify({
        level: "error",
        msg: "test run failed",
        runId: run.id,
        error: (err as Error)?.name,
        message: (err as Error)?.message,
      }),
    );
  return failureReason(err);
}

interface Conversation {
  transcript: ChatTurn[];
  /** Milliseconds the caller waited for each agent reply. */
  waits: number[];
  /** Why it stopped short (a cap): the run fails with it. */
  cut: string | null;
}

/** The caller's next message: the script's, or the simulated caller's (null: it is done). */
export async function callerTurn(
  deps: ToolTurnDeps,
  payer: Payer,
  test: Pick<AgentTest, "scenario">,
  model: string,
  transcript: ChatTurn[],
  index: number,
): Promise<{ text: string; last: boolean } | null> {
  const { scenario } = test;
  if (scenario.kind === "script") {
    const text = scenario.turns[index];
    return text === undefined ? null : { text, last: index === scenario.turns.length - 1 };
  }
  if (index === 0 && scenario.firstMessage) return { text: scenario.firstMessage, last: false };
  const answer = await completeText(deps, payer, model, callerMessages(scenario, transcript), CALLER_MAX_TOKENS);
  const read = readCallerAnswer(answer);
  if (read.done && !read.text) return null;
  return { text: read.text, last: read.done };
}

/** The conversation, until the caller is done, the agent ends it, or a cap is reached. */
async function converse(
  deps: ToolTurnDeps,
  payer: Payer,
  test: AgentTest,
  agent: Agent,
  model: string,
  capMs: number,
): Promise<Conversation> {
  const c: Conversation = { transcript: [], waits: [], cut: null };
  const deadline = Date.now() + capMs;
  if (agent.firstMessage) c.transcript.push({ role: "agent", text: renderTemplate(agent.firstMessage, {}), at: now() });
  const maxTurns = test.scenario.kind === "simulated" ? Math.min(test.scenario.maxTurns, MAX_TURNS) : MAX_TURNS;
  try {
    for (let i = 0; ; i++) {
      const said = await beforeDeadline(callerTurn(deps, payer, test, model, c.transcript, i), deadline, capMs);
      if (!said) return c;
      if (i >= maxTurns) {
        c.cut = `The simulated caller was not done after ${maxTurns} turns (the scenario's maxTurns).`;
        return c;
      }
      c.transcript.push({ role: "user", text: said.text, at: now() });
      const started = Date.now();
      const turn = await beforeDeadline(agentReply(deps, payer, agent, c.transcript), deadline, capMs);
      c.waits.push(Date.now() - started);
      c.transcript.push(...turn.turns.map((t): ChatTurn => ({ ...t })), { role: "agent", text: turn.text, at: now() });
      if (turn.ended || said.last) return c;
    }
  } catch (err) {
    if (!(err instanceof CapReached)) throw err;
    c.cut = err.message;
    return c;
  }
}

/** The value below which `p` of the sorted values fall (nearest rank); null for none. */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] as number;
}

/** How long the caller waited for each reply, summed up: count, average, p50, p95, max, total (ms). */
export function latencyOf(waits: number[]): TestRunLatency {
  const total = waits.reduce((a, b) => a + b, 0);
  const sorted = [...waits].sort((a, b) => a - b);
  return {
    turns: waits.length,
    averageMs: waits.length ? Math.round(total / waits.length) : null,
    maxMs: waits.length ? Math.max(...waits) : null,
    totalMs: total,
    p50Ms: percentile(sorted, 0.5),
    p95Ms: percentile(sorted, 0.95),
  };
}

/** The judge's verdict on a transcript; no model call when there is nothing to judge. */
export async function judgeTranscript(
  deps: ToolTurnDeps,
  payer: Payer,
  model: string,
  criteria: TestCriteria,
  transcript: ChatTurn[],
): Promise<Judgement> {
  if (criteria.successCriteria.length + criteria.extractionFields.length === 0) return { criteria: [], extractedData: {} };
  const answer = await completeText(
    deps,
    payer,
    model,
    judgeMessages(criteria, transcript),
    JUDGE_MAX_TOKENS,
    judgeResponseFormat(criteria),
  );
  return readJudgement(answer, criteria);
}

/** Who pays a run's model calls: its workspace, logged under `endpoint` with the run's id as the chat id. */
export const runPayer = (run: AgentTestRun, endpoint: string): Payer => ({
  organizationId: run.organizationId,
  apiKeyId: null,
  method: "POST",
  endpoint,
  chatId: run.id,
});

/** The agent's reply to the conversation so far, through the chats' turn runtime (tools called for real). */
export const agentReply = (deps: ToolTurnDeps, payer: Payer, agent: Agent, transcript: ChatTurn[]) =>
  agentTurn(
    deps,
    payer,
    agent,
    { kind: "chat", id: payer.chatId as string, channel: "test" },
    chatMessages(agent, transcript, TEST_INSTRUCTIONS),
    REPLY_MAX_TOKENS,
  );

export const now = () => new Date().toISOString();

/** The tools a transcript's tool turns called, as a run lists them. */
export const toolsCalledIn = (transcript: readonly ChatTurn[]): RunOutcome["toolsCalled"] =>
  transcript.flatMap((t) =>
    t.role === "tool" && t.tool ? [{ name: t.tool.name, arguments: t.tool.arguments, outcome: t.tool.outcome }] : [],
  );

/**
 * A test's verdict on a conversation that played to its end: its tool expectations checked, its
 * criteria judged; `passed` when all hold, else `failed` naming what did not.
 */
export async function verdict(
  deps: ToolTurnDeps,
  payer: Payer,
  model: string,
  test: Pick<AgentTest, "criteria" | "toolExpectations">,
  outcome: RunOutcome,
  agent: Pick<Agent, "tools" | "knowledge">,
): Promise<RunOutcome> {
  const toolExpectations = checkExpectations(test.toolExpectations, toolCallsOf(outcome.transcript), new Set(expectationTools(agent)));
  const judged = await judgeTranscript(deps, payer, model, test.criteria, outcome.transcript);
  const results = { criteria: judged.criteria, extractedData: judged.extractedData, toolExpectations };
  const failed = [
    ...judged.criteria.filter((r) => !r.passed).map((r) => r.criterion),
    ...toolExpectations.filter((r) => !r.passed).map((r) => r.tool),
  ];
  return failed.length === 0
    ? { ...outcome, results, status: "passed" }
    : { ...outcome, results, status: "failed", error: `Failed: ${failed.map((f) => JSON.stringify(f)).join(", ")}.` };
}

/** Plays and judges the run; the outcome to store. Never throws. */
export async function playRun(deps: ToolTurnDeps, run: AgentTestRun, test: AgentTest, capMs = RUN_TIME_CAP_MS): Promise<RunOutcome> {
  const payer = runPayer(run, "/v1/agents/{id}/tests/{testId}/runs");
  const outcome: RunOutcome = { status: "error", transcript: [], results: null, toolsCalled: [], latency: null, error: null };
  try {
    const agent = await configForRun({ db: deps.db, organizationId: run.organizationId }, run.agentId, run.agentVersion);
    const model = test.judgeModel ?? deps.config.DEFAULT_CHAT_MODEL;
    const c = await converse(deps, payer, test, agent, model, capMs);
    outcome.transcript = c.transcript;
    outcome.latency = latencyOf(c.waits);
    outcome.toolsCalled = toolsCalledIn(c.transcript);
    if (c.cut) return { ...outcome, status: "failed", error: c.cut };
    return await verdict(deps, payer, model, test, outcome, agent);
  } catch (err) {
    return { ...outcome, status: "error", error: failedRun(run, err) };
  }
}
