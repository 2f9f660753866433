// What a provider's delivery becomes before it is stored (docs/messaging.md, "What a delivery may
// look like"): the conversation messages in it, and what in it did not match the provider's
// published format. An authenticated delivery is never refused for its shape (the provider would
// retry it, and Telegram holds back the chat's later updates meanwhile): what cannot be used is
// dropped, or kept as unsupported when it is known whose conversation it belongs to.
import { z } from "zod";
import type { InboundMessage } from "../db/schema";

export interface ParsedInbound {
  /** The provider's id, unique per channel: a redelivery is dropped at the insert. */
  externalId: string;
  /** Order within the conversation (a bigint column): Telegram's update_id, WhatsApp's timestamp in ms. */
  seq: number;
  endUserId: string;
  message: InboundMessage;
}

export interface InboundDelivery {
  messages: ParsedInbound[];
  /** Where the delivery departs from the provider's format (paths and expectations, never values): logged. */
  problems: string[];
}

/** 9999-12-31T23:59:59Z: the last second an ISO 8601 timestamp with a four-digit year holds. */
export const MAX_UNIX_SECONDS = 253_402_300_799;
/** Unix time in seconds, as both providers send it, within what a timestamp and `sentAt` hold. */
export const unixSeconds = z.int().min(0).max(MAX_UNIX_SECONDS);

/** A message of a known conversation that does not match the format: kept as `[message]`, stamped when it arrived. */
export const unreadable = (userName: string | undefined): InboundMessage => ({
  kind: "unsupported",
  type: "message",
  userName,
  sentAt: new Date().toISOString(),
});

/** A zod failure as a problem line: where (`message.date`) and what was expected; never the value. */
export function problemOf(error: z.ZodError, at: string): string {
  const issue = error.issues[0];
  const path = [at, ...(issue?.path ?? []).map(String)].filter(Boolean).join(".");
  return `${path || "(body)"}: ${issue?.message ?? "invalid"}`;
}

/**
 * Every string of a parsed delivery (keys too) as Postgres can store it: NUL removed, lone
 * surrogates replaced (U+FFFD). The input guard refuses such text elsewhere; a provider's
 * authenticated delivery is taken as it can be instead (a 400 would be retried into a stall).
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export function storable(value: unknown): unknown {
  if (typeof value === "string") return value.replaceAll("\u0000", "").replace(LONE_SURROGATE, "\uFFFD");
  if (Array.isArray(value)) return value.map(storable);
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [storable(k) as string, storable(v)]));
  return value;
}
