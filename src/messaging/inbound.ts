// Inbound messages: stored once, answered once, in order per conversation. The provider's
// webhook is acknowledged as soon as the messages are stored (Telegram and Meta retry what is
// not acknowledged in time); the answering runs after the response. A redelivered message hits
// the unique (channel, provider id) index and is dropped. Per conversation, one message is
// answered at a time, oldest first: a message is claimed only when no other message of its
// conversation is being answered (one conditional UPDATE), and whoever finishes one claims the
// next, so a message stored while another is answered is never left behind. A claim older than
// CLAIM_TIMEOUT_MS (a worker that died) is taken over by the cron sweep.
import { and, eq, inArray, lt, sql } from "drizzle-orm";
import { rowsOf } from "../db/client";
import { type MessagingChannel, type MessagingInboundRow, messagingInbound } from "../db/schema";
import type { WebhookDeps } from "../webhooks/deliver";
import { channelById } from "./channels";
import { answer } from "./conversation";
import type { ParsedInbound } from "./parsed";

/** A claim this old is a dead worker's: its message may be claimed again. */
export const CLAIM_TIMEOUT_MS = 120_000;
/** Answered messages are kept this long (providers retry for up to a day; Meta up to 7 days), then swept. */
export const INBOUND_RETENTION_DAYS = 7;
/** Messages one run answers at most before it leaves the rest to the next run. */
const RUN_LIMIT = 50;

/**
 * Stores the messages of one webhook delivery (those already stored are dropped) and returns the
 * conversations that got a new message, to answer after the response. A paused channel stores nothing.
 */
export async function receive(deps: Pick<WebhookDeps, "db">, channel: MessagingChannel, messages: ParsedInbound[]): Promise<string[]> {
  if (channel.status !== "active" || messages.length === 0) return [];
  const stored = await deps.db
    .insert(messagingInbound)
    .values(
      messages.map((m) => ({ channelId: channel.id, externalId: m.externalId, endUserId: m.endUserId, seq: m.seq, message: m.message })),
    )
    .onConflictDoNothing()
    .returning({ endUserId: messagingInbound.endUserId });
  return [...new Set(stored.map((r) => r.endUserId))];
}

/** The conversation's oldest waiting message, claimed, unless another of its messages is being answered. */
async function claimNext(deps: Pick<WebhookDeps, "db">, channelId: string, endUserId: string): Promise<MessagingInboundRow | null> {
  const result = await deps.db.execute(sql`
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
        and claimed_at > now() - make_interval(secs => ${CLAIM_TIMEOUT_MS / 1000})
    )
    returning id, channel_id as "channelId", end_user_id as "endUserId", message`);
  const [row] = rowsOf<Pick<MessagingInboundRow, "id" | "channelId" | "endUserId" | "message">>(result);
  return row ? ({ ...row, status: "processing" } as MessagingInboundRow) : null;
}

/** Answers the conversation's waiting messages one at a time, oldest first. Returns how many it answered. */
export async function drainConversation(deps: WebhookDeps, channelId: string, endUserId: string): Promise<number> {
  let answered = 0;
  for (; answered < RUN_LIMIT; answered++) {
    const row = await claimNext(deps, channelId, endUserId);
    if (!row) break;
    try {
      // Read again for each message: a pause, a new agent or a removal takes effect at once.
      const channel = await channelById(deps.db, channelId);
      if (channel) await answer(deps, channel, endUserId, row.message);
    } catch (err) {
      console.error(JSON.stringify({ level: "error", msg: "messaging: answering failed", channelId, error: (err as Error).message }));
    } finally {
      await deps.db.update(messagingInbound).set({ status: "done" }).where(eq(messagingInbound.id, row.id));
    }
  }
  return answered;
}

/**
 * The cron trigger's sweep: conversations with a message waiting since before the last minute
 * (their run died, or was cut off at RUN_LIMIT) are answered; answered messages older than the
 * retention are deleted.
 */
export async function sweepInbound(deps: WebhookDeps): Promise<{ answered: number; deleted: number }> {
  const stuck = await deps.db
    .selectDistinct({ channelId: messagingInbound.channelId, endUserId: messagingInbound.endUserId })
    .from(messagingInbound)
    .where(
      and(inArray(messagingInbound.status, ["pending", "processing"]), lt(messagingInbound.createdAt, sql`now() - interval '1 minute'`)),
    )
    .limit(50);
  let answered = 0;
  for (const c of stuck) answered += await drainConversation(deps, c.channelId, c.endUserId);
  const deleted = await deps.db
    .delete(messagingInbound)
    .where(
      and(
        eq(messagingInbound.status, "done"),
        lt(messagingInbound.createdAt, sql`now() - make_interval(days => ${INBOUND_RETENTION_DAYS})`),
      ),
    )
    .returning({ id: messagingInbound.id });
  return { answered, deleted: deleted.length };
}
