// Metering (spec: Limits 1-2). A Models call holds an upper bound of its cost before the
// provider is called (402 when the workspace cannot cover it), then either settles the exact
// cost, refunding the rest, or releases the whole hold when the call fails. Each step is one
// SQL statement: the hold takes the money and writes a `credit_holds` row; settling and
// releasing delete that row, return the money and write the request log row together. So a
// successful call is charged exactly once, the balance never goes below zero, and money in
// flight is always a row that the scheduled handler can find and release (`sweepExpiredHolds`)
// when the worker that took it died. The statements themselves are in queries.ts.
import type { Db } from "../db/client";
import { toCredits } from "../lib/credits";
import { ApiError } from "../lib/errors";
import { newId } from "../lib/ids";
import {
  balanceOf,
  closeHold,
  creditBooks,
  type Hold,
  logUnheldRequest,
  type RequestLog,
  releaseHold,
  releaseHoldsOlderThan,
  takeHold,
} from "./queries";

export { adjustCredits, type Hold, type RequestLog } from "./queries";

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
  const taken = await takeHold(db, id, organizationId, amountMicro, purpose);
  if (taken !== null) return { id, organizationId, amountMicro, balanceMicro: taken };
  const balanceMicro = await balanceOf(db, organizationId);
  throw new InsufficientCredits(
    `This call may cost up to ${toCredits(amountMicro)} credits and the workspace has ${toCredits(balanceMicro)}. Nothing was charged; add credits to continue.`,
    balanceMicro,
  );
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
  return closeHold(db, held, log.costMicro, log);
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
    await logUnheldRequest(db, organizationId, log);
    return;
  }
  try {
    await closeHold(db, held, 0, { ...log, quantity: 0 });
  } catch (err) {
    await releaseHold(db, held.id);
    throw err;
  }
}

/**
 * The longest a metered provider call may hold credits: every attempt timing out, with the
 * longest backoff between attempts, plus five minutes for reading the body and settling.
 */
export const holdLifetimeMs = (config: { PROVIDER_TIMEOUT_MS: number; PROVIDER_RETRIES: number }) =>
  (config.PROVIDER_RETRIES + 1) * (config.PROVIDER_TIMEOUT_MS + 5_000) + 5 * 60_000;

/** Scheduled: releases holds older than `olderThanMs` (their worker died before settling). */
export async function sweepExpiredHolds(db: Db, olderThanMs: number, log: (line: string) => void = console.warn): Promise<number> {
  const released = await releaseHoldsOlderThan(db, olderThanMs);
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
  const rows = await creditBooks(db, organizationId);
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
