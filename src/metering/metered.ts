// The one path every metered provider call takes (the Models API and live calls): hold, call
// the provider, settle, or release. 402 and provider failures are logged too (status and
// code), never charged.
import type { Context } from "hono";
import type { AppEnv } from "../context";
import type { Db } from "../db/client";
import { ApiError } from "../lib/errors";
import { toApiError } from "../providers/http";
import { hold, release, settle } from "./meter";
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
}

/**
 * Holds, runs, settles. `settleInBackground` lets a live call go on speaking while the
 * settlement is written (its failure is logged by the caller's scope, the charge is still exact).
 */
export async function meter<T>(
  db: Db,
  payer: Payer,
  call: MeteredCall,
  run: () => Promise<Consumed<T>>,
  settleInBackground?: (work: Promise<unknown>) => void,
): Promise<T> {
  const started = Date.now();
  const log = () => ({
    apiKeyId: payer.apiKeyId,
    method: payer.method,
    endpoint: payer.endpoint,
    callId: payer.callId,
    modality: call.modality,
    provider: call.provider,
    model: call.model,
    latencyMs: Date.now() - started,
  });
  let held: Awaited<ReturnType<typeof hold>> | null = null;
  try {
    held = await hold(db, payer.organizationId, costOf(call.modality, call.model, call.maxQuantity));
    const consumed = await run();
    const settling = settle(db, held, {
      ...log(),
      status: 200,
      quantity: consumed.quantity,
      costMicro: costOf(call.modality, call.model, consumed.quantity),
      promptTokens: consumed.promptTokens,
      completionTokens: consumed.completionTokens,
    });
    if (settleInBackground) settleInBackground(settling);
    else await settling;
    return consumed.result;
  } catch (err) {
    const mapped = toApiError(err);
    const status = mapped instanceof ApiError ? mapped.status : 500;
    const errorCode = mapped instanceof ApiError ? mapped.code : "internal_error";
    await release(db, held, payer.organizationId, { ...log(), status, errorCode }).catch(() => undefined);
    throw err;
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
    return await meter(c.var.db, payer, call, run);
  } catch (err) {
    throw toApiError(err);
  }
}
