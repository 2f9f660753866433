// The one path every Models call takes: hold, call the provider, settle, or release and answer
// in our error body. 402 and provider failures are logged too (status and code), never charged.
import type { Context } from "hono";
import type { AppEnv } from "../context";
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

export async function metered<T>(c: Context<AppEnv>, call: MeteredCall, run: () => Promise<Consumed<T>>): Promise<T> {
  const { db, auth } = c.var;
  const started = Date.now();
  const log = () => ({
    apiKeyId: auth.apiKeyId ?? null,
    method: c.req.method,
    endpoint: new URL(c.req.url).pathname,
    modality: call.modality,
    provider: call.provider,
    model: call.model,
    latencyMs: Date.now() - started,
  });
  let held: Awaited<ReturnType<typeof hold>> | null = null;
  try {
    held = await hold(db, auth.organizationId, costOf(call.modality, call.model, call.maxQuantity));
    const consumed = await run();
    await settle(db, held, {
      ...log(),
      status: 200,
      quantity: consumed.quantity,
      costMicro: costOf(call.modality, call.model, consumed.quantity),
      promptTokens: consumed.promptTokens,
      completionTokens: consumed.completionTokens,
    });
    return consumed.result;
  } catch (err) {
    const mapped = toApiError(err);
    const status = mapped instanceof ApiError ? mapped.status : 500;
    const errorCode = mapped instanceof ApiError ? mapped.code : "internal_error";
    await release(db, held, auth.organizationId, { ...log(), status, errorCode }).catch(() => undefined);
    throw mapped;
  }
}
