// Sizes in messages (src/lib/bytes.ts): the unit that reads best, and exact bytes when a limit and
// what passed it would read the same rounded.
import { describe, expect, it } from "vitest";
import { byteSize, byteSizes } from "../../../src/lib/bytes";

describe("byteSize", () => {
  it("says bytes, KiB or MiB, to one decimal", () => {
    expect([0, 1, 812, 1023].map(byteSize)).toEqual(["0 bytes", "1 byte", "812 bytes", "1023 bytes"]);
    expect([1024, 3500, 6000, 1024 * 1024 - 1].map(byteSize)).toEqual(["1 KiB", "3.4 KiB", "5.9 KiB", "1 MiB"]);
    expect([1024 * 1024, 20 * 1024 * 1024, 500 * 1024 * 1024 + 300_000].map(byteSize)).toEqual(["1 MiB", "20 MiB", "500.3 MiB"]);
  });

  it("compares two sizes in exact bytes when they would read the same", () => {
    expect(byteSizes(4096, 8194)).toEqual(["4 KiB", "8 KiB"]);
    expect(byteSizes(4096, 4097)).toEqual(["4,096 bytes", "4,097 bytes"]);
    expect(byteSizes(20 * 1024 * 1024, 20 * 1024 * 1024 + 10)).toEqual(["20,971,520 bytes", "20,971,530 bytes"]);
  });
});
