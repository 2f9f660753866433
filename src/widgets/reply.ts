// The agent's reply in a widget chat: the agent's LLM with its system prompt, the greeting as the
// first assistant message, and the session's history; metered to the workspace like every
// Models call (hold, call, settle), logged as POST /widget/v1/chat.
import { renderTemplate } from "../calls/prompt";
import type { Db } from "../db/client";
import type { Agent, WidgetTurn } from "../db/schema";
import type { AppConfig } from "../env";
import { agentReply } from "../metering/agent-reply";
import { toApiError } from "../providers/http";
import type { ChatMessage } from "../providers/types";

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
  transcript: readonly Pick<WidgetTurn, "role" | "text">[],
  instructions = CHAT_INSTRUCTIONS,
  variables: Record<string, string> = {},
): ChatMessage[] {
  const prompt = renderTemplate(agent.systemPrompt, variables).trim();
  const recent = transcript.slice(-HISTORY_TURNS);
  return [
    { role: "system", content: prompt ? `${prompt}\n\n${instructions}` : instructions },
    ...recent.map((t): ChatMessage => ({ role: t.role === "agent" ? "assistant" : "user", content: t.text })),
  ];
}

/** The reply to a widget chat, logged as POST /widget/v1/chat and tagged with the session (its cost); failures in our error body. */
export async function widgetReply(
  db: Db,
  config: AppConfig,
  payer: { organizationId: string; chatId: string },
  agent: Pick<Agent, "llmModel" | "temperature">,
  messages: ChatMessage[],
  settleInBackground?: (work: Promise<unknown>) => void,
): Promise<string> {
  try {
    return await agentReply(
      db,
      config,
      { organizationId: payer.organizationId, chatId: payer.chatId, apiKeyId: null, method: "POST", endpoint: "/widget/v1/chat" },
      agent,
      messages,
      REPLY_MAX_TOKENS,
      settleInBackground,
    );
  } catch (err) {
    throw toApiError(err);
  }
}
