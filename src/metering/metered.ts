// The one path every metered provider call takes (the Models API and live calls): hold, call
// the provider, settle, or release. 402 and provider failures are logged too (status and
// code), never charged.
import type { Context } from "hono";
import type { AppEnv } from "../context";
import type { Db } from "../db/client";
import { ApiError } from "../lib/errors";
import { ProviderError, toApiError } from "../providers/http";
import { type Hold, hold, InsufficientCredits, type RequestLog, release, settle } from "./meter";
import { costOf, type Modality } from "./prices";

export interface MeteredCall {
  modality: Modality;
  provider: string;
  model: string;
  /** Upper bound of the quantity (tokens, characters, audio ms): what is held. */
  maxQuantity: number;
}

export interface Consumed<T> {
  result: T;
  quantity: number;
  promptTokens?: number;
  completionTokens?: number;
}

/** Who pays and how the request log names the use. */
export interface Payer {
  organizationId: string;
  apiKeyId: string | null;
  method: string;
  endpoint: string;
  /** Usage of a live call is tagged with it (docs/calls.md). */
  callId?: string;
  /** Usage of a chat (a widget chat or a messaging session) is tagged with it: the chat's cost (docs/chats.md). */
  chatId?: string;
}

/**
 * What this isolate last saw of each workspace's balance (after a hold, or when one was refused):
 * a provider call may start alongside its hold only when the workspace recently had room for
 * several such calls. Bounded; a stale entry costs at most an aborted provider call.
 */
const seenBalances = new Map<string, { micro: number; at: number }>();
const SEEN_FOR_MS = 30_000;
const SEEN_MAX = 10_000;
/** The room a workspace must have had, in holds of the same size, for its call to start alongside the hold. */
export const SPECULATE_HEADROOM = 4;

function sawBalance(organizationId: string, micro: number) {
  if (seenBalances.size >= SEEN_MAX && !seenBalances.has(organizationId)) seenBalances.clear();
  seenBalances.set(organizationId, { micro, at: Date.now() });
}

/** Whether this call starts alongside its hold (docs/models.md, "The hold and the provider call"). */
export function startsWithHold(organizationId: string, amountMicro: number, now = Date.now()): boolean {
  const seen = seenBalances.get(organizationId);
  return !!seen && now - seen.at < SEEN_FOR_MS && seen.micro >= SPECULATE_HEADROOM * amountMicro;
}

/**
 * Holds, runs, settles. With `settleInBackground` the answer goes out while the settlement is
 * written (live calls keep speaking; the Models API answers without waiting for it). Either
 * way a settlement that fails releases the hold, and a hold that nothing closes (the worker
 * died) is released by the scheduled handler (`sweepExpiredHolds`): no hold outlives its call.
 *
 * When this isolate recently saw the workspace with room for several calls like this one, the
 * provider call starts alongside the hold instead of after it (one database round trip off the
 * response); a hold refused meanwhile aborts it (`signal`) and the request answers 402 as
 * before. Nothing is answered or charged without a hold.
 */
export async function meter<T>(
  db: Db,
  payer: Payer,
  call: MeteredCall,
  run: (signal: AbortSignal) => Promise<Consumed<T>>,
  settleInBackground?: (work: Promise<unknown>) => void,
  log: (line: string) => void = console.error,
): Promise<T> {
  const started = Date.now();
  const requestLog = () => requestLogOf(payer, call, started);
  const amount = costOf(call.modality, call.model, call.maxQuantity);
  const abort = new AbortController();
  const holding = hold(db, payer.organizationId, amount, purposeOf(call));
  // Started alongside the hold, or after it; its failure is read below, once the hold is known.
  const early = startsWithHold(payer.organizationId, amount) ? settledOf(run(abort.signal)) : null;
  let held: Hold;
  try {
    held = await holding;
    sawBalance(payer.organizationId, held.balanceMicro);
  } catch (err) {
    if (err instanceof InsufficientCredits) sawBalance(payer.organizationId, err.balanceMicro);
    abort.abort(err);
    await logFailure(db, null, payer, requestLog(), err, log);
    throw err;
  }
  let consumed: Consumed<T>;
  try {
    consumed = early ? unwrap(await early) : await run(abort.signal);
  } catch (err) {
    await logFailure(db, held, payer, requestLog(), err, log);
    throw err;
  }
  const taken = held;
  const settling = settle(db, taken, {
    ...requestLog(),
    status: 200,
    quantity: consumed.quantity,
    costMicro: costOf(call.modality, call.model, consumed.quantity),
    promptTokens: consumed.promptTokens,
    completionTokens: consumed.completionTokens,
  }).catch(async (err: unknown) => {
    // The provider answered and the charge could not be written: the caller keeps the answer,
    // the workspace keeps its money, and the operator gets the reason.
    log(JSON.stringify({ level: "error", msg: "settlement failed; hold released", holdId: taken.id, ...errorFields(err) }));
    await release(db, taken, payer.organizationId, { ...requestLog(), status: 200, errorCode: "settlement_failed" }).catch(() => undefined);
  });
  if (settleInBackground) settleInBackground(settling);
  else await settling;
  return consumed.result;
}

/** The request log row of a metered call: who paid, for what, and how long it has taken so far. */
const requestLogOf = (payer: Payer, call: MeteredCall, started: number): RequestLog => ({
  apiKeyId: payer.apiKeyId,
  method: payer.method,
  endpoint: payer.endpoint,
  callId: payer.callId,
  chatId: payer.chatId,
  modality: call.modality,
  provider: call.provider,
  model: call.model,
  latencyMs: Date.now() - started,
});

type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };
/** A promise that never rejects (its failure is read when the hold is known, never unhandled). */
const settledOf = <T>(p: Promise<T>): Promise<Outcome<T>> =>
  p.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
const unwrap = <T>(o: Outcome<T>): T => {
  if (o.ok) return o.value;
  throw o.error;
};

/** What a stream has produced so far: its quantity (and tokens), updated as output arrives. */
export interface Produced {
  quantity: number;
  promptTokens?: number;
  completionTokens?: number;
}

/** Status logged for a request we cancelled ourselves (nginx's "client closed request"). */
export const CANCELED_STATUS = 499;

/**
 * A streamed provider call: holds the upper bound, runs, and settles exactly what was produced,
 * whether the stream finished, was cancelled by us (a barge-in, a discarded speculation) or broke
 * off: `run` keeps `produced` up to date as output arrives. A stream that produced nothing is
 * released, like a failed call. The error, if any, is thrown after the settlement is under way.
 */
export async function meterStream<T>(
  db: Db,
  payer: Payer,
  call: MeteredCall,
  run: (produced: Produced) => Promise<T>,
  settleInBackground?: (work: Promise<unknown>) => void,
  log: (line: string) => void = console.error,
): Promise<T> {
  const started = Date.now();
  const requestLog = () => requestLogOf(payer, call, started);
  let held: Hold;
  try {
    held = await hold(db, payer.organizationId, costOf(call.modality, call.model, call.maxQuantity), purposeOf(call));
    sawBalance(payer.organizationId, held.balanceMicro);
  } catch (err) {
    if (err instanceof InsufficientCredits) sawBalance(payer.organizationId, err.balanceMicro);
    await logFailure(db, null, payer, requestLog(), err, log);
    throw err;
  }
  const produced: Produced = { quantity: 0 };
  let result: T | undefined;
  let failure: unknown = null;
  try {
    result = await run(produced);
  } catch (err) {
    failure = err;
  }
  const quantity = Math.min(call.maxQuantity, Math.max(0, Math.round(produced.quantity)));
  if (failure !== null && quantity === 0) {
    await logFailure(db, held, payer, requestLog(), failure, log);
    throw failure;
  }
  const taken = held;
  const cancelled = failure instanceof ProviderError && failure.failure === "canceled";
  const settling = settle(db, taken, {
    ...requestLog(),
    status: cancelled ? CANCELED_STATUS : 200,
    errorCode: failure === null ? null : cancelled ? "canceled" : "stream_interrupted",
    quantity,
    costMicro: costOf(call.modality, call.model, quantity),
    promptTokens: produced.promptTokens,
    completionTokens: produced.completionTokens,
  }).catch(async (err: unknown) => {
    log(JSON.stringify({ level: "error", msg: "settlement failed; hold released", holdId: taken.id, ...errorFields(err) }));
    await release(db, taken, payer.organizationId, { ...requestLog(), status: 200, errorCode: "settlement_failed" }).catch(() => undefined);
  });
  if (settleInBackground) settleInBackground(settling);
  else await settling;
  if (failure !== null) throw failure;
  return result as T;
}

/** For the operator who reads a swept hold; never what makes a hold fail (NUL, lone surrogates dropped). */
const purposeOf = (call: MeteredCall) =>
  `${call.modality} ${call.provider} ${call.model}`
    .replaceAll("\u0000", "")
    .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "")
    .slice(0, 200);

const errorFields = (err: unknown) => {
  const root = err instanceof Error && err.cause instanceof Error ? err.cause : (err as Error);
  return { error: root?.name, message: root?.message, code: (root as { code?: string })?.code };
};

/** A refused or failed call: release what was held and log it with its status (cost 0). */
async function logFailure(db: Db, held: Hold | null, payer: Payer, requestLog: RequestLog, err: unknown, log: (line: string) => void) {
  const mapped = toApiError(err);
  const cancelled = err instanceof ProviderError && err.failure === "canceled";
  const status = cancelled ? CANCELED_STATUS : mapped instanceof ApiError ? mapped.status : 500;
  const errorCode = cancelled ? "canceled" : mapped instanceof ApiError ? mapped.code : "internal_error";
  try {
    await release(db, held, payer.organizationId, { ...requestLog, status, errorCode });
  } catch (releaseErr) {
    // `release` gave the money back before throwing when it could; what is left is the sweeper's.
    log(
      JSON.stringify({
        level: "error",
        msg: "request log of a failed call not written",
        holdId: held?.id ?? null,
        ...errorFields(releaseErr),
      }),
    );
  }
}

/** A Models API request: the payer is the request's credential. */
export async function metered<T>(c: Context<AppEnv>, call: MeteredCall, run: (signal: AbortSignal) => Promise<Consumed<T>>): Promise<T> {
  const payer: Payer = {
    organizationId: c.var.auth.organizationId,
    apiKeyId: c.var.auth.apiKeyId ?? null,
    method: c.req.method,
    endpoint: new URL(c.req.url).pathname,
  };
  try {
    // The answer does not wait for its settlement (the request scope finishes it after the response).
    return await meter(c.var.db, payer, call, run, c.var.defer);
  } catch (err) {
    throw toApiError(err);
  }
}
