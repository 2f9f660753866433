// Delivery signatures (spec: Events → Signature): `X-Service-Signature: t=<unix>,v1=<hex>`
// where hex = HMAC-SHA256(secret, `${t}.${rawBody}`). The same scheme as Stripe's, so Stripe's
// verifier accepts it. Signed at attempt time with the endpoint's current secret.
// Receivers verify with Stripe's verifier or the plain-crypto snippet in docs/webhooks.md.
import { hmacSha256Hex as hmacHex } from "../lib/crypto";

/** The header value; `secret` is the secret itself or its HMAC key (hmacSha256Key). */
export async function signPayload(secret: string | CryptoKey, rawBody: string, timestamp = Math.floor(Date.now() / 1000)): Promise<string> {
  return `t=${timestamp},v1=${await hmacHex(secret, `${timestamp}.${rawBody}`)}`;
}
