// The simulated caller's and the judge's model calls: one whole completion each, metered to the
// workspace like every model call (hold, call, settle), tagged with the run (src/metering/metered.ts).
import type { Db } from "../db/client";
import { maxTokensOf } from "../metering/agent-reply";
import { meter, type Payer } from "../metering/metered";
import type { Providers } from "../providers/registry";
import type { ChatMessage } from "../providers/types";

export interface LlmDeps {
  db: Db;
  providers: Pick<Providers, "chat">;
  waitUntil(work: Promise<unknown>): void;
}

/** The model's text answer to `messages` (temperature 0: a test should say the same thing twice). */
export async function completeText(
  deps: LlmDeps,
  payer: Payer,
  model: string,
  messages: ChatMessage[],
  maxTokens: number,
  responseFormat?: Record<string, unknown>,
): Promise<string> {
  const provider = deps.providers.chat();
  const completion = await meter(
    deps.db,
    payer,
    { modality: "chat", provider: provider.name, model, maxQuantity: maxTokensOf(messages, maxTokens) },
    async (signal) => {
      const c = await provider.complete(
        { model, messages, temperature: 0, max_tokens: maxTokens, ...(responseFormat ? { response_format: responseFormat } : {}) },
        signal,
      );
      return {
        result: c,
        quantity: c.usage.total_tokens,
        promptTokens: c.usage.prompt_tokens,
        completionTokens: c.usage.completion_tokens,
      };
    },
    deps.waitUntil,
  );
  return (completion.choices[0]?.message.content ?? "").trim();
}
