// An agent's turn with tools (docs/tools.md): ask the model with the agent's tools; when it
// answers with tool calls, run them (in parallel, each signed and SSRF-checked, src/tools/invoke.ts),
// give it the results, and ask again, at most MAX_TOOL_ROUNDS times; the last round may only
// answer in text. Every round is metered to the payer like any reply. Failures are spoken: the
// tool's `requestFailed` message (or ours) comes before the model's answer. `end_call` ends the
// conversation after this reply. Chats call it now; the call runtime is meant to call it the same
// way with a `call` subject (docs/tools.md, "For the call runtime").
import type { Db } from "../db/client";
import type { Agent, AgentTool, EndCallTool, FunctionTool, ToolTurnDetail } from "../db/schema";
import type { AppConfig } from "../env";
import { agentCompletion } from "../metering/agent-reply";
import type { Payer } from "../metering/metered";
import type { ChatMessage } from "../providers/types";
import { invokeTool, type ToolCallResult, type ToolSubject } from "./invoke";
import { openToolSecretOf } from "./service";

/** Tool rounds per turn: then the model must answer in text. */
export const MAX_TOOL_ROUNDS = 3;
/** Tool calls run per model answer; more are answered with an error. */
export const MAX_PARALLEL_CALLS = 10;
export const DEFAULT_FAILED_MESSAGE = "Sorry, something went wrong on my side while checking that.";
export const DEFAULT_END_MESSAGE = "Thank you. Goodbye!";
const END_CALL_DESCRIPTION = "End the conversation: call it once the user says goodbye or the conversation is complete.";
/** What the model is told when its answer is empty after tools. */
const EMPTY_REPLY = "Sorry, I could not answer that.";

export interface ToolTurnDeps {
  db: Db;
  config: AppConfig;
  waitUntil(work: Promise<unknown>): void;
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
}

type Callable = FunctionTool | EndCallTool;

/** The tools the model is offered on this subject: transfer_call only on calls (not carried out in chats). */
export function offeredTools(tools: readonly AgentTool[], subject: ToolSubject): Map<string, Callable> {
  const out = new Map<string, Callable>();
  for (const t of tools) {
    if (t.type === "function") out.set(t.name, t);
    else if (t.type === "end_call") out.set("end_call", t);
    // transfer_call: the call runtime offers it (docs/tools.md); a chat cannot be transferred.
    else if (subject.kind === "call") continue;
  }
  return out;
}

/** The OpenAI `tools` of the offered tools. */
export function modelTools(offered: Map<string, Callable>): Array<Record<string, unknown>> {
  return [...offered.entries()].map(([name, t]) => ({
    type: "function",
    function:
      t.type === "function"
        ? { name, description: t.description, parameters: t.parameters }
        : { name, description: t.description ?? END_CALL_DESCRIPTION, parameters: { type: "object", properties: {} } },
  }));
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
 * Without tools it is one metered round, as before.
 */
export async function agentTurn(
  deps: ToolTurnDeps,
  payer: Payer,
  agent: Pick<Agent, "id" | "name" | "llmModel" | "temperature" | "tools" | "toolSecret" | "metadata">,
  subject: ToolSubject,
  messages: ChatMessage[],
  replyTokens: number,
  say?: Say,
): Promise<AgentTurn> {
  const offered = offeredTools(agent.tools, subject);
  const complete = (msgs: ChatMessage[], toolChoice: "auto" | "none") =>
    agentCompletion(
      deps.db,
      deps.config,
      payer,
      agent,
      msgs,
      replyTokens,
      offered.size ? { tools: modelTools(offered), toolChoice } : {},
      deps.waitUntil,
    );
  if (offered.size === 0) {
    const answer = await complete(messages, "auto");
    return { text: answer.content, turns: [], toolCalls: 0, ended: false };
  }

  const history = [...messages];
  const turns: TurnRecord[] = [];
  const failures = new Set<string>();
  const started = new Set<string>();
  // Opened while the model thinks, so the signature waits for nothing but the HMAC.
  const secret: Promise<string | null> = [...offered.values()].some((t) => t.type === "function")
    ? openToolSecretOf(deps.config, agent).catch(() => null)
    : Promise.resolve(null);
  let toolCalls = 0;
  let ended: EndCallTool | null = null;
  let endedSaying = "";

  for (let round = 0; ; round++) {
    const answer = await complete(history, round < MAX_TOOL_ROUNDS ? "auto" : "none");
    const calls = round < MAX_TOOL_ROUNDS ? readCalls(answer.toolCalls) : [];
    if (calls.length === 0) {
      const text = [...failures, answer.content].filter(Boolean).join(" ");
      return { text: text || EMPTY_REPLY, turns, toolCalls, ended: false };
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
      await say?.(text).catch(() => undefined);
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
        if (tool.type === "end_call") {
          ended = tool;
          endedSaying = answer.content;
          const content = JSON.stringify({ ended: true });
          return {
            callId: c.id,
            requestId: null,
            name: c.name,
            arguments: parsedArgs(c.arguments),
            outcome: "ok",
            statusCode: null,
            latencyMs: 0,
            result: content,
            content,
          };
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
    results.forEach((r, i) => {
      const { content, ...detail } = r;
      toolCalls++;
      turns.push({ role: "tool", text: summary(detail), at, tool: detail });
      history.push({ role: "tool", tool_call_id: calls[i]?.id ?? r.callId, content });
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
    const end = ended as EndCallTool | null;
    if (end) {
      const goodbye = endedSaying || end.messages.requestStart || DEFAULT_END_MESSAGE;
      return { text: [...failures, goodbye].join(" "), turns, toolCalls, ended: true };
    }
  }
}
