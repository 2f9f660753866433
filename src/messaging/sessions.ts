// Messaging's adapter of the chat runtime (src/chats/runtime.ts): one open conversation per
// (channel, end user) at a time, started by the end user's first message (`<type>.started`); a
// full conversation ends (`session-full`) and the message that found it full starts the next one.
// The end command, the agent, the idle sweep and the channel's removal end it (`<type>.completed`).

import type { RunnableAgent } from "../agents/versions";
import { selectOpenConversation } from "../chats/queries";
import { appendUserTurn, endChat, startChat } from "../chats/runtime";
import type { Chat, ChatTurn, MessagingChannel } from "../db/schema";
import type { DomainContext } from "../services";

/**
 * The end user's open conversation on this channel, or a new one with `<type>.started`. Two
 * first messages racing meet at the unique index of open conversations: the loser reads the
 * winner's row.
 */
export async function openSession(
  deps: DomainContext,
  channel: MessagingChannel,
  running: RunnableAgent,
  endUser: { id: string; name?: string },
): Promise<Chat> {
  const existing = await selectOpenConversation(deps.db, channel.id, endUser.id);
  if (existing) return existing;
  const row = await startChat(deps, {
    organizationId: channel.organizationId,
    channel: channel.type,
    widgetId: null,
    channelId: channel.id,
    agentId: running.agent.id,
    agentName: running.agent.name,
    agentVersion: running.version,
    endUserId: endUser.id,
    endUserName: endUser.name ?? null,
    origin: null,
  });
  if (row) return row;
  const winner = await selectOpenConversation(deps.db, channel.id, endUser.id);
  if (!winner) throw new Error("an open conversation conflicted and then vanished");
  return winner;
}

/**
 * The end user's message, in their open conversation `session`; a full one ends (`session-full`)
 * and the message starts the next conversation. Returns the conversation that holds it.
 */
export async function appendEndUserTurn(
  deps: DomainContext,
  to: {
    session: Chat;
    channel: MessagingChannel;
    /** What the channel runs now: a conversation started here runs it. */
    running: RunnableAgent;
    endUser: { id: string; name?: string };
  },
  turn: ChatTurn,
): Promise<Chat> {
  const { channel, running, endUser } = to;
  let session = to.session;
  for (let attempt = 0; attempt < 3; attempt++) {
    const appended = await appendUserTurn(deps, session.id, turn);
    if (appended) return appended;
    // Full, or ended meanwhile: that conversation ends, this message starts the next one.
    await endChat(deps, session.id, "session-full");
    session = await openSession(deps, channel, running, endUser);
  }
  throw new Error("the end user's message found no open conversation to join");
}
