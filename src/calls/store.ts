// Every change to a call row: one conditional UPDATE per transition (src/calls/states.ts), so
// of two racing writers (the media session and a provider callback, or a duplicated
// callback) exactly one wins, and only the winner fires the webhook.
import { and, eq, inArray, isNotNull, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import {
  type Agent,
  agents,
  type Call,
  type CallTransfer,
  calls,
  type TranscriptTurn,
  type TransferOutcome,
  usageEvents,
  type Voice,
  voices,
} from "../db/schema";
import { ACTIVE_STATUSES, type CallStatus, type EndedReason, sourcesOf, statusFor } from "./states";

export interface Move {
  /** Set on the move to in-progress: when the callee answered (or the browser joined). */
  startedAt?: Date;
  /** The watchdog's new deadline. */
  deadlineAt?: Date;
  providerCallId?: string;
}

/** Moves a call to `to` if the state machine allows it from where the call is; null when it does not (or another writer won). */
export async function moveCall(db: Db, callId: string, to: CallStatus, extra: Move = {}): Promise<Call | null> {
  const [row] = await db
    .update(calls)
    .set({
      status: to,
      ...(extra.startedAt ? { startedAt: extra.startedAt } : {}),
      ...(extra.deadlineAt ? { deadlineAt: extra.deadlineAt } : {}),
      ...(extra.providerCallId ? { providerCallId: extra.providerCallId } : {}),
    })
    .where(and(eq(calls.id, callId), inArray(calls.status, sourcesOf(to))))
    .returning();
  return row ?? null;
}

/** A recording stored in the bucket: its key and length. */
export interface StoredRecording {
  key: string;
  seconds: number;
}

/**
 * Ends a call with a reason (and its status), saving the transcript, the recording and the cost
 * so far in the same statement: the call's final write. Null when the call had already ended:
 * the first ending wins.
 */
export async function endCall(
  db: Db,
  callId: string,
  reason: EndedReason,
  transcript?: TranscriptTurn[],
  recording?: StoredRecording | null,
): Promise<Call | null> {
  const to = statusFor(reason);
  const cost = db
    .select({ total: sql`coalesce(sum(${usageEvents.costMicro}), 0)` })
    .from(usageEvents)
    .where(eq(usageEvents.callId, callId));
  const [row] = await db
    .update(calls)
    .set({
      status: to,
      endedReason: reason,
      endedAt: sql`now()`,
      costMicro: sql`(${cost})`,
      ...(transcript ? { transcript } : {}),
      ...(recording ? { recordingKey: recording.key, recordingSeconds: Math.round(recording.seconds) } : {}),
    })
    .where(and(eq(calls.id, callId), inArray(calls.status, sourcesOf(to))))
    .returning();
  return row ?? null;
}

/** Re-reads the total cost once late usage rows (the last turn's settles) have landed. */
export async function refreshCost(db: Db, callId: string): Promise<void> {
  await db
    .update(calls)
    .set({
      costMicro: sql`(select coalesce(sum(${usageEvents.costMicro}), 0) from ${usageEvents} where ${usageEvents.callId} = ${callId})`,
    })
    .where(eq(calls.id, callId));
}

/** Where the agent handed a live call on (transfer_call); the ending statement follows. */
export async function recordTransfer(db: Db, callId: string, transfer: CallTransfer): Promise<void> {
  await db
    .update(calls)
    .set({ transfer })
    .where(and(eq(calls.id, callId), inArray(calls.status, ACTIVE_STATUSES)));
}

/**
 * How the carrier's leg of a transfer went, once it ended: written into the call's transfer, only
 * once (a repeated callback changes nothing), whatever the call's status (it ended `transferred`).
 * Returns whether this write recorded it.
 */
export async function recordTransferOutcome(db: Db, callId: string, outcome: TransferOutcome, connectedSeconds: number): Promise<boolean> {
  const rows = await db
    .update(calls)
    .set({ transfer: sql`${calls.transfer} || ${JSON.stringify({ outcome, connectedSeconds })}::jsonb` })
    .where(and(eq(calls.id, callId), isNotNull(calls.transfer), sql`${calls.transfer} -> 'outcome' is null`))
    .returning({ id: calls.id });
  return rows.length > 0;
}

/** Saves the transcript so far; never after the end (the ending statement writes the final one). */
export async function saveTranscript(db: Db, callId: string, transcript: TranscriptTurn[]): Promise<void> {
  await db
    .update(calls)
    .set({ transcript })
    .where(and(eq(calls.id, callId), inArray(calls.status, ACTIVE_STATUSES)));
}

/** A call answered now must have ended by then: its agent's maxDurationSeconds (2 h when the agent is gone) plus the watchdog's grace. */
export async function answeredDeadline(db: Db, call: Pick<Call, "agentId">, graceSeconds: number): Promise<Date> {
  const [agent] = call.agentId ? await db.select({ max: agents.maxDurationSeconds }).from(agents).where(eq(agents.id, call.agentId)) : [];
  return new Date(Date.now() + ((agent?.max ?? 7_200) + graceSeconds) * 1000);
}

/** Any workspace's call by id: for the runtime and the provider's callbacks (the API reads through ./service.ts). */
export async function findCall(db: Db, callId: string): Promise<Call | null> {
  const [row] = await db.select().from(calls).where(eq(calls.id, callId));
  return row ?? null;
}

/** The agent and voice a call runs with, read when its media connects: null when the agent was deleted. */
export async function findCallAgent(
  db: Db,
  agentId: string | null,
  defaultVoiceId: string,
): Promise<{ agent: Agent; voice: Voice | null } | null> {
  if (!agentId) return null;
  const [agent] = await db.select().from(agents).where(eq(agents.id, agentId));
  if (!agent) return null;
  const [voice] = await db
    .select()
    .from(voices)
    .where(eq(voices.id, agent.voiceId ?? defaultVoiceId));
  return { agent, voice: voice ?? null };
}
