// Verifying webhook deliveries: `X-Service-Signature: t=<unix seconds>,v1=<hex>` where hex is
// HMAC-SHA256(secret, `${t}.${rawBody}`) (docs/webhooks.md; Stripe's scheme). Web Crypto only,
// so the same code runs in Node 20+, Workers, Deno, Bun and Next.js route handlers. The
// comparison is crypto.subtle.verify's, which does not stop at the first differing byte.
import { WebhookVerificationError } from "./errors.js";
import type { webhooks as WebhookOperations } from "./generated/openapi.js";

export const SIGNATURE_HEADER = "x-service-signature";
export const DEFAULT_TOLERANCE_SECONDS = 300;

// -- the events: the document's `webhooks` section (src/webhooks/payload-schema.ts on the server) --

type SentEvent = Exclude<keyof WebhookOperations, "custom-payload">;
type PayloadOf<E extends SentEvent> = WebhookOperations[E]["post"]["requestBody"]["content"]["application/json"];
type EventsOf<E extends SentEvent> = { [K in E]: PayloadOf<K> }[E];

export type CallEventType = Extract<SentEvent, `call.${string}`>;
export type WidgetEventType = Extract<SentEvent, `widget.${string}`>;
export type MessagingEventType = Exclude<SentEvent, CallEventType | WidgetEventType>;
export type MessagingChannel = MessagingEventType extends `${infer C}.${string}` ? C : never;

/** A voice event: carries `call`. */
export type CallEvent = EventsOf<CallEventType>;
/** A web widget chat event: carries `chat`. */
export type WidgetEvent = EventsOf<WidgetEventType>;
/** A messaging session event (WhatsApp, Telegram…): carries `chat`; `channel` is the channel type. */
export type MessagingEvent = EventsOf<MessagingEventType>;

/** The call of a voice event, and the chat of a widget or messaging event. */
export type WebhookCall = NonNullable<CallEvent["call"]>;
export type WebhookChat = NonNullable<WidgetEvent["chat"]>;
export type WebhookTranscript = NonNullable<CallEvent["transcript"] | WidgetEvent["transcript"]>;

/**
 * Every event the platform sends (chat.started / chat.completed can be selected but are never
 * sent), as the OpenAPI document's `webhooks` describe them. Narrow on `event`. With an endpoint
 * in `custom` payload mode only the envelope (deliveryId, event, timestamp) and the selected
 * fields are present.
 */
export type WebhookEvent = CallEvent | WidgetEvent | MessagingEvent;
export type WebhookEventType = WebhookEvent["event"];

// -- verification -------------------------------------------------------------------------------

export type RawBody = string | ArrayBuffer | ArrayBufferView;

export interface ConstructEventOptions {
  /** Largest accepted distance between the signature's `t` and now, in seconds. Default 300. */
  toleranceSeconds?: number;
  /** The clock, in ms (for a receiver that replays stored deliveries). Default Date.now(). */
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

/**
 * Verifies a delivery's signature and returns its event. Throws WebhookVerificationError when the
 * header is missing or malformed, the timestamp is outside the tolerance, or no `v1` signature
 * matches the secret (tampered body, wrong or rotated secret).
 */
export async function constructEvent(
  rawBody: RawBody,
  signatureHeader: string | null | undefined,
  secret: string,
  options: ConstructEventOptions = {},
): Promise<WebhookEvent> {
  if (typeof secret !== "string" || secret === "") throw new WebhookVerificationError("The endpoint's signing secret is required.");
  if (!signatureHeader) throw new WebhookVerificationError("No X-Service-Signature header.");
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  let timestamp: number | undefined;
  const signatures: Uint8Array<ArrayBuffer>[] = [];
  for (const part of signatureHeader.split(",")) {
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

  let event: unknown;
  try {
    event = JSON.parse(new TextDecoder().decode(body));
  } catch {
    throw new WebhookVerificationError("The signed body is not JSON.");
  }
  if (!event || typeof event !== "object" || typeof (event as { event?: unknown }).event !== "string")
    throw new WebhookVerificationError("The signed body is not a webhook event.");
  return event as WebhookEvent;
}

/**
 * An X-Service-Signature value for `payload`, as the platform signs: for a receiver's own tests
 * (Stripe's generateTestHeaderString).
 */
export async function signPayload(payload: string, secret: string, timestamp = Math.floor(Date.now() / 1000)): Promise<string> {
  const mac = await crypto.subtle.sign("HMAC", await hmacKey(secret, "sign"), encoder.encode(`${timestamp}.${payload}`));
  return `t=${timestamp},v1=${Array.from(new Uint8Array(mac), (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/** The same functions, as `client.webhooks`. */
export const webhooks = { constructEvent, signPayload };
