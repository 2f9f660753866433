// Messaging conversations: one per (channel, end user) at a time, started by the end user's first
// message (`<type>.started`), appended to with single statements, ended once by whichever comes
// first: the end command, the idle sweep, a full transcript, or the channel's removal
// (`<type>.completed` with the transcript). Each state change is one conditional statement, so
// each event fires exactly once.
import type { Agent, MessagingChannel, MessagingEndedReason, MessagingSession, MessagingTurn } from "../db/schema";
import type { DomainContext } from "../services";
import { emit } from "../webhooks/deliver";
import { chatTranscript, type EventData } from "../webhooks/payload";
import {
  appendSessionTurns,
  completeSession,
  idleSessionIds,
  insertSession,
  openSessionIdsOfChannel,
  orphanedSessionIds,
  selectOpenSession,
} from "./queries";

/** A conversation holds at most this many turns; then it ends (`session-full`) and the next message starts a new one. */
export const MAX_SESSION_TURNS = 400;
const SWEEP_BATCH = 100;

export function messagingEventData(session: MessagingSession, withTranscript: boolean): EventData {
  return {
    chat: {
      id: session.id,
      status: session.status,
      agentId: session.agentId,
      agentName: session.agentName,
      startedAt: session.startedAt.toISOString(),
      endedAt: session.endedAt?.toISOString() ?? null,
      messageCount: session.messageCount,
      channelId: session.channelId,
      endUserId: session.endUserId,
      endUserName: session.endUserName,
    },
    transcript: withTranscript ? chatTranscript(session.transcript) : null,
    metadata: {
      channelId: session.channelId,
      channelType: session.channelType,
      endUserId: session.endUserId,
      ...(session.endedReason ? { endedReason: session.endedReason } : {}),
    },
  };
}

const fire = (deps: DomainContext, session: MessagingSession, phase: "started" | "completed") =>
  emit(deps, {
    organizationId: session.organizationId,
    event: `${session.channelType}.${phase}`,
    data: messagingEventData(session, phase === "completed"),
    subjectId: session.id,
  });

/**
 * The end user's open conversation on this channel, or a new one with `<type>.started`. Two
 * first messages racing meet at the unique index of open conversations: the loser reads the
 * winner's row.
 */
export async function openSession(
  deps: DomainContext,
  channel: MessagingChannel,
  agent: Pick<Agent, "id" | "name">,
  endUser: { id: string; name?: string },
): Promise<MessagingSession> {
  const existing = await selectOpenSession(deps.db, channel.id, endUser.id);
  if (existing) return existing;
  const row = await insertSession(deps.db, {
    organizationId: channel.organizationId,
    channelId: channel.id,
    channelType: channel.type,
    agentId: agent.id,
    agentName: agent.name,
    endUserId: endUser.id,
    endUserName: endUser.name ?? null,
    status: "in-progress",
  });
  if (!row) {
    const winner = await selectOpenSession(deps.db, channel.id, endUser.id);
    if (!winner) throw new Error("an open conversation conflicted and then vanished");
    return winner;
  }
  await fire(deps, row, "started");
  return row;
}

/**
 * Appends turns to an open conversation in one statement. Returns the row, or null when the
 * conversation is no longer open (ended meanwhile) or would pass MAX_SESSION_TURNS.
 */
export async function appendTurns(
  deps: Pick<DomainContext, "db">,
  sessionId: string,
  turns: MessagingTurn[],
): Promise<MessagingSession | null> {
  return appendSessionTurns(deps.db, sessionId, turns, MAX_SESSION_TURNS);
}

/** Ends an open conversation; the winner fires `<type>.completed` with the transcript. Null when it was already over. */
export async function endSession(deps: DomainContext, sessionId: string, reason: MessagingEndedReason): Promise<MessagingSession | null> {
  const row = await completeSession(deps.db, sessionId, reason);
  if (!row) return null;
  await fire(deps, row, "completed");
  return row;
}

/** Every open conversation of a channel ends (its removal). */
export async function endChannelSessions(deps: DomainContext, channelId: string, reason: MessagingEndedReason): Promise<number> {
  const open = await openSessionIdsOfChannel(deps.db, channelId);
  let ended = 0;
  for (const { id } of open) if (await endSession(deps, id, reason)) ended++;
  return ended;
}

/**
 * The cron trigger's sweep: conversations without a message for their channel's idle timeout end
 * (`inactivity`), and open conversations whose channel is gone (removed with its agent, which the
 * database cascades) end as `channel-removed`. Returns how many it ended.
 */
export async function sweepIdleMessagingSessions(deps: DomainContext): Promise<number> {
  const idle = await idleSessionIds(deps.db, SWEEP_BATCH);
  const orphaned = await orphanedSessionIds(deps.db, SWEEP_BATCH);
  let ended = 0;
  for (const { id } of idle) if (await endSession(deps, id, "inactivity")) ended++;
  for (const { id } of orphaned) if (await endSession(deps, id, "channel-removed")) ended++;
  if (ended > 0) console.log(JSON.stringify({ level: "info", msg: "messaging sweep ended idle conversations", ended }));
  return ended;
}
