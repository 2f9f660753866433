// Request and response shapes of the one read model for every chat: widget chat sessions and
// messaging sessions (Telegram, WhatsApp) together, under /v1/chats (docs/chats.md).
import { z } from "@hono/zod-openapi";
import { CHAT_CHANNELS, CHAT_ENDED_REASONS, CHAT_STATUSES, type ChatChannel, type ChatEndedReason, type ChatStatus } from "../db/schema";
import { pageQuerySchema, pageSchema } from "../lib/pagination";

export { CHAT_CHANNELS, CHAT_ENDED_REASONS, CHAT_STATUSES, type ChatChannel, type ChatEndedReason, type ChatStatus };

const EXAMPLE_ID = "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77";
const EXAMPLE_TIME = "2025-01-15T09:30:00.000Z";

export const listChatsQuerySchema = z.strictObject({
  ...pageQuerySchema.shape,
  channel: z.enum(CHAT_CHANNELS).optional().openapi({ description: "Only chats of this channel type." }),
  channelId: z
    .uuid({ message: "channelId must be a UUID" })
    .optional()
    .openapi({ description: "Only chats of this widget or messaging channel.", example: EXAMPLE_ID }),
  agentId: z
    .uuid({ message: "agentId must be a UUID" })
    .optional()
    .openapi({ description: "Only this agent's chats.", example: EXAMPLE_ID }),
  status: z.enum(CHAT_STATUSES).optional(),
});

export type ListChatsQuery = z.infer<typeof listChatsQuerySchema>;

const usageLine = z.object({ quantity: z.number(), unit: z.string(), credits: z.number() });

export const chatCostSchema = z
  .object({
    credits: z.number().openapi({ description: "What the chat was charged, in credits.", example: 0.000412 }),
    micro: z.number().int().openapi({ description: "The same in micro-credits (1 credit = 1,000,000).", example: 412 }),
    requests: z.number().int().openapi({ description: "Successful metered uses (LLM replies, transcriptions, speech)." }),
    llm: usageLine.extend({ promptTokens: z.number().int(), completionTokens: z.number().int() }),
    stt: usageLine,
    tts: usageLine,
  })
  .openapi("ChatCost", { description: "Summed from the usage log: the uses tagged with this chat." });

const chatFields = {
  id: z.uuid().openapi({ example: EXAMPLE_ID }),
  channel: z.enum(CHAT_CHANNELS),
  channelId: z.uuid().nullable().openapi({ description: "The widget or the messaging channel; null once it was deleted." }),
  agentId: z.uuid().nullable().openapi({ description: "Null once the agent was deleted (agentName stays)." }),
  agentName: z.string(),
  agentVersion: z.number().int().nullable().openapi({
    description: 'The agent\'s version the chat ran with (docs/agents.md, "Versions"); null for chats before versions.',
    example: 2,
  }),
  status: z.enum(CHAT_STATUSES),
  endedReason: z.enum(CHAT_ENDED_REASONS).nullable(),
  endUser: z
    .object({
      id: z.string().openapi({ description: "Widget: the browser's visitor id. Telegram: the chat id. WhatsApp: the user's WhatsApp id." }),
      name: z.string().nullable().openapi({ description: "The name the messaging provider gave; null for widget visitors." }),
      origin: z.string().nullable().openapi({ description: "Widget: the page's origin; null for messaging." }),
    })
    .openapi("ChatEndUser"),
  messageCount: z.number().int().openapi({ description: "Turns of the transcript: both sides, the greeting and tool turns included." }),
  toolCallCount: z.number().int().openapi({ description: "Tool calls the agent made in this chat (docs/tools.md)." }),
  startedAt: z.iso.datetime().openapi({ example: EXAMPLE_TIME }),
  endedAt: z.iso.datetime().nullable(),
  lastActivityAt: z.iso.datetime(),
  cost: chatCostSchema,
};

export const chatSummarySchema = z.object(chatFields).openapi("ChatSummary", { description: "A chat as lists show it: no transcript." });

export const toolTurnSchema = z
  .object({
    callId: z.string().openapi({ description: "The model's id of the call." }),
    requestId: z
      .string()
      .nullable()
      .openapi({ description: "The signed request's id (X-Service-Delivery-Id); null when nothing was sent." }),
    name: z.string(),
    arguments: z.unknown(),
    outcome: z.enum(["ok", "timeout", "http_error", "invalid_json", "invalid_arguments", "url_refused", "network_error", "unknown_tool"]),
    statusCode: z.number().int().nullable(),
    latencyMs: z.number().int(),
    result: z.string().openapi({ description: "What the model was given back (the first 4 KB)." }),
    error: z.string().optional(),
  })
  .openapi("ToolTurn");

const turnSchema = z.object({
  role: z.enum(["agent", "user", "tool"]),
  text: z.string(),
  at: z.iso.datetime(),
  kind: z
    .enum(["text", "voice", "unsupported"])
    .optional()
    .openapi({ description: "Messaging user turns: what was received (a voice note's text is its transcription)." }),
  undelivered: z.string().optional().openapi({ description: "Messaging agent turns the provider refused: why." }),
  tool: toolTurnSchema.optional().openapi({ description: "Tool turns: the call, its outcome and latency (docs/tools.md)." }),
  knowledge: z
    .object({
      passages: z.array(
        z.object({
          chunkId: z.uuid(),
          documentId: z.uuid(),
          documentName: z.string(),
          score: z.number().openapi({ description: "1 − cosine distance to what was searched." }),
        }),
      ),
    })
    .optional()
    .openapi({
      description:
        "Agent turns of an agent that retrieves on every turn: the knowledge passages its reply was given, nearest first (none: nothing found within the agent's `maxDistance`, or the search failed). docs/knowledge.md, Retrieval.",
    }),
});

export const chatSchema = z
  .object({ ...chatFields, transcript: z.object({ fullText: z.string(), turns: z.array(turnSchema) }) })
  .openapi("Chat");

export const chatPageSchema = pageSchema(chatSummarySchema, "ChatPage");

export type ChatSummaryView = z.infer<typeof chatSummarySchema>;
export type ChatView = z.infer<typeof chatSchema>;

/** The longest search the dashboard's chats list takes, in characters: each message of each chat is compared with it. */
export const CHAT_SEARCH_MAX = 200;

/** The dashboard's chat search (a form field, not the API's): trimmed, at most CHAT_SEARCH_MAX characters. */
export const chatSearchSchema = z
  .string()
  .trim()
  .refine((s) => [...s].length <= CHAT_SEARCH_MAX, { message: `The search is at most ${CHAT_SEARCH_MAX} characters.` });
