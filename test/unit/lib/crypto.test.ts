import { describe, expect, it } from "vitest";
import { hashPassword, randomBase62, sha256Hex, timingSafeEqual, verifyPassword } from "../../../src/lib/crypto";

describe("crypto helpers", () => {
  it("hashes with SHA-256 as hex", async () => {
    expect(await sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });

  it("makes random base62 strings of the asked length, all different", () => {
    const seen = new Set(Array.from({ length: 200 }, () => randomBase62(40)));
    expect(seen.size).toBe(200);
    for (const s of seen) expect(s).toMatch(/^[0-9A-Za-z]{40}$/);
  });

  it("verifies a password only against its own salted hash", async () => {
    const stored = await hashPassword("correct horse ✓");
    expect(stored).toMatch(/^pbkdf2-sha256\$100000\$/);
    expect(await verifyPassword("correct horse ✓", stored)).toBe(true);
    expect(await verifyPassword("correct horse", stored)).toBe(false);
    expect(await hashPassword("correct horse ✓")).not.toBe(stored);
    expect(await verifyPassword("x", "garbage")).toBe(false);
  });

  it("compares bytes in constant time, including different lengths", () => {
    const b = (s: string) => new TextEncoder().encode(s);
    expect(timingSafeEqual(b("abc"), b("abc"))).toBe(true);
    expect(timingSafeEqual(b("abc"), b("abd"))).toBe(false);
    expect(timingSafeEqual(b("abc"), b("abcd"))).toBe(false);
  });
});
