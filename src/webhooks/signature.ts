// Delivery signatures (spec: Events → Signature): `X-Service-Signature: t=<unix>,v1=<hex>`
// where hex = HMAC-SHA256(secret, `${t}.${rawBody}`). The same scheme as Stripe's, so Stripe's
// verifier accepts it. Signed at attempt time with the endpoint's current secret.
import { timingSafeEqual } from "../lib/crypto";

const encoder = new TextEncoder();

async function hmacHex(secret: string, message: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = await crypto.subtle.sign("HMAC", key, encoder.encode(message));
  return [...new Uint8Array(mac)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export async function signPayload(secret: string, rawBody: string, timestamp = Math.floor(Date.now() / 1000)): Promise<string> {
  return `t=${timestamp},v1=${await hmacHex(secret, `${timestamp}.${rawBody}`)}`;
}

/** The receiver's check, as we recommend it (docs/webhooks.md): tolerance 300 s, constant time. */
export async function verifySignature(
  secret: string,
  rawBody: string,
  header: string,
  toleranceSeconds = 300,
  now = Date.now(),
): Promise<boolean> {
  const parts = Object.fromEntries(header.split(",").map((p) => p.split("=", 2) as [string, string]));
  const t = Number(parts.t);
  if (!Number.isInteger(t) || !parts.v1) return false;
  if (Math.abs(now / 1000 - t) > toleranceSeconds) return false;
  const expected = await hmacHex(secret, `${t}.${rawBody}`);
  return timingSafeEqual(encoder.encode(expected), encoder.encode(parts.v1));
}
