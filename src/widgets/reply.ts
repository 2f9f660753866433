// The agent's reply in a widget chat: the agent's LLM with its system prompt, the greeting as the
// first assistant message, and the session's history; metered to the workspace like every
// Models call (hold, call, settle), logged as POST /widget/v1/chat. The agent page's test chat
// (the dashboard) replies the same way.
import { renderTemplate } from "../calls/prompt";
import type { Agent, ChatTurn } from "../db/schema";
import { knowledgeTurnOf } from "../knowledge/retrieve";
import { toApiError } from "../providers/http";
import type { ChatMessage } from "../providers/types";
import type { Op } from "../services";
import { type AgentTurn, agentTurn, type ToolTurnDeps } from "../tools/runtime";

export const CHAT_INSTRUCTIONS =
  "You are chatting with a visitor of a website through its chat widget. Answer in plain text, briefly and helpfully.";
/** Output limit of one reply. */
export const REPLY_MAX_TOKENS = 500;
/** The most recent turns the LLM sees (the transcript keeps them all). */
export const HISTORY_TURNS = 40;

/** The greeting a visitor sees when the panel opens: the widget's, else the agent's first message. */
export const greetingOf = (widget: { greeting: string | null }, agent: Pick<Agent, "firstMessage">): string | null =>
  widget.greeting ?? (agent.firstMessage ? renderTemplate(agent.firstMessage, {}) : null);

/**
 * System prompt (with `variables`), then the latest turns (the greeting is the first when the
 * session is short). Widget chats and messaging conversations differ only in `instructions`.
 */
export function chatMessages(
  agent: Pick<Agent, "systemPrompt">,
  transcript: readonly Pick<ChatTurn, "role" | "text" | "tool">[],
  instructions = CHAT_INSTRUCTIONS,
  variables: Record<string, string> = {},
): ChatMessage[] {
  const prompt = renderTemplate(agent.systemPrompt, variables).trim();
  const recent = transcript.slice(-HISTORY_TURNS);
  const messages: ChatMessage[] = [{ role: "system", content: prompt ? `${prompt}\n\n${instructions}` : instructions }];
  for (let i = 0; i < recent.length; i++) {
    const t = recent[i] as (typeof recent)[number];
    if (t.role !== "tool" || !t.tool) {
      // A tool turn without its detail (never written so) is left out rather than shown as speech.
      if (t.role !== "tool") messages.push({ role: t.role === "agent" ? "assistant" : "user", content: t.text });
      continue;
    }
    // Tool turns in a row are one answer of the model: its tool calls, then their results.
    const group: NonNullable<ChatTurn["tool"]>[] = [];
    while (i < recent.length && recent[i]?.role === "tool" && recent[i]?.tool)
      group.push((recent[i++] as ChatTurn).tool as NonNullable<ChatTurn["tool"]>);
    i--;
    messages.push({
      role: "assistant",
      content: null,
      tool_calls: group.map((d) => ({
        id: d.callId,
        type: "function",
        function: { name: d.name, arguments: typeof d.arguments === "string" ? d.arguments : JSON.stringify(d.arguments ?? {}) },
      })),
    });
    for (const d of group) messages.push({ role: "tool", tool_call_id: d.callId, content: d.result });
  }
  return messages;
}

/** A reply as its chat's agent turn: its text, and the knowledge passages it was given (docs/knowledge.md, "Retrieval"). */
export const replyTurnOf = (turn: Pick<AgentTurn, "text" | "retrieval">, at = new Date().toISOString()): ChatTurn => ({
  role: "agent",
  text: turn.text,
  at,
  ...(turn.retrieval && { knowledge: knowledgeTurnOf(turn.retrieval) }),
});

/**
 * The reply to a widget chat, with the agent's tools (src/tools/runtime.ts), logged as POST
 * /widget/v1/chat and tagged with the session (its cost); failures in our error body.
 */
export async function widgetReply(
  deps: ToolTurnDeps,
  payer: { organizationId: string; chatId: string },
  agent: ReplyingAgent,
  messages: ChatMessage[],
): Promise<AgentTurn> {
  try {
    return await agentTurn(
      deps,
      { organizationId: payer.organizationId, chatId: payer.chatId, apiKeyId: null, method: "POST", endpoint: "/widget/v1/chat" },
      agent,
      { kind: "chat", id: payer.chatId, channel: "widget" },
      messages,
      REPLY_MAX_TOKENS,
    );
  } catch (err) {
    throw toApiError(err);
  }
}

type ReplyingAgent = Pick<Agent, "id" | "name" | "llmModel" | "temperature" | "tools" | "toolSecret" | "metadata" | "knowledge">;

/**
 * The reply in the test chat of an agent's dashboard page: the widget chat's prompt, tools and
 * limits, with the history the page holds (its user and agent turns; nothing is stored, no
 * webhook fires). Metered to the workspace, logged as POST /dashboard/agents/{id}/chat; tools see
 * `chat.channel` `dashboard` and the page's conversation id.
 */
export async function testChatReply({
  ctx,
  input: { agent, conversationId, history, message },
}: Op<
  { agent: ReplyingAgent & Pick<Agent, "systemPrompt">; conversationId: string; history: TestChatTurn[]; message: string },
  "db" | "config" | "waitUntil" | "providers" | "organizationId"
>): Promise<AgentTurn> {
  const at = new Date().toISOString();
  const transcript = [...history, { role: "user" as const, text: message }].map((t) => ({ ...t, at }));
  try {
    return await agentTurn(
      ctx,
      { organizationId: ctx.organizationId, apiKeyId: null, method: "POST", endpoint: "/dashboard/agents/{id}/chat" },
      agent,
      { kind: "chat", id: conversationId, channel: "dashboard" },
      chatMessages(agent, transcript),
      REPLY_MAX_TOKENS,
    );
  } catch (err) {
    throw toApiError(err);
  }
}

/** One turn of the test chat's history, as the page sends it back. */
export interface TestChatTurn {
  role: "user" | "agent";
  text: string;
}
