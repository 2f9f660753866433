// Metering (spec: Limits 1-2). A Models call holds an upper bound of its cost before the
// provider is called (402 when the workspace cannot cover it), then either settles the exact
// cost, refunding the rest, or releases the whole hold when the call fails. Each step is one
// SQL statement: the hold takes the money and writes a `credit_holds` row; settling and
// releasing delete that row, return the money and write the request log row together. So a
// successful call is charged exactly once, the balance never goes below zero, and money in
// flight is always a row that the scheduled handler can find and release (`sweepExpiredHolds`)
// when the worker that took it died.
import { type SQL, sql } from "drizzle-orm";
import { type Db, rowsOf } from "../db/client";
import { creditGrants, organizations } from "../db/schema";
import { ApiError } from "../lib/errors";
import { newId } from "../lib/ids";
import { type Modality, toCredits } from "./prices";

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

const UNITS = { chat: "tokens", tts: "characters", stt: "audio_ms" } as const;

/** Rows of a raw statement, whichever driver ran it (neon-http and the Pool both return `rows`). */
/** A hold the workspace cannot cover: 402, and the balance it has (the caller's cache learns it). */
export class InsufficientCredits extends ApiError {
  constructor(
    message: string,
    readonly balanceMicro: number,
  ) {
    super("insufficient_credits", message);
  }
}

export async function hold(db: Db, organizationId: string, amountMicro: number, purpose: string): Promise<Hold> {
  const id = newId();
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
  if (taken.length === 1) return { id, organizationId, amountMicro, balanceMicro: Number(taken[0]?.balance) };
  const [org] = rowsOf<{ credits_micro: string | number }>(
    await db.execute(sql`select credits_micro from ${organizations} where id = ${organizationId}::uuid`),
  );
  const balanceMicro = Number(org?.credits_micro ?? 0);
  throw new InsufficientCredits(
    `This call may cost up to ${toCredits(amountMicro)} credits and the workspace has ${toCredits(balanceMicro)}. Nothing was charged; add credits to continue.`,
    balanceMicro,
  );
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

/**
 * Closes a hold: deletes its row, refunds all of it but `chargeMicro`, and logs the request,
 * in one statement. A hold the sweeper already released is not charged again (cost 0 in the log).
 * Returns what was charged.
 */
async function close(
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
      )
      insert into usage_events (${LOG_COLUMNS})
      select ${newId()}::uuid, ${held.organizationId}::uuid, ${logValues(log)},
        coalesce((select least(${chargeMicro}::bigint, amount_micro) from held), 0)
      returning cost_micro as charged`),
  );
  return Number(rows[0]?.charged ?? 0);
}

/** Success: charge `costMicro` (at most the hold), refund the rest, and log the request. */
export function settle(
  db: Db,
  held: Hold,
  log: RequestLog & {
    status: number;
    quantity: number;
    costMicro: number;
    promptTokens?: number;
    completionTokens?: number;
    /** Set when the charge is for part of an answer (a cancelled or broken stream). */
    errorCode?: string | null;
  },
): Promise<number> {
  return close(db, held, log.costMicro, log);
}

/**
 * Failure: refund the whole hold and log the request with its status; nothing is charged.
 * When the log row cannot be written (whatever the reason), the money still goes back: the
 * hold is released on its own, and the error is thrown so the caller's log says why.
 */
export async function release(
  db: Db,
  held: Hold | null,
  organizationId: string,
  log: RequestLog & { status: number; errorCode: string },
): Promise<void> {
  if (!held) {
    await db.execute(
      sql`insert into usage_events (${LOG_COLUMNS}) select ${newId()}::uuid, ${organizationId}::uuid, ${logValues({ ...log, quantity: 0 })}, 0`,
    );
    return;
  }
  try {
    await close(db, held, 0, { ...log, quantity: 0 });
  } catch (err) {
    await releaseHolds(db, sql`id = ${held.id}::uuid`);
    throw err;
  }
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

/**
 * The longest a metered provider call may hold credits: every attempt timing out, with the
 * longest backoff between attempts, plus five minutes for reading the body and settling.
 */
export const holdLifetimeMs = (config: { PROVIDER_TIMEOUT_MS: number; PROVIDER_RETRIES: number }) =>
  (config.PROVIDER_RETRIES + 1) * (config.PROVIDER_TIMEOUT_MS + 5_000) + 5 * 60_000;

/** Scheduled: releases holds older than `olderThanMs` (their worker died before settling). */
export async function sweepExpiredHolds(db: Db, olderThanMs: number, log: (line: string) => void = console.warn): Promise<number> {
  const released = await releaseHolds(db, sql`created_at < now() - make_interval(secs => ${olderThanMs / 1000}::double precision)`);
  for (const h of released) {
    log(
      JSON.stringify({
        level: "warn",
        msg: "expired hold released",
        holdId: h.id,
        organizationId: h.organization_id,
        amountMicro: Number(h.amount_micro),
        purpose: h.purpose,
      }),
    );
  }
  return released.length;
}

export interface Books {
  organizationId: string;
  creditsMicro: number;
  heldMicro: number;
  chargedMicro: number;
  grantedMicro: number;
  /** credits + held + charged − granted: 0 when the books close. */
  differenceMicro: number;
}

/**
 * Reconciliation: for every workspace (or one), credits + open holds + charged usage must
 * equal what was granted. Returns every workspace's books; `differenceMicro` ≠ 0 is a defect.
 */
export async function reconcileCredits(db: Db, organizationId?: string): Promise<Books[]> {
  const rows = rowsOf<Record<string, string | number>>(
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
  return rows.map((r) => {
    const [creditsMicro, heldMicro, chargedMicro, grantedMicro] = [r.credits, r.held, r.charged, r.granted].map(Number) as [
      number,
      number,
      number,
      number,
    ];
    return {
      organizationId: String(r.id),
      creditsMicro,
      heldMicro,
      chargedMicro,
      grantedMicro,
      differenceMicro: creditsMicro + heldMicro + chargedMicro - grantedMicro,
    };
  });
}
