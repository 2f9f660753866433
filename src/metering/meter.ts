// Metering (spec: Limits 1-2). A Models call holds an upper bound of its cost before the
// provider is called (402 when the workspace cannot cover it), then either settles the exact
// cost, refunding the rest, or releases the whole hold when the call fails. Each step is one
// SQL statement, and the settlement writes the request log row in the same statement, so a
// successful call is charged exactly once and the balance never goes below zero.
import { and, eq, gte, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { organizations, usageEvents } from "../db/schema";
import { ApiError } from "../lib/errors";
import { newId } from "../lib/ids";
import { type Modality, toCredits } from "./prices";

export interface Hold {
  organizationId: string;
  amountMicro: number;
}

export interface RequestLog {
  apiKeyId: string | null;
  callId?: string;
  method: string;
  endpoint: string;
  modality: Modality;
  provider: string;
  model: string;
  latencyMs: number;
}

const UNITS = { chat: "tokens", tts: "characters", stt: "audio_ms" } as const;

export async function hold(db: Db, organizationId: string, amountMicro: number): Promise<Hold> {
  const [row] = await db
    .update(organizations)
    .set({ creditsMicro: sql`${organizations.creditsMicro} - ${amountMicro}` })
    .where(and(eq(organizations.id, organizationId), gte(organizations.creditsMicro, amountMicro)))
    .returning({ left: organizations.creditsMicro });
  if (row) return { organizationId, amountMicro };
  const [org] = await db.select({ credits: organizations.creditsMicro }).from(organizations).where(eq(organizations.id, organizationId));
  throw new ApiError(
    "insufficient_credits",
    `This call may cost up to ${toCredits(amountMicro)} credits and the workspace has ${toCredits(org?.credits ?? 0)}. Nothing was charged; add credits to continue.`,
  );
}

/** Operator top-up or reset (`npm run admin -- credits …`): returns the new balance in micro-credits. */
export async function adjustCredits(
  db: Db,
  organizationId: string,
  change: { addMicro: number } | { setMicro: number },
): Promise<number | null> {
  const value = "addMicro" in change ? sql`${organizations.creditsMicro} + ${change.addMicro}` : sql`${change.setMicro}`;
  const [row] = await db
    .update(organizations)
    .set({ creditsMicro: value })
    .where(eq(organizations.id, organizationId))
    .returning({ micro: organizations.creditsMicro });
  return row ? Number(row.micro) : null;
}

/** Gives `amountMicro` of a hold back, as a CTE of the statement that logs the request. */
const refund = (db: Db, held: Hold, amountMicro: number) =>
  db.$with("refund").as(
    db
      .update(organizations)
      .set({ creditsMicro: sql`${organizations.creditsMicro} + ${amountMicro}` })
      .where(eq(organizations.id, held.organizationId))
      .returning({ id: organizations.id }),
  );

/** Success: charge `costMicro` (at most the hold), refund the rest, and log the request. */
export async function settle(
  db: Db,
  held: Hold,
  log: RequestLog & { status: number; quantity: number; costMicro: number; promptTokens?: number; completionTokens?: number },
): Promise<number> {
  const charged = Math.min(log.costMicro, held.amountMicro);
  await db
    .with(refund(db, held, held.amountMicro - charged))
    .insert(usageEvents)
    .values({
      id: newId(),
      organizationId: held.organizationId,
      apiKeyId: log.apiKeyId,
      callId: log.callId ?? null,
      method: log.method,
      endpoint: log.endpoint,
      modality: log.modality,
      provider: log.provider,
      model: log.model,
      status: log.status,
      latencyMs: log.latencyMs,
      unit: UNITS[log.modality],
      quantity: log.quantity,
      promptTokens: log.promptTokens ?? null,
      completionTokens: log.completionTokens ?? null,
      costMicro: charged,
    });
  return charged;
}

/** Failure: refund the whole hold and log the request with its status; nothing is charged. */
export async function release(
  db: Db,
  held: Hold | null,
  organizationId: string,
  log: RequestLog & { status: number; errorCode: string },
): Promise<void> {
  const values = {
    id: newId(),
    organizationId,
    apiKeyId: log.apiKeyId,
    callId: log.callId ?? null,
    method: log.method,
    endpoint: log.endpoint,
    modality: log.modality,
    provider: log.provider,
    model: log.model,
    status: log.status,
    errorCode: log.errorCode,
    latencyMs: log.latencyMs,
    unit: UNITS[log.modality],
    quantity: 0,
    costMicro: 0,
  };
  if (!held) {
    await db.insert(usageEvents).values(values);
    return;
  }
  await db
    .with(refund(db, held, held.amountMicro))
    .insert(usageEvents)
    .values(values);
}
