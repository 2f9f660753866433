// The chats' database statements (one table for every channel, src/db/schema/chats.ts). The rules
// live in the runtime (runtime.ts: each state change one conditional statement, so each event
// fires once) and the channels' adapters; this module only says how each step reads or writes.
import { and, eq, isNull, lt, lte, ne, or, type SQL, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { type Chat, type ChatEndedReason, type ChatTurn, chats, messagingChannels } from "../db/schema";

/** Inserts a chat; null when it would be a second open conversation of the same end user on a channel. */
export async function insertChat(db: Db, values: typeof chats.$inferInsert): Promise<Chat | null> {
  const [row] = await db.insert(chats).values(values).onConflictDoNothing().returning();
  return row ?? null;
}

/** The end user's open conversation on a messaging channel. */
export async function selectOpenConversation(db: Db, channelId: string, endUserId: string): Promise<Chat | null> {
  const [row] = await db
    .select()
    .from(chats)
    .where(and(eq(chats.channelId, channelId), eq(chats.endUserId, endUserId), eq(chats.status, "in-progress")))
    .limit(1);
  return row ?? null;
}

/** A widget's visitor: only their own chats on that widget are theirs. */
export interface WidgetVisitor {
  widgetId: string;
  visitorId: string;
}

const visitorsChat = (visitor: WidgetVisitor, chatId: string): SQL =>
  and(eq(chats.id, chatId), eq(chats.widgetId, visitor.widgetId), eq(chats.endUserId, visitor.visitorId)) as SQL;

/** The status of the visitor's chat; null when it is not theirs. */
export async function visitorChatStatus(db: Db, visitor: WidgetVisitor, chatId: string): Promise<{ status: Chat["status"] } | null> {
  const [row] = await db.select({ status: chats.status }).from(chats).where(visitorsChat(visitor, chatId));
  return row ?? null;
}

/**
 * Appends turns to an in-progress chat in one statement (concurrent messages never lose a turn).
 * With `maxTurns`, only while the chat then still holds at most that many; with `visitor`, only to
 * that visitor's chat. Null when it is over, full or not theirs.
 */
export async function appendChatTurns(
  db: Db,
  chatId: string,
  turns: readonly ChatTurn[],
  limits: { maxTurns?: number; visitor?: WidgetVisitor } = {},
): Promise<Chat | null> {
  const conditions = [eq(chats.id, chatId), eq(chats.status, "in-progress")];
  if (limits.visitor) conditions.push(visitorsChat(limits.visitor, chatId));
  if (limits.maxTurns !== undefined) conditions.push(lte(chats.messageCount, limits.maxTurns - turns.length));
  const [row] = await db
    .update(chats)
    .set({
      transcript: sql`${chats.transcript} || ${JSON.stringify(turns)}::jsonb`,
      messageCount: sql`${chats.messageCount} + ${turns.length}`,
      toolCallCount: sql`${chats.toolCallCount} + ${turns.filter((t) => t.role === "tool").length}`,
      lastActivityAt: sql`now()`,
    })
    .where(and(...conditions))
    .returning();
  return row ?? null;
}

/** Completes an in-progress chat in one conditional statement; null when it was already over. */
export async function completeChat(db: Db, chatId: string, reason: ChatEndedReason): Promise<Chat | null> {
  const [row] = await db
    .update(chats)
    .set({ status: "completed", endedReason: reason, endedAt: sql`now()` })
    .where(and(eq(chats.id, chatId), eq(chats.status, "in-progress")))
    .returning();
  return row ?? null;
}

/** The in-progress chats of a messaging channel. */
export async function openChatIdsOfChannel(db: Db, channelId: string): Promise<Array<{ id: string }>> {
  return db
    .select({ id: chats.id })
    .from(chats)
    .where(and(eq(chats.channelId, channelId), eq(chats.status, "in-progress")));
}

/**
 * Up to `limit` in-progress chats to end, with why: without a message for their idle timeout (a
 * widget chat: `widgetTimeoutSeconds`; a conversation: its channel's) they end as `inactivity`; a
 * conversation whose channel is gone (the database set it to null) as `channel-removed`.
 */
export async function chatsToSweep(
  db: Db,
  widgetTimeoutSeconds: number,
  limit: number,
): Promise<Array<{ id: string; reason: "inactivity" | "channel-removed" }>> {
  const since = (seconds: SQL | number) => lt(chats.lastActivityAt, sql`now() - make_interval(secs => ${seconds})`);
  const orphaned = and(ne(chats.channel, "widget"), isNull(chats.channelId));
  return db
    .select({
      id: chats.id,
      reason: sql<"inactivity" | "channel-removed">`case when ${orphaned} then 'channel-removed' else 'inactivity' end`,
    })
    .from(chats)
    .leftJoin(messagingChannels, eq(messagingChannels.id, chats.channelId))
    .where(
      and(
        eq(chats.status, "in-progress"),
        or(and(eq(chats.channel, "widget"), since(widgetTimeoutSeconds)), orphaned, since(sql`${messagingChannels.idleTimeoutSeconds}`)),
      ),
    )
    .limit(limit);
}
