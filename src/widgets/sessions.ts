// The widget's adapter of the chat runtime (src/chats/runtime.ts): a visitor's first message
// starts a chat (widget.started), later messages must name a chat that is this visitor's on this
// widget and still in progress, and a full chat ends (`session-full`) with 409 session_ended, so
// the widget starts the next one. The visitor closing the widget ends it (widget.completed).

import type { RunnableAgent } from "../agents/versions";
import { visitorChatStatus } from "../chats/queries";
import { appendUserTurn, endChat, startChat } from "../chats/runtime";
import type { Chat, ChatTurn, Widget } from "../db/schema";
import { ApiError } from "../lib/errors";
import type { DomainContext } from "../services";

/** The visitor's first message: a new chat (the greeting first, if any), and widget.started. */
export async function startSession(
  deps: DomainContext,
  input: {
    widget: Widget;
    /** The agent at the version the chat runs: the widget's (its live one when it names none). */
    running: RunnableAgent;
    visitorId: string;
    origin: string;
    greeting: string | null;
    message: ChatTurn;
  },
): Promise<Chat> {
  const greeting: ChatTurn[] = input.greeting ? [{ role: "agent", text: input.greeting, at: input.message.at }] : [];
  const row = await startChat(deps, {
    organizationId: input.widget.organizationId,
    channel: "widget",
    widgetId: input.widget.id,
    channelId: null,
    agentId: input.running.agent.id,
    agentName: input.running.agent.name,
    agentVersion: input.running.version,
    endUserId: input.visitorId,
    endUserName: null,
    origin: input.origin,
    transcript: [...greeting, input.message],
  });
  if (!row) throw new Error("insert returned no row");
  return row;
}

const sessionNotFound = () => new ApiError("not_found", "No such chat session for this widget and visitor.");
const sessionEnded = () =>
  new ApiError("session_ended", "This chat session has ended. Send the message without a sessionId to start a new one.");

/**
 * Appends the visitor's message to their in-progress chat. 404 when the chat is not this
 * visitor's on this widget; 409 session_ended when it is over (a full one is ended here).
 */
export async function appendVisitorMessage(
  deps: DomainContext,
  widget: Widget,
  visitorId: string,
  sessionId: string,
  message: ChatTurn,
): Promise<Chat> {
  const visitor = { widgetId: widget.id, visitorId };
  const row = await appendUserTurn(deps, sessionId, message, visitor);
  if (row) return row;
  const existing = await visitorChatStatus(deps.db, visitor, sessionId);
  if (!existing) throw sessionNotFound();
  if (existing.status === "in-progress") await endChat(deps, sessionId, "session-full");
  throw sessionEnded();
}

/** The visitor closed the widget: 204 whether this ended it or it was already over; 404 when it is not theirs. */
export async function endVisitorSession(deps: DomainContext, widget: Widget, visitorId: string, sessionId: string): Promise<void> {
  if (!(await visitorChatStatus(deps.db, { widgetId: widget.id, visitorId }, sessionId))) throw sessionNotFound();
  await endChat(deps, sessionId, "visitor-ended");
}
