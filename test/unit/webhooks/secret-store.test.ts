// The endpoint signing key an isolate keeps (src/webhooks/secret-store.ts endpointSigningKey): it
// signs exactly as the secret does, is opened once per sealed value, never signs for a rotated
// secret, and a secret that does not open is tried again rather than kept.
import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Keyring } from "../../../src/lib/secrets";
import { endpointSigningKey, sealEndpointSecret } from "../../../src/webhooks/secret-store";
import { signPayload } from "../../../src/webhooks/signature";
import { stripeAccepts } from "../../support/stripe";

const kek = () => `k1:${randomBytes(32).toString("base64")}`;
const id = "0193a5e0-0000-7000-8000-000000000001";
const body = JSON.stringify({ deliveryId: "d1", event: "call.completed", text: "héllo ✓" });

afterEach(() => vi.restoreAllMocks());

describe("an endpoint's signing key", () => {
  it("signs as its secret does (Stripe's verifier accepts it), and is opened once per sealed value", async () => {
    const keys = { SECRETS_KEK: new Keyring(kek()) };
    const secret = "whs_0123456789abcdefghijABCDEFGHIJ0123456789";
    const endpoint = { id, secret: await sealEndpointSecret(keys, id, secret) };
    const decrypt = vi.spyOn(crypto.subtle, "decrypt");
    const first = endpointSigningKey(keys, endpoint);
    const second = endpointSigningKey(keys, { ...endpoint });
    expect(second).toBe(first);
    const t = 1_780_000_000;
    expect(await signPayload(await first, body, t)).toBe(await signPayload(secret, body, t));
    expect(stripeAccepts(body, await signPayload(await first, body), secret)).toBe(true);
    expect(decrypt).toHaveBeenCalledTimes(1);
  });

  it("signs with the new secret after a rotation, never the old one", async () => {
    const keys = { SECRETS_KEK: new Keyring(kek()) };
    const old = "whs_oldoldoldoldoldoldoldoldoldoldoldoldold";
    const fresh = "whs_newnewnewnewnewnewnewnewnewnewnewnewnew";
    await endpointSigningKey(keys, { id, secret: await sealEndpointSecret(keys, id, old) });
    const header = await signPayload(await endpointSigningKey(keys, { id, secret: await sealEndpointSecret(keys, id, fresh) }), body);
    expect(stripeAccepts(body, header, fresh)).toBe(true);
    expect(stripeAccepts(body, header, old)).toBe(false);
  });

  it("is not kept when the secret does not open: each attempt fails on its own, and none signs", async () => {
    const sealedWith = { SECRETS_KEK: new Keyring(kek()) };
    const other = { SECRETS_KEK: new Keyring(`k2:${randomBytes(32).toString("base64")}`) };
    const endpoint = { id, secret: await sealEndpointSecret(sealedWith, id, "whs_0123456789abcdefghijABCDEFGHIJ0123456789") };
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    const first = endpointSigningKey(other, endpoint);
    await expect(first).rejects.toThrow();
    const second = endpointSigningKey(other, endpoint);
    expect(second).not.toBe(first);
    await expect(second).rejects.toThrow();
    // The same sealed value under the keyring that sealed it opens: keys are kept per keyring.
    expect(await endpointSigningKey(sealedWith, endpoint)).toBeDefined();
  });
});
