// Ids (src/lib/ids.ts): new ones are UUID v7; idAt makes one of a given moment, which sorts by it;
// firstIdAt is the least of a moment (a bound for range scans).
import { describe, expect, it } from "vitest";
import { firstIdAt, idAt, isUuid, newId } from "../../../src/lib/ids";

describe("ids", () => {
  it("idAt carries the moment in its first 48 bits, is a v7 UUID, and sorts by time like new ids", () => {
    const at = Date.UTC(2026, 2, 1, 10, 0, 0, 123);
    const id = idAt(at);
    expect(isUuid(id)).toBe(true);
    expect(id[14]).toBe("7"); // the version
    expect(Number.parseInt(id.replace(/-/g, "").slice(0, 12), 16)).toBe(at);
    expect(idAt(at + 1) > id).toBe(true);
    expect(idAt(Date.now() - 60_000) < newId()).toBe(true);
    expect(idAt(at)).not.toBe(id); // the rest stays random
  });

  it("firstIdAt is the least id of its moment: at or below every id made then, above every id made before", () => {
    const at = Date.UTC(2026, 2, 1, 10, 0, 0, 123);
    const first = firstIdAt(at);
    expect(isUuid(first)).toBe(true);
    for (let i = 0; i < 50; i++) {
      expect(idAt(at) > first).toBe(true);
      expect(idAt(at - 1) < first).toBe(true);
    }
    expect(firstIdAt(Date.now() - 1_000) < newId()).toBe(true);
  });
});
