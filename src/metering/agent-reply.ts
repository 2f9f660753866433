// An agent's reply from its LLM, metered: the one path live calls and widget chats take (hold an
// upper bound of the tokens, call the provider, settle the exact usage).
import type { Db } from "../db/client";
import type { Agent } from "../db/schema";
import type { AppConfig } from "../env";
import { chatProvider } from "../providers/registry";
import type { ChatMessage } from "../providers/types";
import { meter, type Payer } from "./metered";

const utf8 = new TextEncoder();

/** A token is at least one byte of UTF-8: the input's bytes bound its tokens (docs/models.md). */
export const maxTokensOf = (messages: ChatMessage[], replyTokens: number) =>
  utf8.encode(JSON.stringify(messages)).length + 8 * messages.length + replyTokens;

export async function agentReply(
  db: Db,
  config: AppConfig,
  payer: Payer,
  agent: Pick<Agent, "llmModel" | "temperature">,
  messages: ChatMessage[],
  replyTokens: number,
  settleInBackground?: (work: Promise<unknown>) => void,
): Promise<string> {
  const provider = chatProvider(config);
  const completion = await meter(
    db,
    payer,
    { modality: "chat", provider: provider.name, model: agent.llmModel, maxQuantity: maxTokensOf(messages, replyTokens) },
    async () => {
      const c = await provider.complete({ model: agent.llmModel, messages, temperature: agent.temperature, max_tokens: replyTokens });
      return {
        result: c,
        quantity: c.usage.total_tokens,
        promptTokens: c.usage.prompt_tokens,
        completionTokens: c.usage.completion_tokens,
      };
    },
    settleInBackground,
  );
  return (completion.choices[0]?.message.content ?? "").trim();
}
