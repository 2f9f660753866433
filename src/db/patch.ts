// Row patches for UPDATE ... SET: a patch holds plain values or SQL expressions, so a JSON column
// can be merged key by key in the statement itself (`jsonbMerge`) rather than read and rewritten,
// and two concurrent changes of different keys both land.
import { type AnyColumn, type SQL, sql } from "drizzle-orm";

/** The columns of an insert row `Row`, each a value or an SQL expression; absent ones do not change. */
export type RowPatch<Row> = { [K in keyof Row]?: Row[K] | SQL };

/** `column || value::jsonb`: the keys of `value` replace the column's, the others stay. */
export const jsonbMerge = (column: AnyColumn, value: unknown): SQL => sql`${column} || ${JSON.stringify(value)}::jsonb`;
