// The masked tool secret lists show (src/tools/secret.ts maskedToolSecret), kept per isolate by
// src/lib/secrets.ts keptPerSealedValue: opened once per sealed value, only the mask kept, a new
// sealed value (a rotation) opened anew, a value that does not open tried again, at most `limit` kept.
import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Keyring, keptPerSealedValue } from "../../../src/lib/secrets";
import { maskedToolSecret, sealToolSecret } from "../../../src/tools/secret";

const kek = (kid = "k1") => new Keyring(`${kid}:${randomBytes(32).toString("base64")}`);
const agentId = "0193a5e0-0000-7000-8000-0000000000aa";

afterEach(() => vi.restoreAllMocks());

describe("a tool secret as lists show it", () => {
  it("is tss_... and the last six characters, opened once per sealed value; a rotated secret shows its own", async () => {
    const keys = { SECRETS_KEK: kek() };
    const plain = "tss_abcdefghijklmnopqrstuvwxyzABCDEF0123456789";
    const sealed = await sealToolSecret(keys, agentId, plain);
    const decrypt = vi.spyOn(crypto.subtle, "decrypt");
    expect(await maskedToolSecret(keys, agentId, sealed)).toBe("tss_...456789");
    expect(await maskedToolSecret(keys, agentId, sealed)).toBe("tss_...456789");
    expect(decrypt).toHaveBeenCalledTimes(1);
    const rotated = await sealToolSecret(keys, agentId, "tss_zyxwvutsrqponmlkjihgfedcbaZYXWVUTSRQPONM");
    expect(await maskedToolSecret(keys, agentId, rotated)).toBe("tss_...RQPONM");
    expect(decrypt).toHaveBeenCalledTimes(2);
  });

  it("is not shown for a value sealed under another agent's id (the seal is bound to its row)", async () => {
    const keys = { SECRETS_KEK: kek() };
    const sealed = await sealToolSecret(keys, agentId, "tss_abcdefghijklmnopqrstuvwxyzABCDEF0123456789");
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    await expect(maskedToolSecret(keys, "0193a5e0-0000-7000-8000-0000000000bb", sealed)).rejects.toThrow();
  });
});

describe("keptPerSealedValue", () => {
  it("makes a value once per keyring and id, keeps no failure, and keeps at most `limit`", async () => {
    const kept = keptPerSealedValue<number>(2);
    const a = kek();
    const b = kek("k2");
    let made = 0;
    const make = () => Promise.resolve(++made);
    expect(await kept(a, "x", make)).toBe(1);
    expect(await kept(a, "x", make)).toBe(1);
    expect(await kept(b, "x", make)).toBe(2);
    let fail = true;
    const flaky = () => (fail ? Promise.reject(new Error("does not open")) : Promise.resolve(99));
    await expect(kept(a, "y", flaky)).rejects.toThrow("does not open");
    await Promise.resolve();
    fail = false;
    expect(await kept(a, "y", flaky)).toBe(99);
    // a: x and y kept; a third id drops the oldest (x), which is then made again.
    expect(await kept(a, "z", make)).toBe(3);
    expect(await kept(a, "y", make)).toBe(99);
    expect(await kept(a, "x", make)).toBe(4);
  });
});
