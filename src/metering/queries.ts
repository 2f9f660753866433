// Metering's statements (the rules are meter.ts's): each step of a hold is one SQL statement over
// the workspace's balance, `credit_holds` and the request log (`usage_events`), so money taken,
// returned or charged always moves together with the row that accounts for it; the statement that
// writes a log row also adds it to the log's daily totals (`usage_daily_stats`), so they never
// disagree; and the operator's balance changes and reconciliation.
import { type SQL, sql } from "drizzle-orm";
import { type Db, rowsOf } from "../db/client";
import { creditGrants, organizations } from "../db/schema";
import { newId } from "../lib/ids";
import type { Modality } from "./prices";

export interface Hold {
  id: string;
  organizationId: string;
  amountMicro: number;
  /** The workspace's balance right after this hold took its amount. */
  balanceMicro: number;
}

export interface RequestLog {
  apiKeyId: string | null;
  callId?: string;
  chatId?: string;
  method: string;
  endpoint: string;
  modality: Modality;
  provider: string;
  model: string;
  latencyMs: number;
}

const UNITS = { chat: "tokens", tts: "characters", stt: "audio_ms", embedding: "tokens" } as const;

/**
 * Takes `amountMicro` from the workspace's balance and writes its `credit_holds` row `id`, in one
 * statement; only when the balance covers it. Returns the balance after, or null when it did not cover it.
 */
export async function takeHold(db: Db, id: string, organizationId: string, amountMicro: number, purpose: string): Promise<number | null> {
  const taken = rowsOf<{ balance: string | number }>(
    await db.execute(sql`
    with debit as (
      update ${organizations} set credits_micro = credits_micro - ${amountMicro}
      where id = ${organizationId}::uuid and credits_micro >= ${amountMicro}
      returning id, credits_micro
    ),
    held as (
      insert into credit_holds (id, organization_id, amount_micro, purpose)
      select ${id}::uuid, debit.id, ${amountMicro}::bigint, ${purpose}::text from debit
      returning id
    )
    select debit.credits_micro as balance from debit join held on true`),
  );
  return taken.length === 1 ? Number(taken[0]?.balance) : null;
}

/** The workspace's balance in micro-credits (0 when there is no such workspace). */
export async function balanceOf(db: Db, organizationId: string): Promise<number> {
  const [org] = rowsOf<{ credits_micro: string | number }>(
    await db.execute(sql`select credits_micro from ${organizations} where id = ${organizationId}::uuid`),
  );
  return Number(org?.credits_micro ?? 0);
}

/** Operator top-up or reset (`npm run admin -- credits …`): returns the new balance in micro-credits. */
export async function adjustCredits(
  db: Db,
  organizationId: string,
  change: { addMicro: number } | { setMicro: number },
): Promise<number | null> {
  // One statement: the balance and the grant that explains it (a reset is the difference it made).
  const next = "addMicro" in change ? sql`old.credits_micro + ${change.addMicro}::bigint` : sql`${change.setMicro}::bigint`;
  const reason = "addMicro" in change ? "top_up" : "reset";
  const rows = rowsOf<{ micro: string | number }>(
    await db.execute(sql`
      with old as (select id, credits_micro from ${organizations} where id = ${organizationId}::uuid for update),
      changed as (
        update ${organizations} o set credits_micro = ${next}
        from old where o.id = old.id
        returning o.id, o.credits_micro
      ),
      granted as (
        insert into ${creditGrants} (id, organization_id, amount_micro, reason)
        select ${newId()}::uuid, changed.id, changed.credits_micro - old.credits_micro, ${reason}::text
        from changed join old on old.id = changed.id
      )
      select credits_micro as micro from changed`),
  );
  return rows[0] ? Number(rows[0].micro) : null;
}

/** The request log row's values, in `usage_events` column order after id and organization. */
function logValues(
  log: RequestLog & { status: number; errorCode?: string | null; quantity: number; promptTokens?: number; completionTokens?: number },
): SQL {
  return sql`${log.apiKeyId}::uuid, ${log.callId ?? null}::uuid, ${log.chatId ?? null}::uuid, ${log.method}::text, ${log.endpoint}::text, ${log.modality}::text,
    ${log.provider}::text, ${log.model}::text, ${log.status}::int, ${log.errorCode ?? null}::text, ${Math.round(log.latencyMs)}::int,
    ${UNITS[log.modality]}::text, ${Math.round(log.quantity)}::int, ${log.promptTokens ?? null}::int, ${log.completionTokens ?? null}::int`;
}

const LOG_COLUMNS = sql.raw(
  "id, organization_id, api_key_id, call_id, chat_id, method, endpoint, modality, provider, model, status, error_code, latency_ms, unit, quantity, prompt_tokens, completion_tokens, cost_micro",
);

/** What a logging statement's `logged` CTE returns: what its daily totals need, and the charge. */
const LOGGED = sql.raw("returning organization_id, created_at, modality, unit, status, quantity, cost_micro");

/**
 * The CTE `rolled`, which adds the rows of the CTE `logged` (the `usage_events` rows the statement
 * wrote) to their daily totals: per workspace, UTC day, modality and unit, every row a request, a
 * status below 400 a success (GET /v1/usage's `totals`; migration 0023 filled them the same way).
 */
const ROLLED = sql.raw(`rolled as (
  insert into usage_daily_stats as s (organization_id, day, modality, unit, requests, succeeded, quantity, cost_micro)
  select organization_id, (created_at at time zone 'UTC')::date, modality, unit,
    count(*), count(*) filter (where status < 400), coalesce(sum(quantity), 0), coalesce(sum(cost_micro), 0)
  from logged group by 1, 2, 3, 4
  on conflict (organization_id, day, modality, unit) do update set
    requests = s.requests + excluded.requests, succeeded = s.succeeded + excluded.succeeded,
    quantity = s.quantity + excluded.quantity, cost_micro = s.cost_micro + excluded.cost_micro
)`);

/**
 * Closes a hold: deletes its row, refunds all of it but `chargeMicro`, and logs the request (and
 * adds it to the day's totals), in one statement. A hold the sweeper already released is not
 * charged again (cost 0 in the log). Returns what was charged.
 */
export async function closeHold(
  db: Db,
  held: Hold,
  chargeMicro: number,
  log: RequestLog & { status: number; errorCode?: string | null; quantity: number; promptTokens?: number; completionTokens?: number },
): Promise<number> {
  const rows = rowsOf<{ charged: string | number }>(
    await db.execute(sql`
      with held as (delete from credit_holds where id = ${held.id}::uuid returning organization_id, amount_micro),
      refund as (
        update ${organizations} o set credits_micro = o.credits_micro + (held.amount_micro - least(${chargeMicro}::bigint, held.amount_micro))
        from held where o.id = held.organization_id
        returning o.id
      ),
      logged as (
        insert into usage_events (${LOG_COLUMNS})
        select ${newId()}::uuid, ${held.organizationId}::uuid, ${logValues(log)},
          coalesce((select least(${chargeMicro}::bigint, amount_micro) from held), 0)
        ${LOGGED}
      ),
      ${ROLLED}
      select cost_micro as charged from logged`),
  );
  return Number(rows[0]?.charged ?? 0);
}

/** Logs a failed request that held nothing: one request log row, cost 0 (and the day's totals), in one statement. */
export async function logUnheldRequest(
  db: Db,
  organizationId: string,
  log: RequestLog & { status: number; errorCode: string },
): Promise<void> {
  await db.execute(sql`
    with logged as (
      insert into usage_events (${LOG_COLUMNS})
      select ${newId()}::uuid, ${organizationId}::uuid, ${logValues({ ...log, quantity: 0 })}, 0
      ${LOGGED}
    ),
    ${ROLLED}
    select count(*) as logged from logged`);
}

/** Deletes the holds that `where` selects and gives their money back, in one statement. Returns them. */
async function releaseHolds(
  db: Db,
  where: SQL,
): Promise<Array<{ id: string; organization_id: string; amount_micro: string | number; purpose: string }>> {
  return rowsOf(
    await db.execute(sql`
      with held as (delete from credit_holds where ${where} returning id, organization_id, amount_micro, purpose),
      per_org as (select organization_id, sum(amount_micro) as amount from held group by organization_id),
      refund as (
        update ${organizations} o set credits_micro = o.credits_micro + per_org.amount
        from per_org where o.id = per_org.organization_id
        returning o.id
      )
      select id, organization_id, amount_micro, purpose from held`),
  );
}

/** Releases one hold (releaseHolds): its money goes back, nothing is logged. */
export const releaseHold = (db: Db, holdId: string) => releaseHolds(db, sql`id = ${holdId}::uuid`);

/** Releases the holds older than `olderThanMs` (releaseHolds). Returns them. */
export const releaseHoldsOlderThan = (db: Db, olderThanMs: number) =>
  releaseHolds(db, sql`created_at < now() - make_interval(secs => ${olderThanMs / 1000}::double precision)`);

/** Every workspace's (or one's) balance, open holds, charged usage and grants, by workspace id. */
export async function creditBooks(db: Db, organizationId?: string): Promise<Array<Record<string, string | number>>> {
  return rowsOf<Record<string, string | number>>(
    await db.execute(sql`
      select o.id,
        o.credits_micro as credits,
        coalesce((select sum(amount_micro) from credit_holds h where h.organization_id = o.id), 0) as held,
        coalesce((select sum(cost_micro) from usage_events u where u.organization_id = o.id), 0) as charged,
        coalesce((select sum(amount_micro) from ${creditGrants} g where g.organization_id = o.id), 0) as granted
      from ${organizations} o
      ${organizationId ? sql`where o.id = ${organizationId}::uuid` : sql``}
      order by o.id`),
  );
}
