// Messaging's database statements: channels (scoped by the organization, src/db/tenancy.ts) and
// inbound messages (inbound.ts: stored once, claimed one at a time per conversation). The
// conversations are chats (src/chats/queries.ts). The rules live in those modules; this one only
// says how each step reads or writes its rows.
import { and, desc, eq, inArray, lt, type SQL, sql } from "drizzle-orm";
import { type Db, rowsOf } from "../db/client";
import type { PageQuery } from "../db/pagination";
import { type ChannelType, type MessagingChannel, type MessagingInboundRow, messagingChannels, messagingInbound } from "../db/schema";
import { ownedBy, ownedRow } from "../db/tenancy";
import type { ParsedInbound } from "./parsed";
import type { UpdateChannelInput } from "./schema";

/** The list's filters (GET /v1/channels). */
export interface ChannelFilters {
  type?: ChannelType;
  agentId?: string;
  status?: "active" | "paused";
}

// Channels

/** Inserts a channel row; a bot or number connected already fails on the unique (type, external id) index. */
export async function insertChannel(db: Db, values: typeof messagingChannels.$inferInsert): Promise<MessagingChannel | undefined> {
  const [row] = await db.insert(messagingChannels).values(values).returning();
  return row;
}

/** The organization's channel row by id (`id` a UUID), or null. */
export async function selectChannel(db: Db, organizationId: string, id: string): Promise<MessagingChannel | null> {
  const [row] = await db
    .select()
    .from(messagingChannels)
    .where(ownedRow(messagingChannels, organizationId, id))
    .limit(1);
  return row ?? null;
}

/** A channel row by id (`id` a UUID) whatever its organization, or null. */
export async function selectChannelById(db: Db, id: string): Promise<MessagingChannel | null> {
  const [row] = await db.select().from(messagingChannels).where(eq(messagingChannels.id, id)).limit(1);
  return row ?? null;
}

/** `page.limit + 1` of the organization's channels matching the filters, newest first (for pageOf). */
export async function selectChannels(
  db: Db,
  organizationId: string,
  page: PageQuery,
  filters: ChannelFilters,
): Promise<MessagingChannel[]> {
  const conditions: SQL[] = [ownedBy(messagingChannels, organizationId), ...page.where(messagingChannels)];
  if (filters.type) conditions.push(eq(messagingChannels.type, filters.type));
  if (filters.agentId) conditions.push(eq(messagingChannels.agentId, filters.agentId));
  if (filters.status) conditions.push(eq(messagingChannels.status, filters.status));
  return db
    .select()
    .from(messagingChannels)
    .where(and(...conditions))
    .orderBy(desc(messagingChannels.id))
    .limit(page.limit + 1);
}

/** Sets the given fields of the organization's channel (`id` a UUID); null when there is no such channel. */
export async function updateChannelRow(
  db: Db,
  organizationId: string,
  id: string,
  patch: UpdateChannelInput,
): Promise<MessagingChannel | null> {
  const [row] = await db
    .update(messagingChannels)
    .set(patch)
    .where(ownedRow(messagingChannels, organizationId, id))
    .returning();
  return row ?? null;
}

/** Deletes the organization's channel row (its conversations keep their transcripts). */
export async function deleteChannelRow(db: Db, organizationId: string, id: string): Promise<void> {
  await db.delete(messagingChannels).where(ownedRow(messagingChannels, organizationId, id));
}

// Conversations

// Inbound messages

/** Stores the messages (those already stored are dropped); returns the end user of each one stored. */
export async function insertInbound(db: Db, channelId: string, messages: ParsedInbound[]): Promise<string[]> {
  const stored = await db
    .insert(messagingInbound)
    .values(messages.map((m) => ({ channelId, externalId: m.externalId, endUserId: m.endUserId, seq: m.seq, message: m.message })))
    .onConflictDoNothing()
    .returning({ endUserId: messagingInbound.endUserId });
  return stored.map((r) => r.endUserId);
}

/**
 * The conversation's oldest waiting message, claimed, unless another of its messages is being
 * answered (a claim older than `claimTimeoutMs` no longer counts).
 */
export async function claimNextInbound(
  db: Db,
  channelId: string,
  endUserId: string,
  claimTimeoutMs: number,
): Promise<MessagingInboundRow | null> {
  const result = await db.execute(sql`
    update ${messagingInbound} set status = 'processing', claimed_at = now()
    where id = (
      select id from ${messagingInbound}
      where channel_id = ${channelId}::uuid and end_user_id = ${endUserId} and status = 'pending'
      order by seq, id limit 1
    )
    and status = 'pending'
    and not exists (
      select 1 from ${messagingInbound}
      where channel_id = ${channelId}::uuid and end_user_id = ${endUserId} and status = 'processing'
        and claimed_at > now() - make_interval(secs => ${claimTimeoutMs / 1000})
    )
    returning id, channel_id as "channelId", end_user_id as "endUserId", message`);
  const [row] = rowsOf<Pick<MessagingInboundRow, "id" | "channelId" | "endUserId" | "message">>(result);
  return row ? ({ ...row, status: "processing" } as MessagingInboundRow) : null;
}

/** Marks an inbound message answered (or given up on). */
export async function markInboundDone(db: Db, id: string): Promise<void> {
  await db.update(messagingInbound).set({ status: "done" }).where(eq(messagingInbound.id, id));
}

/** Up to `limit` conversations with a message waiting (or being answered) since before the last minute. */
export async function stuckConversations(db: Db, limit: number): Promise<Array<{ channelId: string; endUserId: string }>> {
  return db
    .selectDistinct({ channelId: messagingInbound.channelId, endUserId: messagingInbound.endUserId })
    .from(messagingInbound)
    .where(
      and(inArray(messagingInbound.status, ["pending", "processing"]), lt(messagingInbound.createdAt, sql`now() - interval '1 minute'`)),
    )
    .limit(limit);
}

/** Deletes the answered messages older than `retentionDays`; returns how many. */
export async function deleteAnsweredInbound(db: Db, retentionDays: number): Promise<number> {
  const deleted = await db
    .delete(messagingInbound)
    .where(and(eq(messagingInbound.status, "done"), lt(messagingInbound.createdAt, sql`now() - make_interval(days => ${retentionDays})`)))
    .returning({ id: messagingInbound.id });
  return deleted.length;
}
