import { bigint, integer, pgTable, text } from "drizzle-orm/pg-core";
import { id, timestamps } from "./util";

/** What a new workspace starts with, in micro-credits (10 credits); its `initial` grant says the same. */
export const INITIAL_CREDITS_MICRO = 10_000_000;

/** The calls a new workspace may have in flight at once (Retell's and Vapi's starting concurrency is of this order). */
export const DEFAULT_MAX_CALLS_IN_FLIGHT = 20;

export const organizations = pgTable("organizations", {
  id: id(),
  name: text("name").notNull(),
  /**
   * Usage credits in micro-credits (1 credit = 1,000,000). Models calls hold an upper bound
   * before calling the provider and settle the exact cost after; it never goes below zero.
   */
  creditsMicro: bigint("credits_micro", { mode: "number" }).notNull().default(INITIAL_CREDITS_MICRO),
  /**
   * Calls in flight (queued, ringing or in progress: phone, web and inbound alike) and the most the
   * workspace may have at once. The count is kept by the calls table's triggers (migration 0024): a
   * new call that would pass the limit is refused in the same statement that inserts it, and a call
   * that ends gives its place back in the statement that ends it (docs/campaigns.md, "Calls in flight").
   */
  callsInFlight: integer("calls_in_flight").notNull().default(0),
  maxCallsInFlight: integer("max_calls_in_flight").notNull().default(DEFAULT_MAX_CALLS_IN_FLIGHT),
  ...timestamps,
});

export type Organization = typeof organizations.$inferSelect;
