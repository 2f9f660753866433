// Cursor pagination for every list: `limit` (1..100, default 20), an opaque `cursor`, and
// `createdAfter` / `createdBefore` (instants Postgres can store: years 0001 to 9999, so an
// out-of-range filter is a 400, not a database error); newest first. Ids are UUID v7, so ordering by id is
// ordering by creation, and the cursor is the last id seen (base64url, opaque to clients).
// This module is the API side (the query schema, the page shape, the cursor encoding); the
// database side, a page's where-conditions (`pageQuery`), is src/db/pagination.ts.
import { z } from "@hono/zod-openapi";
import { ApiError } from "./errors";
import { instant } from "./fields";
import { isUuid } from "./ids";

export const pageQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20).openapi({ description: "Page size, 1 to 100.", example: 20 }),
  cursor: z.string().max(200).optional().openapi({ description: "`nextCursor` of the previous page." }),
  createdAfter: instant().optional().openapi({ description: "Only items created after this instant (ISO 8601, years 0001 to 9999)." }),
  createdBefore: instant().optional().openapi({ description: "Only items created before this instant (ISO 8601, years 0001 to 9999)." }),
});

export type PageParams = z.infer<typeof pageQuerySchema>;

export const pageSchema = <T extends z.ZodType>(item: T, name: string) =>
  z
    .object({
      data: z.array(item),
      nextCursor: z.string().nullable().openapi({ description: "Pass as `cursor` to get the next page; null on the last page." }),
      hasMore: z.boolean(),
    })
    .openapi(name);

export interface Page<T> {
  data: T[];
  nextCursor: string | null;
  hasMore: boolean;
}

const encodeCursor = (id: string) => btoa(JSON.stringify({ id })).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

/** The id a cursor of ours carries; 400 bad_request for any other string. */
export function decodeCursor(cursor: string): string {
  try {
    const json = atob(cursor.replace(/-/g, "+").replace(/_/g, "/"));
    const { id } = JSON.parse(json) as { id?: unknown };
    if (typeof id === "string" && isUuid(id)) return id;
  } catch {
    // fall through to the error below
  }
  throw new ApiError("bad_request", "The cursor is not valid. Use the nextCursor of a previous page, unchanged.");
}

/** Turns `limit + 1` rows fetched newest-first into a page. */
export function pageOf<Row extends { id: string }, T>(rows: Row[], limit: number, map: (row: Row) => T): Page<T> {
  const hasMore = rows.length > limit;
  const kept = hasMore ? rows.slice(0, limit) : rows;
  const last = kept[kept.length - 1];
  return { data: kept.map(map), nextCursor: hasMore && last ? encodeCursor(last.id) : null, hasMore };
}
