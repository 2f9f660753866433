// The queries over a column of sealed secrets (src/webhooks/secret-store.ts reseals them and
// reports their keys): any column, the webhook endpoints', the agents' tools' or the messaging
// channels', so the column is described by a SealedColumn rather than named. An organization
// narrows a run to one workspace, scoped with src/db/tenancy.ts.
import { and, count, eq, getTableColumns, gt, isNotNull, sql } from "drizzle-orm";
import type { PgColumn, PgTable } from "drizzle-orm/pg-core";
import type { Db } from "../../db/client";
import { ownedBy } from "../../db/tenancy";

/**
 * A text column whose values are secrets sealed with SECRETS_KEK, one per row, each bound to its
 * row: sealed with the additional data `<place>:<row id>`, as sealSecret/openSecret take it.
 */
export interface SealedColumn {
  /** `table.column`, e.g. `webhook_endpoints.secret`: what the reports and errors name. */
  place: string;
  table: PgTable;
  id: PgColumn;
  /** The sealed value (or a legacy plaintext one); rows where it is null are skipped. */
  value: PgColumn;
  organizationId: PgColumn;
}

/** Every stored value of a column (of one workspace), a page at a time in id order. */
export async function* storedValues(
  db: Db,
  column: SealedColumn,
  opts: { organizationId?: string; pageSize?: number },
): AsyncGenerator<{ id: string; value: string }> {
  const pageSize = opts.pageSize ?? 200;
  let after: string | undefined;
  for (;;) {
    const rows = (await db
      .select({ id: column.id, value: column.value })
      .from(column.table)
      .where(
        and(
          isNotNull(column.value),
          opts.organizationId ? ownedBy(column, opts.organizationId) : undefined,
          after ? gt(column.id, after) : undefined,
        ),
      )
      .orderBy(column.id)
      .limit(pageSize)) as Array<{ id: string; value: string }>;
    yield* rows;
    if (rows.length < pageSize) return;
    after = rows[rows.length - 1]?.id;
  }
}

/**
 * Writes a row's value anew only if it still holds the value read (a concurrent rotation wins):
 * true when it did. Made once per column; a column that is not one of its table's throws here.
 */
export function sealedValueWriter(column: SealedColumn): (db: Db, id: string, read: string, value: string) => Promise<boolean> {
  // `set` takes the table's property name of the column, not its SQL name.
  const key = Object.entries(getTableColumns(column.table)).find(([, c]) => c === column.value)?.[0];
  if (!key) throw new Error(`${column.place}: the column is not one of its table's`);
  return async (db, id, read, value) => {
    const updated = await db
      .update(column.table)
      .set({ [key]: value })
      .where(and(eq(column.id, id), eq(column.value, read)))
      .returning({ id: column.id });
    return updated.length > 0;
  };
}

/** How many stored values of a column (of one workspace) each key id seals; `plaintext` for those not sealed. */
export async function countByKid(db: Db, column: SealedColumn, organizationId?: string): Promise<Array<{ kid: string; n: number }>> {
  const kid = sql<string>`case when ${column.value} like 'v1:%' then split_part(${column.value}, ':', 2) else 'plaintext' end`;
  return db
    .select({ kid, n: count() })
    .from(column.table)
    .where(and(isNotNull(column.value), organizationId ? ownedBy(column, organizationId) : undefined))
    .groupBy(kid);
}
