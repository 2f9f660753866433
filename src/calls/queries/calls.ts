// Every statement the call runtime makes about calls (creating them, their state changes, the
// unscoped look-ups of the carrier's callbacks; the phone numbers' are in ./phone-numbers.ts), so
// the rest of src/calls never speaks SQL. A call's state changes are one conditional UPDATE per transition
// (src/calls/states.ts): of two racing writers (the media session and a provider callback, or a
// duplicated callback) exactly one wins, and only the winner fires the webhook. The API's reads of
// a workspace's calls are in ../service.ts.
import { and, eq, getTableColumns, gt, inArray, isNotNull, isNull, lt, or, sql } from "drizzle-orm";
import { agentWithConfig } from "../../agents/config";
import { selectAgentAt } from "../../agents/queries/versions";
import type { Db } from "../../db/client";
import {
  type Agent,
  type Call,
  type CallAnalysis,
  type CallReport,
  type CallTransfer,
  calls,
  organizations,
  type TranscriptTurn,
  type TransferOutcome,
  usageEvents,
  type Voice,
  voices,
} from "../../db/schema";
import { ownedBy } from "../../db/tenancy";
import { ACTIVE_STATUSES, type CallStatus, type EndedReason, sourcesOf, statusFor } from "../states";
import { addEndedCall, addToDailyStats } from "./stats";

/** A new call row, as inserted. */
export type NewCall = typeof calls.$inferInsert;

// --- Creating calls -------------------------------------------------------------------------------

/** Whether the workspace has credits left for a call's first turns. */
export async function hasCredits(db: Db, organizationId: string): Promise<boolean> {
  // The organization's own row, by its id: there is no organizationId column for tenancy's helpers.
  const [org] = await db
    .select({ id: organizations.id })
    .from(organizations)
    .where(and(eq(organizations.id, organizationId), gt(organizations.creditsMicro, 0)));
  return Boolean(org);
}

/** A new call (a web call: nothing else can claim its row). */
export async function insertCall(db: Db, values: NewCall): Promise<Call | undefined> {
  const [row] = await db.insert(calls).values(values).returning();
  return row;
}

/**
 * A new phone call placed with an Idempotency-Key (or none): nothing when a concurrent request
 * with the same key inserted first (the unique index on the organization and the key decided).
 */
export async function insertIdempotentCall(db: Db, values: NewCall): Promise<Call | undefined> {
  const [row] = await db.insert(calls).values(values).onConflictDoNothing().returning();
  return row;
}

/** The workspace's call placed with this Idempotency-Key, if any. */
export async function findCallByIdempotencyKey(db: Db, organizationId: string, idempotencyKey: string): Promise<Call | undefined> {
  const [row] = await db
    .select()
    .from(calls)
    .where(and(ownedBy(calls, organizationId), eq(calls.idempotencyKey, idempotencyKey)));
  return row;
}

/** The carrier's id of a call it took; the updated row (none when the call is gone). */
export async function saveProviderCallId(db: Db, callId: string, providerCallId: string): Promise<Call | undefined> {
  const [row] = await db.update(calls).set({ providerCallId }).where(eq(calls.id, callId)).returning();
  return row;
}

/** Spends a web call's one-time token (by its hash): true exactly once, before it expires, for a call not yet joined. */
export async function spendWebCallToken(db: Db, callId: string, tokenHash: string): Promise<boolean> {
  const [row] = await db
    .update(calls)
    .set({ sessionTokenUsedAt: sql`now()` })
    .where(
      and(
        eq(calls.id, callId),
        eq(calls.type, "web"),
        eq(calls.status, "queued"),
        eq(calls.sessionTokenHash, tokenHash),
        sql`${calls.sessionTokenUsedAt} is null`,
        sql`${calls.sessionTokenExpiresAt} > now()`,
      ),
    )
    .returning({ id: calls.id });
  return Boolean(row);
}

/**
 * A new incoming call: nothing when the row of this provider call id is already there. The unique
 * index on (provider, provider_call_id) makes one call of any number of concurrent copies of the
 * carrier's webhook.
 */
export async function insertIncomingCall(db: Db, values: NewCall): Promise<Call | undefined> {
  const [row] = await db
    .insert(calls)
    .values(values)
    .onConflictDoNothing({ target: [calls.provider, calls.providerCallId] })
    .returning();
  return row;
}

/**
 * A fresh stream token for an incoming call answered again (the carrier retried its webhook), only
 * while it still rings: a call under way or over is not answered twice (then nothing).
 */
export async function renewRingingStreamToken(
  db: Db,
  provider: string,
  providerCallId: string,
  streamTokenHash: string,
): Promise<Call | undefined> {
  const [row] = await db
    .update(calls)
    .set({ streamTokenHash })
    .where(and(eq(calls.provider, provider), eq(calls.providerCallId, providerCallId), eq(calls.status, "ringing")))
    .returning();
  return row;
}

/**
 * A new stream token for a call in progress whose stream the carrier is about to replace (send_dtmf:
 * src/calls/media-line.ts): the old token no longer opens a stream. False when the call is not in progress.
 */
export async function rotateStreamToken(db: Db, callId: string, streamTokenHash: string): Promise<boolean> {
  const rows = await db
    .update(calls)
    .set({ streamTokenHash })
    .where(and(eq(calls.id, callId), eq(calls.status, "in-progress")))
    .returning({ id: calls.id });
  return rows.length > 0;
}

// --- Reading what a call runs with (any workspace: the runtime and the carrier's callbacks) ------

/** Any workspace's call by id: for the runtime and the provider's callbacks (the API reads through ./service.ts). */
export async function findCall(db: Db, callId: string): Promise<Call | null> {
  const [row] = await db.select().from(calls).where(eq(calls.id, callId));
  return row ?? null;
}

/** What of a call says whose agent it runs, and at which version: the agent is read in the call's own workspace only. */
type CallOwner = Pick<Call, "organizationId" | "agentId" | "agentVersion">;

/**
 * A call's agent as the call runs it: the configuration of the version the call recorded, in one read
 * (the agents row joined with that version); the live configuration for a call from before versions.
 * Null when the agent was deleted, or the call has none.
 */
export async function findAgentOfCall(db: Db, call: CallOwner): Promise<Agent | null> {
  if (!call.agentId) return null;
  const found = await selectAgentAt(db, call.organizationId, call.agentId, call.agentVersion);
  if (!found) return null;
  return found.config ? agentWithConfig(found.agent, found.config) : found.agent;
}

/** A voice the workspace can speak with by id: a system voice or its own (null when there is none). */
export async function findVoiceFor(db: Db, organizationId: string, voiceId: string): Promise<Voice | null> {
  const [voice] = await db
    .select()
    .from(voices)
    .where(and(eq(voices.id, voiceId), or(isNull(voices.organizationId), ownedBy(voices, organizationId))));
  return voice ?? null;
}

/** The agent (at the call's version) and voice a call runs with, read when its media connects: null when the agent was deleted. */
export async function findCallAgent(
  db: Db,
  call: CallOwner,
  defaultVoiceId: string,
): Promise<{ agent: Agent; voice: Voice | null } | null> {
  const agent = await findAgentOfCall(db, call);
  if (!agent) return null;
  const voice = await findVoiceFor(db, call.organizationId, agent.voiceId ?? defaultVoiceId);
  return { agent, voice };
}

/** What the analysis of a call needs of its agent, at the call's version (null when the agent was deleted). */
export async function findAnalysisSettings(db: Db, call: CallOwner): Promise<Pick<Agent, "llmModel" | "analysisPlan"> | null> {
  const agent = await findAgentOfCall(db, call);
  return agent && { llmModel: agent.llmModel, analysisPlan: agent.analysisPlan };
}

/**
 * A call answered now must have ended by then: its agent's maxDurationSeconds at the call's version
 * (2 h when the agent is gone) plus the watchdog's grace.
 */
export async function answeredDeadline(db: Db, call: CallOwner, graceSeconds: number): Promise<Date> {
  const agent = await findAgentOfCall(db, call);
  return new Date(Date.now() + ((agent?.maxDurationSeconds ?? 7_200) + graceSeconds) * 1000);
}

// --- A call's state changes -----------------------------------------------------------------------

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

/** The voice-to-voice latency of each measured agent reply, in order (the calls.voice_to_voice_ms column). */
export const latenciesOf = (transcript: readonly TranscriptTurn[]): number[] =>
  transcript.flatMap((t) => (t.latency ? [Math.round(t.latency.voiceToVoiceMs)] : []));

/** The same, in SQL, from the transcript the row holds (an ending that brings no transcript of its own). */
const storedLatencies = sql`coalesce((select array_agg(round((turn->'latency'->>'voiceToVoiceMs')::numeric)::int order by ord)
  from jsonb_array_elements(${calls.transcript}) with ordinality as t(turn, ord) where turn ? 'latency'), '{}')`;

/**
 * Ends a call with a reason (and its status), saving the transcript (and its latencies), the
 * recording and the cost so far in the same statement: the call's final write. Null when the call
 * had already ended: the first ending wins.
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
      ...(transcript ? { transcript, voiceToVoiceMs: latenciesOf(transcript) } : { voiceToVoiceMs: storedLatencies }),
      ...(recording ? { recordingKey: recording.key, recordingSeconds: Math.round(recording.seconds) } : {}),
    })
    .where(and(eq(calls.id, callId), inArray(calls.status, sourcesOf(to))))
    .returning();
  if (row) await addEndedCall(db, row);
  return row ?? null;
}

/**
 * Re-reads the total cost once late usage rows (the last turn's settles) have landed; an ended
 * call's daily figures get the difference (the row is locked while it is read, so two refreshes
 * never add the same difference twice).
 */
export async function refreshCost(db: Db, callId: string): Promise<void> {
  const before = db.select({ id: calls.id, old: calls.costMicro }).from(calls).where(eq(calls.id, callId)).for("update").as("before");
  const [row] = await db
    .update(calls)
    .set({
      costMicro: sql`(select coalesce(sum(${usageEvents.costMicro}), 0) from ${usageEvents} where ${usageEvents.callId} = ${callId})`,
    })
    .from(before)
    .where(eq(calls.id, before.id))
    .returning({ call: { ...ownerColumns, endedAt: calls.endedAt, costMicro: calls.costMicro }, old: before.old });
  const change = row ? row.call.costMicro - Number(row.old) : 0;
  if (row?.call.endedAt && change !== 0) await addToDailyStats(db, row.call, { costMicro: change });
}

const ownerColumns = {
  organizationId: calls.organizationId,
  createdAt: calls.createdAt,
  agentId: calls.agentId,
  agentName: calls.agentName,
};

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

/** The ended call's analysis and report (clearing an earlier failure); the updated row, none when the call is gone. */
/** Saves the analysis and its report; the call's daily figures count its success score (once: a second report replaces the first). */
export async function saveAnalysis(db: Db, callId: string, analysis: CallAnalysis, report: CallReport): Promise<Call | undefined> {
  const before = db.select({ id: calls.id, old: calls.report }).from(calls).where(eq(calls.id, callId)).for("update").as("before");
  const [saved] = await db
    .update(calls)
    .set({ analysis, report, analysisError: null })
    .from(before)
    .where(eq(calls.id, before.id))
    .returning({ row: getTableColumns(calls), old: before.old });
  if (!saved) return undefined;
  const { row } = saved;
  const old = saved.old as CallReport | null;
  if (row.endedAt) await addToDailyStats(db, row, { analyzed: old ? 0 : 1, successSum: report.successScore - (old?.successScore ?? 0) });
  return row;
}

/** Why the call's analysis failed (our own message: the API shows it). */
export async function saveAnalysisError(db: Db, callId: string, message: string): Promise<void> {
  await db.update(calls).set({ analysisError: message }).where(eq(calls.id, callId));
}

/** Up to `limit` calls still not over `slackSeconds` after their deadline (any workspace: the watchdog's sweep). */
export async function findStaleCalls(
  db: Db,
  slackSeconds: number,
  limit: number,
): Promise<{ id: string; type: Call["type"]; status: Call["status"]; used: Call["sessionTokenUsedAt"] }[]> {
  return await db
    .select({ id: calls.id, type: calls.type, status: calls.status, used: calls.sessionTokenUsedAt })
    .from(calls)
    .where(and(inArray(calls.status, ACTIVE_STATUSES), lt(calls.deadlineAt, sql`now() - make_interval(secs => ${slackSeconds})`)))
    .limit(limit);
}
