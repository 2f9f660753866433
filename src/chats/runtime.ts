// One runtime for every chat, whatever its channel (docs/chats.md): a chat is started by the end
// user's first message (`<channel>.started`), appended to with single statements (concurrent
// messages never lose a turn), and ended once by whichever comes first: the end user, the agent,
// the idle sweep, a full transcript or the channel's removal (`<channel>.completed` with the
// transcript). Each state change is one conditional statement, so each event fires exactly once.
// The channels' adapters (src/widgets/sessions.ts, src/messaging/sessions.ts) say who may write
// to which chat and what a full chat means for the next message.
import { findAgentAt, type RunnableAgent } from "../agents/versions";
import type { Chat, ChatEndedReason, ChatTurn } from "../db/schema";
import { ApiError } from "../lib/errors";
import type { DomainContext } from "../services";
import { emit } from "../webhooks/deliver";
import { chatTranscript, type EventData } from "../webhooks/payload";
import { channelIdOf } from "./mapper";
import { appendChatTurns, chatsToSweep, completeChat, insertChat, openChatIdsOfChannel, type WidgetVisitor } from "./queries";

/**
 * A chat holds at most this many turns (the end user's, the agent's and the tools'). A message is
 * taken while there is room for it and the reply; the reply is always kept. Then the chat ends
 * (`session-full`).
 */
export const MAX_CHAT_TURNS = 400;
const SWEEP_BATCH = 100;

/** A chat's webhook payload: the same `chat` object for every channel, the channel's own metadata. */
export function chatEventData(chat: Chat, withTranscript: boolean): EventData {
  const ended = chat.endedReason ? { endedReason: chat.endedReason } : {};
  return {
    chat: {
      id: chat.id,
      status: chat.status,
      agentId: chat.agentId,
      agentName: chat.agentName,
      agentVersion: chat.agentVersion,
      startedAt: chat.startedAt.toISOString(),
      endedAt: chat.endedAt?.toISOString() ?? null,
      messageCount: chat.messageCount,
      channelId: channelIdOf(chat),
      endUserId: chat.endUserId,
      endUserName: chat.endUserName,
    },
    transcript: withTranscript ? chatTranscript(chat.transcript) : null,
    metadata:
      chat.channel === "widget"
        ? { widgetId: chat.widgetId, visitorId: chat.endUserId, origin: chat.origin, ...ended }
        : { channelId: chat.channelId, channelType: chat.channel, endUserId: chat.endUserId, ...ended },
  };
}

/**
 * Whether a chat runs `current` as it is: its agent gone (nothing else to run), or the same agent at
 * the version it recorded (a chat from before versions: the live one).
 */
export const runsCurrent = (chat: Pick<Chat, "agentId" | "agentVersion">, current: RunnableAgent): boolean =>
  !chat.agentId ||
  (chat.agentId === current.agent.id &&
    (chat.agentVersion === null ? current.version === current.agent.liveVersion : chat.agentVersion === current.version));

/**
 * The agent a chat replies with (docs/agents.md, "Versions"): the chat's own agent at the version it
 * recorded when it started, so a publish during a conversation changes nothing in it (a chat from
 * before versions: the live one). `current` is what its widget or channel runs now, already read:
 * used as it is when it is that, and when the chat's agent is gone. Read again only otherwise.
 */
export async function agentOfChat(
  deps: Pick<DomainContext, "db">,
  chat: Pick<Chat, "organizationId" | "agentId" | "agentVersion">,
  current: RunnableAgent,
): Promise<RunnableAgent> {
  const { agentId, agentVersion } = chat;
  if (!agentId || runsCurrent(chat, current)) return current;
  try {
    return (
      (await findAgentAt({ ctx: { db: deps.db, organizationId: chat.organizationId }, input: { id: agentId, version: agentVersion } })) ??
      current
    );
  } catch (err) {
    // A version the agent does not have (never, while versions are not deleted): the channel's.
    if (err instanceof ApiError && err.code === "not_found") return current;
    throw err;
  }
}

const fire = (deps: DomainContext, chat: Chat, phase: "started" | "completed") =>
  emit(deps, {
    organizationId: chat.organizationId,
    event: `${chat.channel}.${phase}`,
    data: chatEventData(chat, phase === "completed"),
    subjectId: chat.id,
  });

export type NewChat = Pick<
  Chat,
  | "organizationId"
  | "channel"
  | "widgetId"
  | "channelId"
  | "agentId"
  | "agentName"
  | "agentVersion"
  | "endUserId"
  | "endUserName"
  | "origin"
> & { transcript?: ChatTurn[] };

/**
 * A new in-progress chat with `<channel>.started`. Null when the end user already has an open
 * conversation on the messaging channel (two first messages racing: the adapter reads the winner).
 */
export async function startChat(deps: DomainContext, chat: NewChat): Promise<Chat | null> {
  const transcript = chat.transcript ?? [];
  const row = await insertChat(deps.db, { ...chat, status: "in-progress", transcript, messageCount: transcript.length });
  if (row) await fire(deps, row, "started");
  return row;
}

/**
 * The end user's message, in one statement while the chat has room for it and its reply (a widget
 * visitor: only to their own chat on that widget). Null when the chat is over, full or not theirs.
 */
export async function appendUserTurn(
  deps: Pick<DomainContext, "db">,
  chatId: string,
  turn: ChatTurn,
  visitor?: WidgetVisitor,
): Promise<Chat | null> {
  return appendChatTurns(deps.db, chatId, [turn], { maxTurns: MAX_CHAT_TURNS - 1, visitor });
}

/** The agent's reply, after the turn's tool turns, in one statement; null when the chat ended meanwhile. */
export async function appendReply(deps: Pick<DomainContext, "db">, chatId: string, turns: readonly ChatTurn[]): Promise<Chat | null> {
  return appendChatTurns(deps.db, chatId, turns);
}

/** Ends an in-progress chat; the winner fires `<channel>.completed` with the transcript. Null when it was already over. */
export async function endChat(deps: DomainContext, chatId: string, reason: ChatEndedReason): Promise<Chat | null> {
  const row = await completeChat(deps.db, chatId, reason);
  if (row) await fire(deps, row, "completed");
  return row;
}

/** Every open conversation of a messaging channel ends (its removal). */
export async function endChannelChats(deps: DomainContext, channelId: string, reason: ChatEndedReason): Promise<number> {
  let ended = 0;
  for (const { id } of await openChatIdsOfChannel(deps.db, channelId)) if (await endChat(deps, id, reason)) ended++;
  return ended;
}

/**
 * The cron trigger's one sweep of every channel: chats without a message for their idle timeout
 * end (`inactivity`: a widget chat after `widgetTimeoutSeconds`, a conversation after its
 * channel's), and open conversations whose channel is gone end as `channel-removed`. Returns how
 * many it ended.
 */
export async function sweepIdleChats(deps: DomainContext, widgetTimeoutSeconds: number): Promise<number> {
  let ended = 0;
  for (const { id, reason } of await chatsToSweep(deps.db, widgetTimeoutSeconds, SWEEP_BATCH)) if (await endChat(deps, id, reason)) ended++;
  if (ended > 0) console.log(JSON.stringify({ level: "info", msg: "chat sweep ended idle chats", ended }));
  return ended;
}
