import { describe, expect, it } from "vitest";
import { pageQuery } from "../../../src/db/pagination";
import { ApiError } from "../../../src/lib/errors";
import { newId } from "../../../src/lib/ids";
import { pageOf, pageQuerySchema } from "../../../src/lib/pagination";

describe("pagination", () => {
  it("round-trips a cursor and reports hasMore", () => {
    const rows = Array.from({ length: 4 }, () => ({ id: newId() }));
    const page = pageOf(rows, 3, (r) => r.id);
    expect(page.hasMore).toBe(true);
    expect(page.data).toHaveLength(3);
    expect(page.nextCursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(() => pageQuery({ limit: 3, cursor: page.nextCursor ?? "" })).not.toThrow();
    const last = pageOf(rows.slice(0, 2), 3, (r) => r.id);
    expect(last).toEqual({ data: rows.slice(0, 2).map((r) => r.id), nextCursor: null, hasMore: false });
  });

  it("refuses a cursor it did not make", () => {
    for (const cursor of ["nope", btoa(JSON.stringify({ id: "1; drop table" })), "%%%"]) {
      expect(() => pageQuery({ limit: 10, cursor })).toThrow(ApiError);
    }
  });

  it("bounds the limit to 1..100 with a default of 20", () => {
    expect(pageQuerySchema.parse({}).limit).toBe(20);
    expect(pageQuerySchema.safeParse({ limit: "0" }).success).toBe(false);
    expect(pageQuerySchema.safeParse({ limit: "101" }).success).toBe(false);
    expect(pageQuerySchema.safeParse({ limit: "abc" }).success).toBe(false);
    expect(pageQuerySchema.safeParse({ createdAfter: "yesterday" }).success).toBe(false);
  });

  it("makes time-ordered ids", () => {
    const ids = Array.from({ length: 50 }, () => newId());
    expect([...ids].sort()).toEqual(ids);
  });
});
