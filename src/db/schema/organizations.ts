import { bigint, pgTable, text } from "drizzle-orm/pg-core";
import { id, timestamps } from "./util";

/** What a new workspace starts with, in micro-credits (10 credits); its `initial` grant says the same. */
export const INITIAL_CREDITS_MICRO = 10_000_000;

export const organizations = pgTable("organizations", {
  id: id(),
  name: text("name").notNull(),
  /**
   * Usage credits in micro-credits (1 credit = 1,000,000). Models calls hold an upper bound
   * before calling the provider and settle the exact cost after; it never goes below zero.
   */
  creditsMicro: bigint("credits_micro", { mode: "number" }).notNull().default(INITIAL_CREDITS_MICRO),
  ...timestamps,
});

export type Organization = typeof organizations.$inferSelect;
