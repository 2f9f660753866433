// Inbound messages: stored once, answered once, in order per conversation. The provider's
// webhook is acknowledged as soon as the messages are stored (Telegram and Meta retry what is
// not acknowledged in time); the answering runs after the response. A redelivered message hits
// the unique (channel, provider id) index and is dropped. Per conversation, one message is
// answered at a time, oldest first: a message is claimed only when no other message of its
// conversation is being answered (one conditional UPDATE), and whoever finishes one claims the
// next, so a message stored while another is answered is never left behind. A claim older than
// CLAIM_TIMEOUT_MS (a worker that died) is taken over by the cron sweep.
import type { MessagingChannel } from "../db/schema";
import type { DomainContext } from "../services";
import { channelById } from "./channels";
import { answer } from "./conversation";
import type { ParsedInbound } from "./parsed";
import { claimNextInbound, deleteAnsweredInbound, insertInbound, markInboundDone, stuckConversations } from "./queries";

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
export async function receive(deps: Pick<DomainContext, "db">, channel: MessagingChannel, messages: ParsedInbound[]): Promise<string[]> {
  if (channel.status !== "active" || messages.length === 0) return [];
  const stored = await insertInbound(deps.db, channel.id, messages);
  return [...new Set(stored)];
}

/** Answers the conversation's waiting messages one at a time, oldest first. Returns how many it answered. */
export async function drainConversation(deps: DomainContext, channelId: string, endUserId: string): Promise<number> {
  let answered = 0;
  for (; answered < RUN_LIMIT; answered++) {
    const row = await claimNextInbound(deps.db, channelId, endUserId, CLAIM_TIMEOUT_MS);
    if (!row) break;
    try {
      // Read again for each message: a pause, a new agent or a removal takes effect at once.
      const channel = await channelById(deps.db, channelId);
      if (channel) await answer(deps, channel, endUserId, row.message);
    } catch (err) {
      console.error(JSON.stringify({ level: "error", msg: "messaging: answering failed", channelId, error: (err as Error).message }));
    } finally {
      await markInboundDone(deps.db, row.id);
    }
  }
  return answered;
}

/**
 * The cron trigger's sweep: conversations with a message waiting since before the last minute
 * (their run died, or was cut off at RUN_LIMIT) are answered; answered messages older than the
 * retention are deleted.
 */
export async function sweepInbound(deps: DomainContext): Promise<{ answered: number; deleted: number }> {
  const stuck = await stuckConversations(deps.db, 50);
  let answered = 0;
  for (const c of stuck) answered += await drainConversation(deps, c.channelId, c.endUserId);
  const deleted = await deleteAnsweredInbound(deps.db, INBOUND_RETENTION_DAYS);
  return { answered, deleted };
}
