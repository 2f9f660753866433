// Tenancy in one rule: every query of an organization's resource is scoped by the organization the
// credential resolved to (DESIGN.md, "Decisions that hold everywhere"). Query modules build their
// where-clauses from these two helpers rather than writing the organization condition by hand, so
// another workspace's id matches no row and answers exactly like a missing one.
import { and, type Column, eq, type SQL } from "drizzle-orm";

/** The organization's rows of `table`. */
export const ownedBy = (table: { organizationId: Column }, organizationId: string): SQL => eq(table.organizationId, organizationId);

/** One row of the organization's, by id (no row when the id is another organization's). */
export const ownedRow = (table: { id: Column; organizationId: Column }, organizationId: string, id: string): SQL =>
  and(eq(table.id, id), eq(table.organizationId, organizationId)) as SQL;
