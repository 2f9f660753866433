// The database side of cursor pagination: a page's where-conditions on a table (newest first,
// after the cursor's id, within `createdAfter` / `createdBefore`). The API side (the query
// schema, the page shape, the cursor encoding, `pageOf`) is src/lib/pagination.ts.
import { gt, lt, type SQL } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import { decodeCursor, type PageParams } from "../lib/pagination";

export interface PageQuery {
  limit: number;
  /** Conditions on a table with `id` (uuid v7) and `createdAt` columns. */
  where(table: { id: PgColumn; createdAt: PgColumn }): SQL[];
}

export function pageQuery(params: PageParams): PageQuery {
  const afterId = params.cursor ? decodeCursor(params.cursor) : undefined;
  return {
    limit: params.limit,
    where(table) {
      const conditions: SQL[] = [];
      if (afterId) conditions.push(lt(table.id, afterId));
      if (params.createdAfter) conditions.push(gt(table.createdAt, new Date(params.createdAfter)));
      if (params.createdBefore) conditions.push(lt(table.createdAt, new Date(params.createdBefore)));
      return conditions;
    },
  };
}
