// Every statement of a campaign's runner (src/campaigns/runner/): reading the campaign and its
// figures, claiming due recipients, giving a claim back, recording a call's outcome and completing
// the campaign. State lives here, in Postgres; the runner's Durable Object only holds an alarm.
// Each write is one conditional statement, so two runners racing (or a runner and a call's end)
// never both win the same recipient.
import { and, asc, eq, exists, inArray, isNull, lt, lte, or, type SQL, sql } from "drizzle-orm";
import { type Db, rowsOf } from "../../db/client";
import {
  type Call,
  type Campaign,
  type CampaignRecipient,
  calls,
  campaigns,
  organizations,
  type RecipientState,
  campaignRecipients as r,
} from "../../db/schema";
import { SINGLE_ZONE_CODES } from "../runner/timezones";

export async function findCampaign(db: Db, campaignId: string): Promise<Campaign | null> {
  const [row] = await db.select().from(campaigns).where(eq(campaigns.id, campaignId));
  return row ?? null;
}

/** The workspace's calls in flight and its limit. */
export async function workspaceLimits(db: Db, organizationId: string): Promise<{ inFlight: number; max: number } | null> {
  const [row] = await db
    .select({ inFlight: organizations.callsInFlight, max: organizations.maxCallsInFlight })
    .from(organizations)
    .where(eq(organizations.id, organizationId));
  return row ?? null;
}

/** Pauses a running campaign with the platform's reason; false when it was not running. */
export async function pauseWithReason(db: Db, campaignId: string, reason: string): Promise<boolean> {
  const rows = await db
    .update(campaigns)
    .set({ status: "paused", pausedReason: reason })
    .where(and(eq(campaigns.id, campaignId), eq(campaigns.status, "running")))
    .returning({ id: campaigns.id });
  return rows.length > 0;
}

/**
 * The zone a recipient's window is read in, in SQL: the same rule as timezones.ts recipientZone
 * (the row's, its country's, the schedule's). The table is our own constants, written as literals.
 */
function zoneOf(scheduleZone: string): SQL {
  const cases = Object.entries(SINGLE_ZONE_CODES)
    .map(([code, zone]) => `when "campaign_recipients"."phone_number" like '+${code}%' then '${zone}'`)
    .join(" ");
  return sql`coalesce(${r.timezone}, case ${sql.raw(cases)} end, ${scheduleZone})`;
}

const due = () => or(isNull(r.nextAttemptAt), lte(r.nextAttemptAt, sql`now()`));

/** The zones of the recipients waiting and due now (each once): the runner tells which have their window open. */
export async function dueZones(db: Db, campaignId: string, scheduleZone: string): Promise<string[]> {
  const zone = zoneOf(scheduleZone);
  const rows = await db
    .selectDistinct({ zone: sql<string>`${zone}` })
    .from(r)
    .where(and(eq(r.campaignId, campaignId), eq(r.state, "pending"), due()));
  return rows.map((x) => x.zone);
}

export interface Workload {
  pending: number;
  calling: number;
  /** The earliest retry not yet due. */
  nextRetryAt: Date | null;
}

/** What is left of a campaign: recipients waiting, recipients with a call, and when the next retry falls due. */
export async function workloadOf(db: Db, campaignId: string): Promise<Workload> {
  const [row] = await db
    .select({
      pending: sql<number>`count(*) filter (where ${r.state} = 'pending')`.mapWith(Number),
      calling: sql<number>`count(*) filter (where ${r.state} = 'calling')`.mapWith(Number),
      nextRetryAt: sql<string | null>`min(${r.nextAttemptAt}) filter (where ${r.state} = 'pending' and ${r.nextAttemptAt} > now())`,
    })
    .from(r)
    .where(and(eq(r.campaignId, campaignId), inArray(r.state, ["pending", "calling"])));
  return {
    pending: row?.pending ?? 0,
    calling: row?.calling ?? 0,
    nextRetryAt: row?.nextRetryAt ? new Date(row.nextRetryAt) : null,
  };
}

/**
 * Claims up to `limit` due recipients, in their rows' order, for a call each: `calling`, one more
 * attempt. `zones`: only recipients whose zone is among them (their window is open); null: any. The
 * campaign's row is read `running` FOR SHARE in the same statement, so a pause (or a cancel)
 * and a claim are ordered: a claim waiting on the pause's write sees `paused` and takes nothing,
 * and every claim made before the pause is visible once the pause has committed. SKIP LOCKED:
 * two runners racing take different rows.
 */
export async function claimDue(
  db: Db,
  campaignId: string,
  limit: number,
  zones: { open: string[]; scheduleZone: string } | null,
): Promise<CampaignRecipient[]> {
  if (limit <= 0 || zones?.open.length === 0) return [];
  const inWindow = zones
    ? sql`and ${zoneOf(zones.scheduleZone)} in (${sql.join(
        zones.open.map((z) => sql`${z}`),
        sql`, `,
      )})`
    : sql``;
  // A materialized CTE: the rows are chosen once. As `id in (select … limit n for update skip
  // locked)` the planner may run the sub-select again per row, and take more than `limit`.
  const claimed = rowsOf<{ id: string }>(
    await db.execute(sql`
      with chosen as materialized (
        select ${r.id} from ${r}
        where ${r.campaignId} = ${campaignId} and ${r.state} = 'pending'
          and (${r.nextAttemptAt} is null or ${r.nextAttemptAt} <= now()) ${inWindow}
          and exists (select 1 from ${campaigns} where ${campaigns.id} = ${campaignId} and ${campaigns.status} = 'running' for share)
        order by ${r.row} limit ${limit}
        for update of ${r} skip locked
      )
      update ${r} set state = 'calling', attempts = ${r.attempts} + 1, last_call_id = null, next_attempt_at = null, updated_at = now()
      from chosen where ${r.id} = chosen.id and ${r.state} = 'pending'
      returning ${r.id}`),
  );
  if (claimed.length === 0) return [];
  return await db
    .select()
    .from(r)
    .where(
      inArray(
        r.id,
        claimed.map((c) => c.id),
      ),
    )
    .orderBy(asc(r.row));
}

/** Gives a claim back (its call was not placed: a limit was reached, or the campaign stopped): pending, the attempt not spent. */
export async function giveBack(db: Db, recipientId: string, attempt: number): Promise<boolean> {
  const rows = await db
    .update(r)
    .set({ state: "pending", attempts: sql`${r.attempts} - 1` })
    .where(and(eq(r.id, recipientId), eq(r.state, "calling"), eq(r.attempts, attempt)))
    .returning({ id: r.id });
  return rows.length > 0;
}

/** A claim of a canceled campaign whose call was never placed: canceled with it. */
export async function cancelClaim(db: Db, recipientId: string, attempt: number): Promise<void> {
  await db
    .update(r)
    .set({ state: "canceled" })
    .where(and(eq(r.id, recipientId), eq(r.state, "calling"), eq(r.attempts, attempt)));
}

/** The attempt's call. */
export async function saveLastCall(db: Db, recipientId: string, attempt: number, callId: string): Promise<void> {
  await db
    .update(r)
    .set({ lastCallId: callId })
    .where(and(eq(r.id, recipientId), eq(r.attempts, attempt)));
}

/**
 * Recipients left `calling` that need the runner: a claim older than `staleSeconds` with no call
 * saved (its runner stopped between the claim and the dial), or one whose call ended without its
 * outcome recorded (the worker stopped between the two). With the call, when there is one.
 */
export async function stuckRecipients(
  db: Db,
  campaignId: string,
  staleSeconds: number,
  limit: number,
): Promise<Array<{ recipient: CampaignRecipient; call: Call | null }>> {
  const rows = await db
    .select({ recipient: r, call: calls })
    .from(r)
    .leftJoin(calls, eq(calls.id, r.lastCallId))
    .where(
      and(
        eq(r.campaignId, campaignId),
        eq(r.state, "calling"),
        or(
          and(isNull(r.lastCallId), lt(r.updatedAt, sql`now() - make_interval(secs => ${staleSeconds})`)),
          inArray(calls.status, ["completed", "failed", "busy", "no-answer", "canceled"]),
        ),
      ),
    )
    .orderBy(asc(r.row))
    .limit(limit);
  return rows;
}

/** The recipient of a call, as its outcome is recorded (its campaign's retry policy and status with it). */
export async function recipientOfCall(
  db: Db,
  call: Pick<Call, "organizationId" | "campaignRecipientId">,
): Promise<{ recipient: CampaignRecipient; campaign: Campaign } | null> {
  if (!call.campaignRecipientId) return null;
  const [row] = await db
    .select({ recipient: r, campaign: campaigns })
    .from(r)
    .innerJoin(campaigns, eq(campaigns.id, r.campaignId))
    .where(and(eq(r.id, call.campaignRecipientId), eq(r.organizationId, call.organizationId)));
  return row ?? null;
}

/**
 * A call's outcome on its recipient: `state` (pending again for a retry at `nextAttemptAt`, or
 * final), only while the recipient is still `calling` for that attempt; `call` null when none
 * could be placed. False when another writer
 * recorded it first (the call's end and the runner's repair race).
 */
export async function recordOutcome(
  db: Db,
  input: {
    recipientId: string;
    attempt: number;
    state: RecipientState;
    nextAttemptAt: Date | null;
    call: Pick<Call, "id" | "endedReason"> | null;
  },
): Promise<boolean> {
  const rows = await db
    .update(r)
    .set({
      state: input.state,
      nextAttemptAt: input.nextAttemptAt,
      ...(input.call ? { lastCallId: input.call.id, lastEndedReason: input.call.endedReason } : {}),
    })
    .where(and(eq(r.id, input.recipientId), eq(r.state, "calling"), eq(r.attempts, input.attempt)))
    .returning({ id: r.id });
  return rows.length > 0;
}

/** Completes a running campaign with no recipient waiting or calling; the completed row, or null (work left, or not running). */
export async function completeIfDone(db: Db, campaignId: string): Promise<Campaign | null> {
  const open = db
    .select({ one: sql`1` })
    .from(r)
    .where(and(eq(r.campaignId, campaignId), inArray(r.state, ["pending", "calling"])));
  const [row] = await db
    .update(campaigns)
    .set({ status: "completed", completedAt: sql`now()` })
    .where(and(eq(campaigns.id, campaignId), eq(campaigns.status, "running"), sql`not exists (${open})`))
    .returning();
  return row ?? null;
}

/** How many recipients are in each state. */
export async function stateCounts(db: Db, campaignId: string): Promise<Partial<Record<RecipientState, number>>> {
  const rows = await db
    .select({ state: r.state, n: sql<number>`count(*)`.mapWith(Number) })
    .from(r)
    .where(eq(r.campaignId, campaignId))
    .groupBy(r.state);
  return Object.fromEntries(rows.map((x) => [x.state, x.n]));
}

/** Running campaigns with recipients waiting or calling (any workspace: the cron's backstop wakes each). */
export async function runningCampaignsWithWork(db: Db, limit: number): Promise<string[]> {
  const work = db
    .select({ one: sql`1` })
    .from(r)
    .where(and(eq(r.campaignId, campaigns.id), inArray(r.state, ["pending", "calling"])));
  const rows = await db
    .select({ id: campaigns.id })
    .from(campaigns)
    .where(and(eq(campaigns.status, "running"), exists(work)))
    .orderBy(asc(campaigns.id))
    .limit(limit);
  return rows.map((x) => x.id);
}
