// Widget chat sessions: created by a visitor's first message (widget.started), appended to with
// single statements (concurrent messages never lose a turn), ended once, by whichever comes
// first: the visitor closing the widget, the inactivity sweep, or a full transcript
// (widget.completed with the transcript). Each state change is one conditional UPDATE, so the
// end's webhook fires exactly once.
import type { Db } from "../db/client";
import type { Agent, Widget, WidgetEndedReason, WidgetSession, WidgetTurn } from "../db/schema";
import { ApiError } from "../lib/errors";
import type { DomainContext } from "../services";
import { emit } from "../webhooks/deliver";
import { chatTranscript, type EventData } from "../webhooks/payload";
import {
  appendSessionTurns,
  appendVisitorTurn,
  completeWidgetSession,
  idleWidgetSessionIds,
  insertWidgetSession,
  visitorSessionStatus,
} from "./service";

/** A session holds at most this many turns (visitor and agent); then it ends (`session-full`). */
export const MAX_SESSION_TURNS = 200;
const SWEEP_BATCH = 100;

export function sessionEventData(session: WidgetSession, withTranscript: boolean): EventData {
  return {
    chat: {
      id: session.id,
      status: session.status,
      agentId: session.agentId,
      agentName: session.agentName,
      startedAt: session.startedAt.toISOString(),
      endedAt: session.endedAt?.toISOString() ?? null,
      messageCount: session.messageCount,
      channelId: session.widgetId,
      endUserId: session.visitorId,
      endUserName: null,
    },
    transcript: withTranscript ? chatTranscript(session.transcript) : null,
    metadata: {
      widgetId: session.widgetId,
      visitorId: session.visitorId,
      origin: session.origin,
      ...(session.endedReason ? { endedReason: session.endedReason } : {}),
    },
  };
}

const fire = (deps: DomainContext, session: WidgetSession, event: "widget.started" | "widget.completed") =>
  emit(deps, {
    organizationId: session.organizationId,
    event,
    data: sessionEventData(session, event === "widget.completed"),
    subjectId: session.id,
  });

/** The visitor's first message: a new session (the greeting first, if any), and widget.started. */
export async function startSession(
  deps: DomainContext,
  input: {
    widget: Widget;
    agent: Pick<Agent, "id" | "name">;
    visitorId: string;
    origin: string;
    greeting: string | null;
    message: WidgetTurn;
  },
): Promise<WidgetSession> {
  const transcript: WidgetTurn[] = [
    ...(input.greeting ? [{ role: "agent" as const, text: input.greeting, at: input.message.at }] : []),
    input.message,
  ];
  const row = await insertWidgetSession(deps.db, {
    organizationId: input.widget.organizationId,
    widgetId: input.widget.id,
    agentId: input.agent.id,
    agentName: input.agent.name,
    visitorId: input.visitorId,
    origin: input.origin,
    status: "in-progress",
    transcript,
    messageCount: transcript.length,
  });
  if (!row) throw new Error("insert returned no row");
  await fire(deps, row, "widget.started");
  return row;
}

const sessionNotFound = () => new ApiError("not_found", "No such chat session for this widget and visitor.");
const sessionEnded = () =>
  new ApiError("session_ended", "This chat session has ended. Send the message without a sessionId to start a new one.");

/**
 * Appends the visitor's message to their in-progress session. 404 when the session is not this
 * visitor's on this widget; 409 session_ended when it is over (a full one is ended here).
 */
export async function appendVisitorMessage(
  deps: DomainContext,
  widget: Widget,
  visitorId: string,
  sessionId: string,
  message: WidgetTurn,
): Promise<WidgetSession> {
  const row = await appendVisitorTurn(deps.db, widget.id, visitorId, sessionId, message, MAX_SESSION_TURNS);
  if (row) return row;
  const existing = await visitorSessionStatus(deps.db, widget.id, visitorId, sessionId);
  if (!existing) throw sessionNotFound();
  if (existing.status === "in-progress") await endSession(deps, sessionId, "session-full");
  throw sessionEnded();
}

/**
 * The agent's reply, after the turn's tool turns and what was said while they ran, in one
 * statement; nothing when the session ended meanwhile (the visitor still gets the reply).
 */
export async function appendAgentReply(db: Db, sessionId: string, reply: WidgetTurn, before: readonly WidgetTurn[] = []): Promise<void> {
  await appendSessionTurns(db, sessionId, [...before, reply]);
}

/** Ends an in-progress session; the winner fires widget.completed with the transcript. Null when it was already over. */
export async function endSession(deps: DomainContext, sessionId: string, reason: WidgetEndedReason): Promise<WidgetSession | null> {
  const row = await completeWidgetSession(deps.db, sessionId, reason);
  if (!row) return null;
  await fire(deps, row, "widget.completed");
  return row;
}

/** The visitor closed the widget: 204 whether this ended it or it was already over; 404 when it is not theirs. */
export async function endVisitorSession(deps: DomainContext, widget: Widget, visitorId: string, sessionId: string): Promise<void> {
  const existing = await visitorSessionStatus(deps.db, widget.id, visitorId, sessionId);
  if (!existing) throw sessionNotFound();
  await endSession(deps, sessionId, "visitor-ended");
}

/**
 * The cron trigger's sweep: sessions without a message for `timeoutSeconds` end (`inactivity`),
 * also those of a widget revoked or deleted since. Returns how many it ended.
 */
export async function sweepIdleWidgetSessions(deps: DomainContext, timeoutSeconds: number): Promise<number> {
  const idle = await idleWidgetSessionIds(deps.db, timeoutSeconds, SWEEP_BATCH);
  let ended = 0;
  for (const { id } of idle) if (await endSession(deps, id, "inactivity")) ended++;
  if (ended > 0) console.log(JSON.stringify({ level: "info", msg: "widget sweep ended idle chat sessions", ended }));
  return ended;
}
