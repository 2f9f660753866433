// The one path every metered provider call takes (the Models API and live calls): hold, call
// the provider, settle, or release. 402 and provider failures are logged too (status and
// code), never charged.
import type { Context } from "hono";
import type { AppEnv } from "../context";
import type { Db } from "../db/client";
import { ApiError } from "../lib/errors";
import { toApiError } from "../providers/http";
import { type Hold, hold, type RequestLog, release, settle } from "./meter";
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
 * Holds, runs, settles. With `settleInBackground` the answer goes out while the settlement is
 * written (live calls keep speaking; the Models API answers without waiting for it). Either
 * way a settlement that fails releases the hold, and a hold that nothing closes (the worker
 * died) is released by the scheduled handler (`sweepExpiredHolds`): no hold outlives its call.
 */
export async function meter<T>(
  db: Db,
  payer: Payer,
  call: MeteredCall,
  run: () => Promise<Consumed<T>>,
  settleInBackground?: (work: Promise<unknown>) => void,
  log: (line: string) => void = console.error,
): Promise<T> {
  const started = Date.now();
  const requestLog = () => ({
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
  let held: Hold | null = null;
  try {
    held = await hold(db, payer.organizationId, costOf(call.modality, call.model, call.maxQuantity), purposeOf(call));
  } catch (err) {
    await logFailure(db, null, payer, requestLog(), err, log);
    throw err;
  }
  let consumed: Consumed<T>;
  try {
    consumed = await run();
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
  const status = mapped instanceof ApiError ? mapped.status : 500;
  const errorCode = mapped instanceof ApiError ? mapped.code : "internal_error";
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
export async function metered<T>(c: Context<AppEnv>, call: MeteredCall, run: () => Promise<Consumed<T>>): Promise<T> {
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
