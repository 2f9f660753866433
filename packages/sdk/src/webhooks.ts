// Verifying webhook deliveries: `X-Service-Signature: t=<unix seconds>,v1=<hex>` where hex is
// HMAC-SHA256(secret, `${t}.${rawBody}`) (docs/webhooks.md; Stripe's scheme), checked by
// signature.ts, which tool requests share (tools.ts).
import { WebhookVerificationError } from "./errors.js";
import type { webhooks as WebhookOperations } from "./generated/openapi.js";
import { checkDeliveryId, type RawBody, type SignatureInput, signPayload, type VerifyOptions, verifySigned } from "./signature.js";

export { WebhookVerificationError } from "./errors.js";
export { DEFAULT_TOLERANCE_SECONDS, type RawBody, SIGNATURE_HEADER, type SignatureInput, signPayload } from "./signature.js";

// -- the events: the document's `webhooks` section (src/webhooks/payload-schema.ts on the server) --

/** The document's `webhooks` that are not endpoint events: the custom mode's shape, and the tool request (tools.ts). */
type SentEvent = Exclude<keyof WebhookOperations, "custom-payload" | "tool.call">;
type PayloadOf<E extends SentEvent> = WebhookOperations[E]["post"]["requestBody"]["content"]["application/json"];
type EventsOf<E extends SentEvent> = { [K in E]: PayloadOf<K> }[E];

export type CallEventType = Extract<SentEvent, `call.${string}`>;
export type WidgetEventType = Extract<SentEvent, `widget.${string}`>;
export type CampaignEventType = Extract<SentEvent, `campaign.${string}`>;
export type TestRunEventType = Extract<SentEvent, `test_run.${string}`>;
export type MessagingEventType = Exclude<SentEvent, CallEventType | WidgetEventType | CampaignEventType | TestRunEventType>;
export type MessagingChannel = MessagingEventType extends `${infer C}.${string}` ? C : never;

/** A voice event: carries `call`. */
export type CallEvent = EventsOf<CallEventType>;
/** A campaign's start or completion: carries `campaign` (with its recipients' counts). */
export type CampaignEvent = EventsOf<CampaignEventType>;
/** An agent test's run finished (docs/agent-tests.md): carries `testRun` (its status, transcript and results). */
export type TestRunEvent = EventsOf<TestRunEventType>;
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
export type WebhookEvent = CallEvent | CampaignEvent | WidgetEvent | MessagingEvent | TestRunEvent;
export type WebhookEventType = WebhookEvent["event"];

// -- verification -------------------------------------------------------------------------------

export type ConstructEventOptions = VerifyOptions;

/**
 * Verifies a delivery's signature and returns its event. `signature` is the X-Service-Signature
 * value, or the request's headers (then X-Service-Delivery-Id, when present, must be the signed
 * deliveryId). Throws WebhookVerificationError when the header is missing or malformed, the
 * timestamp is outside the tolerance, no `v1` signature matches the secret (tampered body, wrong
 * or rotated secret), or the body is not an event.
 */
export async function constructEvent(
  rawBody: RawBody,
  signature: SignatureInput,
  secret: string,
  options: ConstructEventOptions = {},
): Promise<WebhookEvent> {
  const verified = await verifySigned(rawBody, signature, secret, options, "The endpoint's signing secret");
  const event = verified.body as { event?: unknown; deliveryId?: unknown } | null;
  if (!event || typeof event !== "object" || typeof event.event !== "string")
    throw new WebhookVerificationError("The signed body is not a webhook event.");
  if (event.event === "tool.call")
    throw new WebhookVerificationError(
      "The signed body is a tool request, not a webhook event: verify it with tools.constructRequest and the agent's tool secret.",
    );
  checkDeliveryId(verified, event.deliveryId);
  return event as WebhookEvent;
}

/** The same functions, as `client.webhooks`. */
export const webhooks = { constructEvent, signPayload };
