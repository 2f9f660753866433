// Messaging conversations: one per (channel, end user) at a time, started by the end user's first
// message (`<type>.started`), appended to with single statements, ended once by whichever comes
// first: the end command, the idle sweep, a full transcript, or the channel's removal
// (`<type>.completed` with the transcript). Each state change is one conditional statement, so
// each event fires exactly once.
import { and, eq, isNull, lt, sql } from "drizzle-orm";
import type { Agent, MessagingChannel, MessagingEndedReason, MessagingSession, MessagingTurn } from "../db/schema";
import { messagingChannels, messagingSessions } from "../db/schema";
import { emit, type WebhookDeps } from "../webhooks/deliver";
import { chatTranscript, type EventData } from "../webhooks/payload";

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

const fire = (deps: WebhookDeps, session: MessagingSession, phase: "started" | "completed") =>
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
  deps: WebhookDeps,
  channel: MessagingChannel,
  agent: Pick<Agent, "id" | "name">,
  endUser: { id: string; name?: string },
): Promise<MessagingSession> {
  const open = and(
    eq(messagingSessions.channelId, channel.id),
    eq(messagingSessions.endUserId, endUser.id),
    eq(messagingSessions.status, "in-progress"),
  );
  const [existing] = await deps.db.select().from(messagingSessions).where(open).limit(1);
  if (existing) return existing;
  const [row] = await deps.db
    .insert(messagingSessions)
    .values({
      organizationId: channel.organizationId,
      channelId: channel.id,
      channelType: channel.type,
      agentId: agent.id,
      agentName: agent.name,
      endUserId: endUser.id,
      endUserName: endUser.name ?? null,
      status: "in-progress",
    })
    .onConflictDoNothing()
    .returning();
  if (!row) {
    const [winner] = await deps.db.select().from(messagingSessions).where(open).limit(1);
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
  deps: Pick<WebhookDeps, "db">,
  sessionId: string,
  turns: MessagingTurn[],
): Promise<MessagingSession | null> {
  const [row] = await deps.db
    .update(messagingSessions)
    .set({
      transcript: sql`${messagingSessions.transcript} || ${JSON.stringify(turns)}::jsonb`,
      messageCount: sql`${messagingSessions.messageCount} + ${turns.length}`,
      toolCallCount: sql`${messagingSessions.toolCallCount} + ${turns.filter((t) => t.role === "tool").length}`,
      lastActivityAt: sql`now()`,
    })
    .where(
      and(
        eq(messagingSessions.id, sessionId),
        eq(messagingSessions.status, "in-progress"),
        lt(messagingSessions.messageCount, MAX_SESSION_TURNS - turns.length + 1),
      ),
    )
    .returning();
  return row ?? null;
}

/** Ends an open conversation; the winner fires `<type>.completed` with the transcript. Null when it was already over. */
export async function endSession(deps: WebhookDeps, sessionId: string, reason: MessagingEndedReason): Promise<MessagingSession | null> {
  const [row] = await deps.db
    .update(messagingSessions)
    .set({ status: "completed", endedReason: reason, endedAt: sql`now()` })
    .where(and(eq(messagingSessions.id, sessionId), eq(messagingSessions.status, "in-progress")))
    .returning();
  if (!row) return null;
  await fire(deps, row, "completed");
  return row;
}

/** Every open conversation of a channel ends (its removal). */
export async function endChannelSessions(deps: WebhookDeps, channelId: string, reason: MessagingEndedReason): Promise<number> {
  const open = await deps.db
    .select({ id: messagingSessions.id })
    .from(messagingSessions)
    .where(and(eq(messagingSessions.channelId, channelId), eq(messagingSessions.status, "in-progress")));
  let ended = 0;
  for (const { id } of open) if (await endSession(deps, id, reason)) ended++;
  return ended;
}

/**
 * The cron trigger's sweep: conversations without a message for their channel's idle timeout end
 * (`inactivity`), and open conversations whose channel is gone (removed with its agent, which the
 * database cascades) end as `channel-removed`. Returns how many it ended.
 */
export async function sweepIdleMessagingSessions(deps: WebhookDeps): Promise<number> {
  const idle = await deps.db
    .select({ id: messagingSessions.id })
    .from(messagingSessions)
    .innerJoin(messagingChannels, eq(messagingChannels.id, messagingSessions.channelId))
    .where(
      and(
        eq(messagingSessions.status, "in-progress"),
        lt(messagingSessions.lastActivityAt, sql`now() - make_interval(secs => ${messagingChannels.idleTimeoutSeconds})`),
      ),
    )
    .limit(SWEEP_BATCH);
  const orphaned = await deps.db
    .select({ id: messagingSessions.id })
    .from(messagingSessions)
    .where(and(eq(messagingSessions.status, "in-progress"), isNull(messagingSessions.channelId)))
    .limit(SWEEP_BATCH);
  let ended = 0;
  for (const { id } of idle) if (await endSession(deps, id, "inactivity")) ended++;
  for (const { id } of orphaned) if (await endSession(deps, id, "channel-removed")) ended++;
  if (ended > 0) console.log(JSON.stringify({ level: "info", msg: "messaging sweep ended idle conversations", ended }));
  return ended;
}
