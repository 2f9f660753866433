// An agent's turn with tools (docs/tools.md): ask the model with the agent's tools; when it
// answers with tool calls, run them (in parallel, each signed and SSRF-checked, src/tools/invoke.ts),
// give it the results, and ask again, at most MAX_TOOL_ROUNDS times; the last round may only
// answer in text. Every round is metered to the payer like any reply. Failures are spoken: the
// tool's `requestFailed` message (or ours) comes before the model's answer. `end_call` ends the
// conversation after this reply; `transfer_call` (phone calls only) hands the caller on after it;
// `send_dtmf` (phone calls only) presses keys after it, and the agent then listens (no more rounds).
// Chats ask for whole answers; live calls pass a `round` that streams each answer into speech, and
// then everything the turn adds is said through `say` as it happens (src/calls/session.ts). The tools
// offered, as the model sees them: ./offer.ts.

import { dtmfProblem } from "../calls/keypad";
import type { Db } from "../db/client";
import type { Agent, EndCallTool, ToolTurnDetail, TransferDestination } from "../db/schema";
import type { AppConfig } from "../env";
import type { Prefetch } from "../knowledge/prefetch";
import { type Retrieval, withKnowledge } from "../knowledge/retrieve";
import { searchKnowledgeCall } from "../knowledge/tool";
import { type AgentAnswer, agentCompletion, type ToolOffer } from "../metering/agent-reply";
import type { Payer } from "../metering/metered";
import type { Providers } from "../providers/registry";
import type { ChatMessage } from "../providers/types";
import { invokeTool, type ToolCallResult, type ToolSubject } from "./invoke";
import { modelTools, offeredTools, transferDestination } from "./offer";
import { openToolSecretOf } from "./service";

/** Tool rounds per turn: then the model must answer in text. */
export const MAX_TOOL_ROUNDS = 3;
/** Tool calls run per model answer; more are answered with an error. */
export const MAX_PARALLEL_CALLS = 10;
export const DEFAULT_FAILED_MESSAGE = "Sorry, something went wrong on my side while checking that.";
export const DEFAULT_END_MESSAGE = "Thank you. Goodbye!";
export const DEFAULT_TRANSFER_MESSAGE = "Please hold while I transfer your call.";
const EMPTY_REPLY = "Sorry, I could not answer that.";

export interface ToolTurnDeps {
  db: Db;
  config: AppConfig;
  waitUntil(work: Promise<unknown>): void;
  providers: Pick<Providers, "chat" | "embeddings">;
}

/** Something the agent says during the turn (a `requestStart` message): messaging sends it at once. */
export type Say = (text: string) => Promise<void>;

/** A turn to append to the transcript, in order, before the reply. */
export type TurnRecord = { role: "agent"; text: string; at: string } | { role: "tool"; text: string; at: string; tool: ToolTurnDetail };

export interface AgentTurn {
  /** The reply: failure messages first, then the model's answer (or the goodbye). */
  text: string;
  /** `requestStart` messages said and tool turns, in order, before the reply. */
  turns: TurnRecord[];
  toolCalls: number;
  /** end_call was called: the conversation ends after this reply. */
  ended: boolean;
  /** transfer_call was called (phone calls): the caller is handed to this destination after this reply. */
  transfer: TransferDestination | null;
  /** send_dtmf was called (phone calls): these keys are pressed after this reply. */
  dtmf?: string;
  /** An agent that retrieves on every turn: the passages the reply was given (src/knowledge/retrieve.ts). */
  retrieval?: Retrieval;
}

/**
 * One round: the model's answer to `messages` with the tools offered, metered. By default one whole
 * completion; a live call streams it, speaking its text as it comes.
 */
export type Round = (messages: ChatMessage[], offer: ToolOffer) => Promise<AgentAnswer>;

/** What a live call adds to a turn: its streaming round, and each tool round as it completes. */
export interface LiveTurn {
  round?: Round;
  /**
   * A tool round is done: the model's calls (an assistant message without its words, which were
   * said) and their results, for the call's history, and the round's tool turns for its transcript.
   */
  onToolRound?(messages: ChatMessage[], turns: Array<Extract<TurnRecord, { role: "tool" }>>): void;
  /** Passages searched while the caller spoke (src/knowledge/prefetch.ts). */
  prefetch?: Prefetch;
  /** The turn's passages are in hand, before the first round: what retrieval did (the reply's latency record). */
  onRetrieval?(retrieval: Retrieval): void;
}

interface ModelCall {
  id: string;
  name: string;
  arguments: string;
}

/** The tool calls of an answer that we can read (OpenAI's `{id, type: "function", function: {name, arguments}}`). */
function readCalls(raw: Array<Record<string, unknown>>): ModelCall[] {
  const out: ModelCall[] = [];
  raw.forEach((c, i) => {
    const fn = c.function as { name?: unknown; arguments?: unknown } | undefined;
    if (!fn || typeof fn.name !== "string") return;
    out.push({
      id: typeof c.id === "string" && c.id ? c.id : `call_${i}`,
      name: fn.name,
      arguments: typeof fn.arguments === "string" ? fn.arguments : JSON.stringify(fn.arguments ?? {}),
    });
  });
  return out;
}

const summary = (d: ToolTurnDetail) =>
  d.outcome === "ok" ? `${d.name}: ok (${d.latencyMs} ms)` : `${d.name}: failed, ${d.error ?? d.outcome} (${d.latencyMs} ms)`;

const parsedArgs = (raw: string): unknown => {
  try {
    return raw.trim() ? JSON.parse(raw) : {};
  } catch {
    return raw;
  }
};

/**
 * One turn of the agent: its reply to `messages` (the prompt and the history), with its tools.
 * Without tools it is one metered round, as before. With a streaming `round` (a live call), the
 * round's text is spoken as it comes, and the failure messages and the goodbye are said through
 * `say` when they happen instead of leading the returned text.
 */
export async function agentTurn(
  deps: ToolTurnDeps,
  payer: Payer,
  agent: TurnAgent,
  subject: ToolSubject,
  asked: ChatMessage[],
  replyTokens: number,
  say?: Say,
  live: LiveTurn = {},
): Promise<AgentTurn> {
  // The passages the user's last words find, when the agent retrieves on every turn (src/knowledge/retrieve.ts).
  const { messages, retrieval } = await withKnowledge(deps, payer, agent.knowledge, asked, live.prefetch);
  if (retrieval) live.onRetrieval?.(retrieval);
  const turn = await replyWithTools(deps, payer, agent, subject, messages, replyTokens, say, live);
  return retrieval ? { ...turn, retrieval } : turn;
}

type TurnAgent = Pick<Agent, "id" | "name" | "llmModel" | "temperature" | "tools" | "toolSecret" | "metadata"> &
  Partial<Pick<Agent, "knowledge">>;

/** The turn's rounds on `messages` (the knowledge passages already in them). */
async function replyWithTools(
  deps: ToolTurnDeps,
  payer: Payer,
  agent: TurnAgent,
  subject: ToolSubject,
  messages: ChatMessage[],
  replyTokens: number,
  say: Say | undefined,
  live: LiveTurn,
): Promise<AgentTurn> {
  const { round } = live;
  const offered = offeredTools(agent.tools, subject, agent.knowledge);
  const streamed = round !== undefined;
  const ask: Round =
    round ?? ((msgs, offer) => agentCompletion(deps.db, deps.providers, payer, agent, msgs, replyTokens, offer, deps.waitUntil));
  const complete = (msgs: ChatMessage[], toolChoice: "auto" | "none") =>
    ask(msgs, offered.size ? { tools: modelTools(offered), toolChoice } : {});
  const speak = async (text: string) => {
    await say?.(text).catch(() => undefined);
  };
  if (offered.size === 0) {
    const answer = await complete(messages, "auto");
    return { text: answer.content, turns: [], toolCalls: 0, ended: false, transfer: null };
  }

  const history = [...messages];
  const turns: TurnRecord[] = [];
  const failures = new Set<string>();
  const started = new Set<string>();
  // Opened while the model thinks, so the signature waits for nothing but the HMAC.
  const secret: Promise<string | null> = [...offered.values()].some((t) => t.type === "function")
    ? openToolSecretOf({ ctx: deps, input: agent }).catch(() => null)
    : Promise.resolve(null);
  let toolCalls = 0;
  let ended: EndCallTool | null = null;
  let transfer: TransferDestination | null = null;
  /** Keys send_dtmf presses after the reply (several calls: in order). */
  let keys = "";
  let endedSaying = "";
  /** What was said so far (streamed rounds): the returned text. */
  const spoken: string[] = [];

  for (let n = 0; ; n++) {
    const answer = await complete(history, n < MAX_TOOL_ROUNDS ? "auto" : "none");
    if (streamed && answer.content) spoken.push(answer.content);
    const calls = n < MAX_TOOL_ROUNDS ? readCalls(answer.toolCalls) : [];
    if (calls.length === 0) {
      if (streamed) {
        if (!answer.content) {
          await speak(EMPTY_REPLY);
          spoken.push(EMPTY_REPLY);
        }
        return { text: spoken.join(" "), turns, toolCalls, ended: false, transfer: null };
      }
      const text = [...failures, answer.content].filter(Boolean).join(" ");
      return { text: text || EMPTY_REPLY, turns, toolCalls, ended: false, transfer: null };
    }
    history.push({
      role: "assistant",
      content: answer.content || null,
      tool_calls: calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.arguments } })),
    });

    // Said while the tools run (once per tool and turn).
    for (const c of calls) {
      const tool = offered.get(c.name);
      const text = tool?.type === "function" ? tool.messages.requestStart : undefined;
      if (!text || started.has(c.name)) continue;
      started.add(c.name);
      turns.push({ role: "agent", text, at: new Date().toISOString() });
      if (streamed) spoken.push(text);
      await speak(text);
    }

    const opened = await secret;
    const results = await Promise.all(
      calls.map(async (c, i): Promise<ToolCallResult> => {
        const tool = offered.get(c.name);
        const t0 = Date.now();
        const refusal = (error: string, outcome: ToolTurnDetail["outcome"]): ToolCallResult => {
          const content = JSON.stringify({ error });
          return {
            callId: c.id,
            requestId: null,
            name: c.name,
            arguments: parsedArgs(c.arguments),
            outcome,
            statusCode: null,
            latencyMs: Date.now() - t0,
            result: content,
            error,
            content,
          };
        };
        if (i >= MAX_PARALLEL_CALLS) return refusal(`at most ${MAX_PARALLEL_CALLS} tool calls are run at once`, "unknown_tool");
        if (!tool) return refusal(`there is no tool named ${c.name}`, "unknown_tool");
        const done = (result: Record<string, unknown>): ToolCallResult => {
          const content = JSON.stringify(result);
          return {
            callId: c.id,
            requestId: null,
            name: c.name,
            arguments: parsedArgs(c.arguments),
            outcome: "ok",
            statusCode: null,
            latencyMs: Date.now() - t0,
            result: content,
            content,
          };
        };
        if (tool.type === "search_knowledge") return searchKnowledgeCall(deps, payer, tool, c);
        if (tool.type === "end_call") {
          ended = tool;
          endedSaying = answer.content;
          return done({ ended: true });
        }
        if (tool.type === "transfer_call") {
          const to = transferDestination(tool, parsedArgs(c.arguments));
          if (!to) return refusal(`destination must be one of ${tool.destinations.map((d) => d.name).join(", ")}`, "invalid_arguments");
          transfer = to;
          endedSaying = answer.content;
          return done({ transferring: true, destination: to.name ?? to.number });
        }
        if (tool.type === "send_dtmf") {
          const digits = (parsedArgs(c.arguments) as { digits?: unknown } | null)?.digits;
          const problem = dtmfProblem(digits);
          if (problem) return refusal(problem, "invalid_arguments");
          keys += digits as string;
          return done({ pressing: digits });
        }
        return invokeTool(deps.config, {
          tool,
          call: { id: c.id, arguments: c.arguments },
          subject,
          agent: { id: agent.id, name: agent.name, metadata: agent.metadata },
          secret: opened,
        });
      }),
    );
    const at = new Date().toISOString();
    const roundTurns: Array<Extract<TurnRecord, { role: "tool" }>> = [];
    const roundMessages: ChatMessage[] = [{ ...(history.at(-1) as ChatMessage), content: null }];
    results.forEach((r, i) => {
      const { content, ...detail } = r;
      toolCalls++;
      const turn = { role: "tool" as const, text: summary(detail), at, tool: detail };
      turns.push(turn);
      roundTurns.push(turn);
      const message: ChatMessage = { role: "tool", tool_call_id: calls[i]?.id ?? r.callId, content };
      history.push(message);
      roundMessages.push(message);
      if (r.outcome !== "ok") {
        // For the operator: which tool failed and why (never the secret, the signature or the answer's body).
        console.error(
          JSON.stringify({
            level: "warn",
            msg: "tool call failed",
            agentId: agent.id,
            [subject.kind === "chat" ? "chatId" : "callId"]: subject.id,
            tool: r.name,
            outcome: r.outcome,
            statusCode: r.statusCode,
            latencyMs: r.latencyMs,
            requestId: r.requestId,
          }),
        );
        const tool = offered.get(r.name);
        failures.add((tool?.type === "function" ? tool.messages.requestFailed : undefined) ?? DEFAULT_FAILED_MESSAGE);
      }
    });
    live.onToolRound?.(roundMessages, roundTurns);
    if (streamed) {
      // Said now, once each, before the model's next words.
      for (const f of failures) {
        if (spoken.includes(f)) continue;
        spoken.push(f);
        await speak(f);
      }
    }
    const handOn = transfer as TransferDestination | null;
    const end = ended as EndCallTool | null;
    if (handOn || end) {
      // The model's own words with the call were said already when streamed; else the tool's message, or ours.
      const goodbye =
        endedSaying || (handOn ? (handOn.message ?? DEFAULT_TRANSFER_MESSAGE) : end?.messages.requestStart || DEFAULT_END_MESSAGE);
      if (streamed) {
        if (!endedSaying) {
          spoken.push(goodbye);
          await speak(goodbye);
        }
        return { text: spoken.join(" "), turns, toolCalls, ended: !handOn, transfer: handOn };
      }
      return { text: [...failures, goodbye].join(" "), turns, toolCalls, ended: !handOn, transfer: handOn };
    }
    if (keys) {
      // The keys are pressed once the model's words with them were said; then the agent listens to the line.
      const text = streamed ? spoken.join(" ") : [...failures, answer.content].filter(Boolean).join(" ");
      return { text, turns, toolCalls, ended: false, transfer: null, dtmf: keys };
    }
  }
}
