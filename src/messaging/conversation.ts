// One inbound message of a conversation, answered: the end user's turn (a voice note transcribed
// first, metered; an unsupported message kept as such), the agent's reply from its LLM with its
// prompt, variables and the conversation's history (metered like widget chats), sent through the
// provider, and both turns in the transcript. Replies are text, voice notes included
// (docs/messaging.md says why). Nothing here throws for the end user's sake: every failure has a
// fixed answer, and what the provider refused is kept in the transcript as undelivered.
import { findAgentAt } from "../agents/versions";
import { agentOfChat, appendReply, endChat } from "../chats/runtime";
import type { Agent, Chat, ChatTurn, InboundMessage, MessagingChannel } from "../db/schema";
import { ApiError } from "../lib/errors";
import type { Payer } from "../metering/metered";
import { meteredTranscription } from "../metering/transcribe";
import { toApiError } from "../providers/http";
import type { DomainContext } from "../services";
import { type AgentTurn, agentTurn } from "../tools/runtime";
import { chatMessages, REPLY_MAX_TOKENS, replyTurnOf } from "../widgets/reply";
import { openCredentials, type TelegramCredentials, telegramBot, type WhatsAppCredentials, whatsAppNumber } from "./channels";
import { MessagingApiError } from "./http";
import { appendEndUserTurn, openSession } from "./sessions";
import { OUTSIDE_WINDOW } from "./whatsapp";

/** The texts the platform says itself (docs/messaging.md). */
export const FIXED_REPLIES = {
  unsupported: "Sorry, I can only read text and voice messages. Could you type your question?",
  unheard: "Sorry, I could not make out that voice message. Could you type it?",
  ended: "This conversation has ended. Send a new message any time to start another.",
  outOfCredits: "Sorry, this assistant is unavailable right now. Please try again later.",
  failed: "Sorry, I cannot answer right now. Please try again in a moment.",
} as const;

/** WhatsApp's customer-service window: free text may answer a user only this long after their last message. */
export const WHATSAPP_WINDOW_MS = 24 * 3600 * 1000;

/** Typed by the end user, these end the conversation (`user-ended`). */
export const END_COMMANDS = new Set(["/end", "/stop"]);

/** What a messaging channel adds to the agent's prompt (the bench rebuilds the same prompt for its bare call). */
export const instructionsFor = (type: MessagingChannel["type"]) =>
  `You are chatting with a person on ${type === "telegram" ? "Telegram" : "WhatsApp"}. Answer in plain text (no Markdown), briefly and helpfully.`;

interface Driver {
  send(endUserId: string, text: string): Promise<void>;
  download(mediaId: string): Promise<{ bytes: ArrayBuffer; type: string }>;
}

async function driverOf(deps: DomainContext, channel: MessagingChannel): Promise<Driver> {
  if (channel.type === "telegram") {
    const bot = telegramBot(deps.config, await openCredentials<TelegramCredentials>(deps.config, channel));
    return {
      send: async (chatId, text) => void (await bot.sendMessage(chatId, text)),
      download: async (fileId) => ({ bytes: (await bot.download(fileId)).bytes, type: "" }),
    };
  }
  const number = whatsAppNumber(deps.config, await openCredentials<WhatsAppCredentials>(deps.config, channel));
  return {
    send: async (to, text) => void (await number.sendText(to, text)),
    download: async (mediaId) => {
      const media = await number.download(mediaId);
      return { bytes: media.bytes, type: media.mimeType };
    },
  };
}

const now = () => new Date().toISOString();

/** Our error code for a failure (a provider's failure mapped as the Models API maps it). */
const codeOf = (err: unknown): string => {
  const e = toApiError(err);
  return e instanceof ApiError ? e.code : "internal_error";
};

/** What the provider said when it refused a reply, for the transcript. */
function undeliveredReason(err: unknown): string {
  if (err instanceof MessagingApiError) {
    if (err.provider === "WhatsApp" && err.code === OUTSIDE_WINDOW)
      return "outside WhatsApp's 24-hour customer-service window (only approved templates may be sent)";
    return `${err.provider}: ${err.description}`;
  }
  return "the provider could not be reached";
}

export interface Answered {
  session: Chat;
  /** Null when nothing could be said (outside WhatsApp's window). */
  reply: ChatTurn | null;
}

/**
 * Answers one inbound message of `endUserId` on `channel`. Returns null when the channel is
 * paused or its agent is gone (nothing is answered).
 */
export async function answer(
  deps: DomainContext,
  channel: MessagingChannel,
  endUserId: string,
  message: InboundMessage,
): Promise<Answered | null> {
  if (channel.status !== "active") return null;
  // The channel's agent at its version (the live one when it names none); a conversation replies
  // with the version it started with (agentOfChat below).
  const current = await findAgentAt({
    ctx: { db: deps.db, organizationId: channel.organizationId },
    input: { id: channel.agentId, version: channel.agentVersion },
  }).catch((err: unknown) => {
    if (err instanceof ApiError && err.code === "not_found") return null;
    throw err;
  });
  if (!current) return null;
  const endUser = { id: endUserId, name: message.userName };
  let session = await openSession(deps, channel, current, endUser);
  const driver = await driverOf(deps, channel);
  const payer: Payer = {
    organizationId: channel.organizationId,
    apiKeyId: null,
    method: "CHAT",
    endpoint: `/v1/chats/${session.id}`,
    chatId: session.id,
  };

  // The end user's turn.
  let userTurn: ChatTurn;
  let fixed: string | null = null;
  if (message.kind === "text") {
    userTurn = { role: "user", text: message.text ?? "", at: message.sentAt, kind: "text" };
  } else if (message.kind === "voice") {
    const heard = await transcribe(deps, driver, payer, current.agent, message).catch((err: unknown) => {
      console.error(
        JSON.stringify({ level: "warn", msg: "messaging voice note not transcribed", channelId: channel.id, code: codeOf(err) }),
      );
      return { text: "", problem: codeOf(err) === "insufficient_credits" ? FIXED_REPLIES.outOfCredits : FIXED_REPLIES.unheard };
    });
    userTurn = { role: "user", text: heard.text || "[voice message]", at: message.sentAt, kind: "voice" };
    if (!heard.text) fixed = heard.problem ?? FIXED_REPLIES.unheard;
  } else {
    userTurn = { role: "user", text: `[${message.type ?? "message"}]`, at: message.sentAt, kind: "unsupported" };
    fixed = FIXED_REPLIES.unsupported;
  }

  session = await appendEndUserTurn(deps, { session, channel, running: current, endUser }, userTurn);
  payer.endpoint = `/v1/chats/${session.id}`;
  payer.chatId = session.id;

  // A WhatsApp message older than the window (Meta redelivering after an outage) is kept and not
  // answered: only approved templates may go then, and we send none on the workspace's behalf.
  if (channel.type === "whatsapp" && Date.now() - Date.parse(message.sentAt) > WHATSAPP_WINDOW_MS) {
    console.error(
      JSON.stringify({ level: "warn", msg: "messaging: not answered, outside WhatsApp's 24-hour window", channelId: channel.id }),
    );
    return { session, reply: null };
  }

  const ending = message.kind === "text" && END_COMMANDS.has((message.text ?? "").trim().toLowerCase());
  let text: string;
  let before: ChatTurn[] = [];
  let agentEnded = false;
  let retrieval: AgentTurn["retrieval"];
  if (ending) text = FIXED_REPLIES.ended;
  else if (fixed) text = fixed;
  else {
    const { agent } = await agentOfChat(deps, session, current);
    const turn = await reply(deps, payer, channel, agent, session, (said) => driver.send(endUserId, said));
    text = turn.text;
    before = turn.turns;
    agentEnded = turn.ended;
    retrieval = turn.retrieval;
  }

  const replyTurn: ChatTurn = replyTurnOf({ text, retrieval }, now());
  try {
    await driver.send(endUserId, text);
  } catch (err) {
    replyTurn.undelivered = undeliveredReason(err);
    console.error(
      JSON.stringify({ level: "warn", msg: "messaging reply not delivered", channelId: channel.id, reason: replyTurn.undelivered }),
    );
  }
  session = (await appendReply(deps, session.id, [...before, replyTurn])) ?? session;
  if (ending) session = (await endChat(deps, session.id, "user-ended")) ?? session;
  else if (agentEnded) session = (await endChat(deps, session.id, "agent-ended")) ?? session;
  return { session, reply: replyTurn };
}

async function transcribe(
  deps: DomainContext,
  driver: Driver,
  payer: Payer,
  agent: Agent,
  message: InboundMessage,
): Promise<{ text: string; problem?: string }> {
  if (!message.mediaId) return { text: "" };
  const file = await driver.download(message.mediaId);
  const result = await meteredTranscription(
    deps.db,
    payer,
    deps.providers.stt(),
    {
      bytes: new Uint8Array(file.bytes),
      type: file.type || message.mimeType || "",
      filename: "voice-note",
      model: deps.config.DEFAULT_STT_MODEL,
      language: agent.language.split("-")[0],
    },
    deps.waitUntil,
  );
  return { text: result.text.trim() };
}

/**
 * The agent's reply with its tools (src/tools/runtime.ts): a tool's `requestStart` message is
 * sent at once, as its own message, while the tool runs; the turn's tool turns come back to be
 * appended before the reply.
 */
async function reply(
  deps: DomainContext,
  payer: Payer,
  channel: MessagingChannel,
  agent: Agent,
  session: Chat,
  say: (text: string) => Promise<void>,
): Promise<{ text: string; turns: ChatTurn[]; ended: boolean; retrieval?: AgentTurn["retrieval"] }> {
  const variables = { channel: channel.type, user_name: session.endUserName ?? "" };
  const messages = chatMessages(agent, session.transcript, instructionsFor(channel.type), variables);
  try {
    const turn = await agentTurn(
      deps,
      payer,
      agent,
      { kind: "chat", id: session.id, channel: channel.type },
      messages,
      REPLY_MAX_TOKENS,
      say,
    );
    return { text: turn.text || FIXED_REPLIES.failed, turns: turn.turns, ended: turn.ended, retrieval: turn.retrieval };
  } catch (err) {
    console.error(JSON.stringify({ level: "warn", msg: "messaging reply failed", channelId: channel.id, code: codeOf(err) }));
    return { text: codeOf(err) === "insufficient_credits" ? FIXED_REPLIES.outOfCredits : FIXED_REPLIES.failed, turns: [], ended: false };
  }
}
