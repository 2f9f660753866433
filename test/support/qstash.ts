// QStash's side of its callbacks, for tests that call them as QStash would (or as a forger would):
// an Upstash-Signature made like QStash's, and the headers QStash sends with a call.
import { createHash } from "node:crypto";
import { SignJWT } from "jose";
import { newId } from "../../src/lib/ids";

/**
 * An Upstash-Signature as QStash makes it: HS256, iss Upstash, sub = URL, body = base64url(SHA-256(body)),
 * a fresh jti (`null`: none) and exp 5 minutes on (`expiresIn: null`: none).
 */
export function qstashJwt(
  key: string,
  o: { sub: string; body: string; bodyHash?: string; issuedAt?: number; expiresIn?: number | null; jti?: string | null },
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const jwt = new SignJWT({ body: o.bodyHash ?? createHash("sha256").update(o.body).digest("base64url") })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuer("Upstash")
    .setSubject(o.sub)
    .setIssuedAt(now + (o.issuedAt ?? 0))
    .setNotBefore(now + (o.issuedAt ?? 0));
  if (o.expiresIn !== null) jwt.setExpirationTime(now + (o.expiresIn ?? 300));
  if (o.jti !== null) jwt.setJti(o.jti ?? `jwt_${newId()}`);
  return jwt.sign(new TextEncoder().encode(key));
}

/** QStash's headers for call `retried` of message `messageId`. */
export const qstashHeaders = (messageId: string, retried: number) => ({
  "upstash-message-id": messageId,
  "upstash-retried": String(retried),
});
