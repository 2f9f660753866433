import { bigint, index, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { organizations } from "./organizations";
import { id } from "./util";

/**
 * An open hold (docs/models.md, "Holds"): the upper bound of a metered call's cost, taken from
 * the balance before the provider is called. Settling or releasing deletes the row in the same
 * statement that returns the money, so a row here is money in flight; the scheduled handler
 * releases rows older than the longest a provider call may take (their worker died before it
 * could settle; `sweepExpiredHolds`).
 */
export const creditHolds = pgTable(
  "credit_holds",
  {
    id: id(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    amountMicro: bigint("amount_micro", { mode: "number" }).notNull(),
    /** What the hold is for (modality and model), for the operator who reads a swept hold. */
    purpose: text("purpose").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date", precision: 3 }).notNull().defaultNow(),
  },
  (t) => [index("credit_holds_created_idx").on(t.createdAt), index("credit_holds_org_idx").on(t.organizationId)],
);

/**
 * Every change of a workspace's balance that is not usage: the starting credits and each
 * operator adjustment (a reset is recorded as the difference it made). With it the books
 * close: credits + open holds + charged usage = the sum of grants (`reconcileCredits`).
 */
export const creditGrants = pgTable(
  "credit_grants",
  {
    id: id(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    amountMicro: bigint("amount_micro", { mode: "number" }).notNull(),
    reason: text("reason").$type<"initial" | "top_up" | "reset" | "opening_balance">().notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date", precision: 3 }).notNull().defaultNow(),
  },
  (t) => [index("credit_grants_org_idx").on(t.organizationId)],
);

export type CreditHold = typeof creditHolds.$inferSelect;
