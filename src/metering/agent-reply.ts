// An agent's reply from its LLM, metered: the one path live calls, widget chats and messaging take
// (hold an upper bound of the tokens, call the provider, settle the exact usage); with tools, one
// such round per model answer (src/tools/runtime.ts).
import type { Db } from "../db/client";
import type { Agent } from "../db/schema";
import type { Providers } from "../providers/registry";
import type { ChatCompletion, ChatMessage, ToolCallOut } from "../providers/types";
import { meter, meterStream, type Payer } from "./metered";

const utf8 = new TextEncoder();

/** A token is at least one byte of UTF-8: the input's bytes bound its tokens (docs/models.md). */
export const maxTokensOf = (messages: ChatMessage[], replyTokens: number) =>
  utf8.encode(JSON.stringify(messages)).length + 8 * messages.length + replyTokens;

/**
 * Prompt tokens of a stream cancelled before its usage chunk came: OpenAI's rule of thumb of about
 * four bytes of English per token (docs/calls.md). The hold (bytes) bounds it.
 */
export const promptTokensEstimate = (messages: ChatMessage[]) => Math.ceil(utf8.encode(JSON.stringify(messages)).length / 4);

export interface StreamedReply {
  text: string;
  finishReason: string | null;
  /** The provider's usage when the stream finished (null when it was cancelled first). */
  usage: ChatCompletion["usage"] | null;
  /** The tool calls the model made (none when it was offered none, or answered in words). */
  toolCalls: ToolCallOut[];
}

/** The tools a round offers the model, in OpenAI's shape; their definitions count in what is held. */
export interface ToolOffer {
  tools?: Array<Record<string, unknown>>;
  toolChoice?: "auto" | "none";
}

const toolBytesOf = (offer: ToolOffer) => (offer.tools?.length ? utf8.encode(JSON.stringify(offer.tools)).length : 0);
const toolFields = (offer: ToolOffer) => (offer.tools?.length ? { tools: offer.tools, tool_choice: offer.toolChoice ?? "auto" } : {});

/**
 * The agent's reply streamed: `onText` gets each piece as the LLM produces it. Metered like
 * `agentCompletion`, except that a reply cancelled by `signal` (or broken off) is charged what was
 * produced: the prompt (estimated when the usage never came) and one token per piece received.
 */
export async function agentReplyStream(
  db: Db,
  providers: Pick<Providers, "chat">,
  payer: Payer,
  agent: Pick<Agent, "llmModel" | "temperature">,
  messages: ChatMessage[],
  replyTokens: number,
  onText: (text: string) => void,
  signal?: AbortSignal,
  settleInBackground?: (work: Promise<unknown>) => void,
  tools: ToolOffer = {},
): Promise<StreamedReply> {
  const provider = providers.chat();
  return meterStream(
    db,
    payer,
    {
      modality: "chat",
      provider: provider.name,
      model: agent.llmModel,
      maxQuantity: maxTokensOf(messages, replyTokens) + toolBytesOf(tools),
    },
    async (produced) => {
      const prompt = promptTokensEstimate(messages);
      let pieces = 0;
      let text = "";
      for await (const event of provider.stream(
        { model: agent.llmModel, messages, temperature: agent.temperature, max_tokens: replyTokens, ...toolFields(tools) },
        signal,
      )) {
        if (event.type === "delta") {
          pieces++;
          text += event.text;
          Object.assign(produced, { quantity: prompt + pieces, promptTokens: prompt, completionTokens: pieces });
          onText(event.text);
          continue;
        }
        if (event.usage)
          Object.assign(produced, {
            quantity: event.usage.total_tokens,
            promptTokens: event.usage.prompt_tokens,
            completionTokens: event.usage.completion_tokens,
          });
        return { text, finishReason: event.finishReason, usage: event.usage, toolCalls: event.toolCalls };
      }
      return { text, finishReason: null, usage: null, toolCalls: [] };
    },
    settleInBackground,
  );
}

/** The model's answer: its text (trimmed) and the tool calls it made, in the OpenAI shape. */
export interface AgentAnswer {
  content: string;
  toolCalls: Array<Record<string, unknown>>;
}

/**
 * One metered round with the agent's LLM, with the tools it may call (their definitions count
 * in what is held). The tool runtime (src/tools/runtime.ts) calls it once per round.
 */
export async function agentCompletion(
  db: Db,
  providers: Pick<Providers, "chat">,
  payer: Payer,
  agent: Pick<Agent, "llmModel" | "temperature">,
  messages: ChatMessage[],
  replyTokens: number,
  tools: ToolOffer,
  settleInBackground?: (work: Promise<unknown>) => void,
): Promise<AgentAnswer> {
  const provider = providers.chat();
  const completion = await meter(
    db,
    payer,
    {
      modality: "chat",
      provider: provider.name,
      model: agent.llmModel,
      maxQuantity: maxTokensOf(messages, replyTokens) + toolBytesOf(tools),
    },
    async (signal) => {
      const c = await provider.complete(
        {
          model: agent.llmModel,
          messages,
          temperature: agent.temperature,
          max_tokens: replyTokens,
          ...toolFields(tools),
        },
        signal,
      );
      return {
        result: c,
        quantity: c.usage.total_tokens,
        promptTokens: c.usage.prompt_tokens,
        completionTokens: c.usage.completion_tokens,
      };
    },
    settleInBackground,
  );
  const message = completion.choices[0]?.message;
  return { content: (message?.content ?? "").trim(), toolCalls: message?.tool_calls ?? [] };
}
