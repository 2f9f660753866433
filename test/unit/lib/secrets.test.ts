// Secrets at rest (src/lib/secrets.ts): AES-256-GCM under SECRETS_KEK, key id stored with the
// value, several keys to open and one to seal, and every failure a clear `misconfigured` that
// names the key id and never the secret or the key.
import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiError } from "../../../src/lib/errors";
import { isSealed, Keyring, KeyringError, openSecret, sealedKid, sealSecret } from "../../../src/lib/secrets";

const key = () => randomBytes(32).toString("base64");
const secret = "whs_0123456789abcdefghijABCDEFGHIJklmnopqrst";
const place = "webhook_endpoints.secret:0193a5e0-0000-7000-8000-000000000001";

afterEach(() => vi.restoreAllMocks());

/** The ApiError an open fails with; console.error (the operator's log line) captured. */
async function openFailure(keyring: Keyring, stored: string, context = place) {
  const logged: string[] = [];
  vi.spyOn(console, "error").mockImplementation((line: string) => logged.push(line));
  try {
    await openSecret(keyring, stored, context);
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    const e = err as ApiError;
    expect(e.code).toBe("misconfigured");
    expect(e.status).toBe(500);
    expect(e.message).not.toContain(secret);
    expect(logged.join("\n")).not.toContain(secret);
    expect(logged.join("\n")).toContain(e.message.slice(0, 30));
    return e;
  }
  throw new Error("the value opened");
}

/** Replaces one character of a base64url string with another. */
const flip = (s: string, at: number) => s.slice(0, at) + (s[at] === "A" ? "B" : "A") + s.slice(at + 1);

describe("sealing secrets (AES-256-GCM)", () => {
  it("seals as v1:<kid>:<iv>:<ciphertext>, never the secret itself, a fresh IV each time, and opens back", async () => {
    const keyring = new Keyring(`k1:${key()}`);
    const a = await sealSecret(keyring, secret, place);
    const b = await sealSecret(keyring, secret, place);
    expect(a).toMatch(/^v1:k1:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]+$/);
    expect(a).not.toContain(secret);
    expect(a).not.toContain(secret.slice(4, 14));
    expect(a).not.toBe(b);
    expect(isSealed(a)).toBe(true);
    expect(sealedKid(a)).toBe("k1");
    expect(await openSecret(keyring, a, place)).toBe(secret);
    expect(await openSecret(keyring, b, place)).toBe(secret);
  });

  it("opens a legacy plaintext value as itself", async () => {
    expect(isSealed(secret)).toBe(false);
    expect(await openSecret(new Keyring(`k1:${key()}`), secret, place)).toBe(secret);
  });

  it("rejects a tampered ciphertext, IV or tag", async () => {
    const keyring = new Keyring(`k1:${key()}`);
    const sealed = await sealSecret(keyring, secret, place);
    const [v, kid, iv = "", data = ""] = sealed.split(":");
    for (const tampered of [
      [v, kid, iv, flip(data, 3)].join(":"),
      [v, kid, iv, flip(data, data.length - 2)].join(":"), // the tag
      [v, kid, flip(iv, 0), data].join(":"),
      [v, kid, iv, data.slice(0, -4)].join(":"),
    ]) {
      const e = await openFailure(keyring, tampered);
      expect(e.message).toMatch(/does not open with the key "k1" of SECRETS_KEK: .*altered/);
    }
  });

  it("rejects a value moved to another row (the additional data binds it to its place)", async () => {
    const keyring = new Keyring(`k1:${key()}`);
    const sealed = await sealSecret(keyring, secret, place);
    await openFailure(keyring, sealed, "webhook_endpoints.secret:0193a5e0-0000-7000-8000-000000000002");
  });

  it("rejects a malformed sealed value", async () => {
    const keyring = new Keyring(`k1:${key()}`);
    for (const bad of ["v1:k1", "v1:k1:!!:??", "v1:k1:AAAA:AAAA", `v1:k1:${"A".repeat(16)}:${"A".repeat(30)}:extra`]) {
      expect((await openFailure(keyring, bad)).message).toMatch(/not a well-formed sealed value/);
    }
  });

  it("a wrong key fails clearly: an unknown key id is named, a different key under the same id is said so", async () => {
    const sealed = await sealSecret(new Keyring(`k1:${key()}`), secret, place);
    const unknown = await openFailure(new Keyring(`k2:${key()}`), sealed);
    expect(unknown.message).toBe(
      'A stored secret (webhook_endpoints.secret) is sealed with key id "k1", which SECRETS_KEK does not hold (it holds "k2"). Add that key back to SECRETS_KEK.',
    );
    const other = await openFailure(new Keyring(`k1:${key()}`), sealed);
    expect(other.message).toContain('does not open with the key "k1" of SECRETS_KEK: the key is not the one it was sealed with');
  });

  it("rotation: the first key seals, every listed key opens", async () => {
    const oldKey = `old:${key()}`;
    const sealedOld = await sealSecret(new Keyring(oldKey), secret, place);
    const rotated = new Keyring(`new:${key()}, ${oldKey}`);
    expect(rotated.current).toBe("new");
    expect(rotated.kids).toEqual(["new", "old"]);
    expect(await openSecret(rotated, sealedOld, place)).toBe(secret);
    const sealedNew = await sealSecret(rotated, secret, place);
    expect(sealedKid(sealedNew)).toBe("new");
    // The old key alone no longer opens what the new one sealed.
    expect((await openFailure(new Keyring(oldKey), sealedNew)).message).toContain('key id "new"');
  });
});

describe("SECRETS_KEK parsing", () => {
  const material = key();
  it.each([
    ["", /holds no key/],
    [material, /entry 1: the key id/],
    [`:${material}`, /entry 1: the key id/],
    [`bad kid:${material}`, /entry 1: the key id/],
    ["k1:c2hvcnQ=", /key "k1": expected base64 of exactly 32 bytes/],
    [`k1:${material}x`, /key "k1": expected base64/],
    [`k1:${material},k2:${randomBytes(16).toString("base64")}`, /key "k2": expected base64 of exactly 32 bytes/],
    [`k1:${material},k1:${key()}`, /names the key id "k1" twice/],
  ])("refuses %j", (spec, message) => {
    let thrown: unknown;
    try {
      new Keyring(spec);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(KeyringError);
    expect((thrown as Error).message).toMatch(message);
    expect((thrown as Error).message).not.toContain(material);
  });

  it("accepts base64 and base64url keys, and never shows key material when serialised", () => {
    const raw = randomBytes(32);
    const keyring = new Keyring(`a:${raw.toString("base64")},b:${raw.toString("base64url")}`);
    expect(keyring.kids).toEqual(["a", "b"]);
    expect(JSON.stringify({ SECRETS_KEK: keyring })).toBe('{"SECRETS_KEK":"Keyring(a,b)"}');
    expect(String(Object.values(keyring))).not.toContain(raw.toString("base64"));
  });
});
