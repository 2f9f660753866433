// The signature every signed request of the platform carries, webhook deliveries and tool requests
// alike: `X-Service-Signature: t=<unix seconds>,v1=<hex>` where hex is HMAC-SHA256(secret,
// `${t}.${rawBody}`) (docs/webhooks.md; Stripe's scheme). Web Crypto only, so the same code runs
// in Node 20+, Workers, Deno, Bun and Next.js route handlers. The comparison is
// crypto.subtle.verify's, which does not stop at the first differing byte. constructEvent
// (webhooks.ts) and constructToolRequest (tools.ts) both verify with verifySigned.
import { WebhookVerificationError } from "./errors.js";

export const SIGNATURE_HEADER = "x-service-signature";
export const DELIVERY_ID_HEADER = "x-service-delivery-id";
export const DEFAULT_TOLERANCE_SECONDS = 300;

export type RawBody = string | ArrayBuffer | ArrayBufferView;

/**
 * Where the signature comes from: the `X-Service-Signature` value itself, or the request's
 * headers (a fetch `Headers`, or Node's `req.headers`), which also give `X-Service-Delivery-Id`
 * to check against the signed body.
 */
export type SignatureInput =
  | string
  | null
  | undefined
  | { get(name: string): string | null }
  | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** Largest accepted distance between the signature's `t` and now, in seconds. Default 300. */
  toleranceSeconds?: number;
  /** The clock, in ms (for a receiver that replays stored requests). Default Date.now(). */
  now?: number;
}

const encoder = new TextEncoder();

function bodyBytes(raw: RawBody): Uint8Array<ArrayBuffer> {
  if (typeof raw === "string") return encoder.encode(raw) as Uint8Array<ArrayBuffer>;
  if (raw instanceof ArrayBuffer) return new Uint8Array(raw);
  if (ArrayBuffer.isView(raw)) return new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength).slice() as Uint8Array<ArrayBuffer>;
  throw new WebhookVerificationError(
    "The body must be the raw request body (a string, ArrayBuffer, Uint8Array or Buffer), read before any JSON parsing: `await request.text()`.",
  );
}

function hexBytes(hex: string): Uint8Array<ArrayBuffer> | null {
  if (!/^(?:[0-9a-f]{2})+$/i.test(hex)) return null;
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

const hmacKey = (secret: string, usage: "sign" | "verify") =>
  crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [usage]);

/** A header of `input`: a fetch Headers, or a plain object whose keys may be in any case. */
function headerOf(input: Exclude<SignatureInput, string | null | undefined>, name: string): string | null {
  if (typeof (input as { get?: unknown }).get === "function") return (input as { get(name: string): string | null }).get(name);
  const record = input as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value.join(",") : (value ?? null);
}

/** The signed request: its parsed JSON body, and the X-Service-Delivery-Id header when headers were given. */
export interface Verified {
  body: unknown;
  deliveryId: string | null;
}

/**
 * Verifies the signature of a signed request and parses its body. Throws WebhookVerificationError
 * when the header is missing or malformed, the timestamp is outside the tolerance, no `v1`
 * signature matches the secret (tampered body, wrong or rotated secret), or the body is not JSON.
 * `secretName` says which secret is missing when none is given.
 */
export async function verifySigned(
  rawBody: RawBody,
  input: SignatureInput,
  secret: string,
  options: VerifyOptions,
  secretName: string,
): Promise<Verified> {
  if (typeof secret !== "string" || secret === "") throw new WebhookVerificationError(`${secretName} is required.`);
  const headers = input !== null && typeof input === "object" ? input : null;
  const signatureHeader = headers ? headerOf(headers, SIGNATURE_HEADER) : input;
  if (!signatureHeader) throw new WebhookVerificationError("No X-Service-Signature header.");
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  let timestamp: number | undefined;
  const signatures: Uint8Array<ArrayBuffer>[] = [];
  for (const part of String(signatureHeader).split(",")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === "t" && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    if (key === "v1") {
      const bytes = hexBytes(value);
      if (bytes?.length === 32) signatures.push(bytes);
    }
  }
  if (timestamp === undefined || signatures.length === 0)
    throw new WebhookVerificationError("The X-Service-Signature header is malformed: expected t=<unix seconds>,v1=<hex>.");
  const ageSeconds = Math.abs((options.now ?? Date.now()) / 1000 - timestamp);
  if (ageSeconds > tolerance)
    throw new WebhookVerificationError(
      `The signature's timestamp is ${Math.round(ageSeconds)} s from now, beyond the ${tolerance} s tolerance.`,
    );

  const body = bodyBytes(rawBody);
  const signed = concat(encoder.encode(`${timestamp}.`), body);
  const key = await hmacKey(secret, "verify");
  let valid = false;
  for (const signature of signatures) if (await crypto.subtle.verify("HMAC", key, signature, signed)) valid = true;
  if (!valid)
    throw new WebhookVerificationError("No signature matches the body with this secret (tampered body, or a wrong or rotated secret).");

  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(body));
  } catch {
    throw new WebhookVerificationError("The signed body is not JSON.");
  }
  return { body: parsed, deliveryId: headers ? headerOf(headers, DELIVERY_ID_HEADER) : null };
}

/**
 * The X-Service-Delivery-Id header, when there is one, must name the signed body's id: the header
 * is not signed, so a different one was changed on the way.
 */
export function checkDeliveryId(verified: Verified, signedId: unknown): void {
  if (verified.deliveryId !== null && verified.deliveryId !== signedId)
    throw new WebhookVerificationError("The X-Service-Delivery-Id header does not match the signed body's id.");
}

/**
 * An X-Service-Signature value for `payload`, as the platform signs: for a receiver's own tests
 * (Stripe's generateTestHeaderString).
 */
export async function signPayload(payload: string, secret: string, timestamp = Math.floor(Date.now() / 1000)): Promise<string> {
  const mac = await crypto.subtle.sign("HMAC", await hmacKey(secret, "sign"), encoder.encode(`${timestamp}.${payload}`));
  return `t=${timestamp},v1=${Array.from(new Uint8Array(mac), (b) => b.toString(16).padStart(2, "0")).join("")}`;
}
