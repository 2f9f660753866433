import type { RequestOptions } from "../core.js";
import type { PagePromise } from "../pagination.js";
import type {
  SavedWebhookEndpoint,
  TestReceiverCaptures,
  WebhookDelivery,
  WebhookDeliveryListParams,
  WebhookEndpoint,
  WebhookEndpointCreateParams,
  WebhookEndpointListParams,
  WebhookEndpointSendTestParams,
  WebhookEndpointUpdateParams,
} from "../types.js";
import { Resource } from "./resource.js";

/** An endpoint's delivery log, every attempt included. */
export class WebhookDeliveries extends Resource {
  /** `GET /webhooks/{id}/deliveries`, newest first. */
  list(endpointId: string, query?: WebhookDeliveryListParams, options?: RequestOptions): PagePromise<WebhookDelivery> {
    return this.page("listWebhookDeliveries", query, options, { id: endpointId });
  }

  /** Sends a delivery again (same delivery id, a fresh signature). */
  resend(endpointId: string, deliveryId: string, options?: RequestOptions): Promise<WebhookDelivery> {
    return this.call({ operation: "resendWebhookDelivery", pathParams: { id: endpointId, deliveryId }, retryNetwork: false }, options);
  }
}

/** Webhook endpoints (the API key acts as an organization admin). */
export class WebhookEndpoints extends Resource {
  readonly deliveries = new WebhookDeliveries(this.client);

  /** The answer carries the signing secret in full, once: keep it for constructEvent. */
  create(body: WebhookEndpointCreateParams, options?: RequestOptions): Promise<SavedWebhookEndpoint> {
    return this.call({ operation: "createWebhookEndpoint", body }, options);
  }

  retrieve(id: string, options?: RequestOptions): Promise<WebhookEndpoint> {
    return this.call({ operation: "getWebhookEndpoint", pathParams: { id } }, options);
  }

  update(id: string, body: WebhookEndpointUpdateParams, options?: RequestOptions): Promise<SavedWebhookEndpoint> {
    return this.call({ operation: "updateWebhookEndpoint", pathParams: { id }, body }, options);
  }

  list(query?: WebhookEndpointListParams, options?: RequestOptions): PagePromise<WebhookEndpoint> {
    return this.page("listWebhookEndpoints", query, options);
  }

  del(id: string, options?: RequestOptions): Promise<void> {
    return this.call({ operation: "deleteWebhookEndpoint", pathParams: { id }, expect: "empty" }, options);
  }

  /**
   * Send Test: a synthetic payload of `params.event` (any event the platform sends; default
   * call.completed) to this endpoint; answers the delivery with its attempt.
   */
  sendTest(id: string, params?: WebhookEndpointSendTestParams, options?: RequestOptions): Promise<WebhookDelivery> {
    return this.call({ operation: "sendTestWebhook", pathParams: { id }, body: params }, options);
  }

  /** A new signing secret, in full in the answer; the old one stops at once. */
  rotateSecret(id: string, options?: RequestOptions): Promise<WebhookEndpoint> {
    return this.call({ operation: "rotateWebhookSecret", pathParams: { id } }, options);
  }

  /** What the built-in test receiver captured for this endpoint. */
  testReceiverCaptures(id: string, options?: RequestOptions): Promise<TestReceiverCaptures> {
    return this.call({ operation: "listTestReceiverCaptures", pathParams: { id } }, options);
  }
}
