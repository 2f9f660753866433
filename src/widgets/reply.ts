// The agent's reply in a widget chat: the agent's LLM with its system prompt, the greeting as the
// first assistant message, and the session's history; metered to the workspace like every
// Models call (hold, call, settle), logged as POST /widget/v1/chat.
import { renderTemplate } from "../calls/prompt";
import type { Db } from "../db/client";
import type { Agent, WidgetTurn } from "../db/schema";
import type { AppConfig } from "../env";
import { meter } from "../metering/metered";
import { toApiError } from "../providers/http";
import { chatProvider } from "../providers/registry";
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

/** System prompt, then the latest turns (the greeting is the first when the session is short). */
export function chatMessages(agent: Pick<Agent, "systemPrompt">, transcript: readonly WidgetTurn[]): ChatMessage[] {
  const prompt = renderTemplate(agent.systemPrompt, {}).trim();
  const recent = transcript.slice(-HISTORY_TURNS);
  return [
    { role: "system", content: prompt ? `${prompt}\n\n${CHAT_INSTRUCTIONS}` : CHAT_INSTRUCTIONS },
    ...recent.map((t): ChatMessage => ({ role: t.role === "agent" ? "assistant" : "user", content: t.text })),
  ];
}

const utf8 = new TextEncoder();

export async function agentReply(
  db: Db,
  config: AppConfig,
  payer: { organizationId: string },
  agent: Pick<Agent, "llmModel" | "temperature">,
  messages: ChatMessage[],
): Promise<string> {
  const provider = chatProvider(config);
  // A token is at least one byte of UTF-8: the input's bytes bound its tokens (docs/models.md).
  const maxQuantity = utf8.encode(JSON.stringify(messages)).length + 8 * messages.length + REPLY_MAX_TOKENS;
  try {
    const completion = await meter(
      db,
      { organizationId: payer.organizationId, apiKeyId: null, method: "POST", endpoint: "/widget/v1/chat" },
      { modality: "chat", provider: provider.name, model: agent.llmModel, maxQuantity },
      async () => {
        const c = await provider.complete({
          model: agent.llmModel,
          messages,
          temperature: agent.temperature,
          max_tokens: REPLY_MAX_TOKENS,
        });
        return {
          result: c,
          quantity: c.usage.total_tokens,
          promptTokens: c.usage.prompt_tokens,
          completionTokens: c.usage.completion_tokens,
        };
      },
    );
    return (completion.choices[0]?.message.content ?? "").trim();
  } catch (err) {
    throw toApiError(err);
  }
}
