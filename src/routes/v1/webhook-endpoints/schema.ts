import { z } from "@hono/zod-openapi";
import { DELIVERY_STATUSES } from "../../../db/schema";
import { NON_EMPTY_PATCH, nonEmptyPatch, text } from "../../../lib/fields";
import { ALL_EVENTS, CHANNELS } from "../../../webhooks/events";
import { LEAF_PATHS } from "../../../webhooks/payload";
import { DEFAULT_TEST_EVENT, TEST_EVENTS } from "../../../webhooks/test-payloads";

const url = z.string().trim().max(2048).url();

const fields = {
  name: text({ min: 1, max: 100, trim: true, singleLine: true }).openapi({ example: "Production CRM sync" }),
  description: text({ max: 500, trim: true }).nullable(),
  url: url.nullable().openapi({ description: "Production URL: public HTTPS.", example: "https://hooks.example.com/voice" }),
  active: z.boolean(),
  useTestReceiver: z.boolean().openapi({ description: "Route deliveries to the service-hosted capture URL." }),
  testUrl: url.nullable().openapi({ description: "Receives deliveries instead of `url` while `testMode` is on." }),
  testMode: z.boolean(),
  channels: z
    .array(z.enum(CHANNELS))
    .min(1)
    .max(CHANNELS.length)
    .openapi({ example: ["voice"] }),
  events: z.union([z.literal("all"), z.array(z.enum(ALL_EVENTS as [string, ...string[]])).max(ALL_EVENTS.length)]).openapi({
    description: '"all" selects every event of the chosen channels ("select all"); [] selects none.',
    example: ["call.completed"],
  }),
  payloadMode: z.enum(["all", "custom"]),
  customFields: z
    .array(z.enum(LEAF_PATHS as [string, ...string[]]))
    .max(LEAF_PATHS.length)
    .openapi({
      description: "Leaf paths sent in `custom` mode (see docs/webhooks.md).",
      example: ["call.id", "call.status", "transcript.fullText"],
    }),
};

export const createEndpointSchema = z
  .strictObject({
    name: fields.name,
    description: fields.description.default(null),
    url: fields.url.default(null),
    active: fields.active.default(true),
    useTestReceiver: fields.useTestReceiver.default(false),
    testUrl: fields.testUrl.default(null),
    testMode: fields.testMode.default(false),
    channels: fields.channels,
    events: fields.events.default("all"),
    payloadMode: fields.payloadMode.default("all"),
    customFields: fields.customFields.default([]),
  })
  .openapi("CreateWebhookEndpoint");

export const updateEndpointSchema = z
  .strictObject({
    name: fields.name.optional(),
    description: fields.description.optional(),
    url: fields.url.optional(),
    active: fields.active.optional(),
    useTestReceiver: fields.useTestReceiver.optional(),
    testUrl: fields.testUrl.optional(),
    testMode: fields.testMode.optional(),
    channels: fields.channels.optional(),
    events: fields.events.optional(),
    payloadMode: fields.payloadMode.optional(),
    customFields: fields.customFields.optional(),
  })
  .refine(nonEmptyPatch, NON_EMPTY_PATCH)
  .openapi("UpdateWebhookEndpoint");

export const endpointSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    url: z.string().nullable(),
    active: z.boolean(),
    useTestReceiver: z.boolean(),
    testUrl: z.string().nullable(),
    testMode: z.boolean(),
    channels: z.array(z.string()),
    events: z.array(z.string()),
    payloadMode: z.enum(["all", "custom"]),
    customFields: z.array(z.string()),
    secret: z
      .string()
      .openapi({ description: "Full (`whs_…`) only in the create and rotate responses; masked `whs_...XXXXXX` otherwise." }),
    testReceiverUrl: z.string(),
    disabledReason: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi("WebhookEndpoint");

/** Create and update responses: the endpoint, and what its save could not check. */
export const savedEndpointSchema = endpointSchema
  .extend({
    warnings: z
      .array(
        z.object({
          path: z.enum(["url", "testUrl"]),
          code: z.enum(["dns_unavailable", "dns_no_address"]),
          message: z.string(),
        }),
      )
      .openapi({
        description:
          "URLs saved without the full address check: the DNS resolver could not be reached (`dns_unavailable`), or the name has no address yet (`dns_no_address`). Empty when every URL passed. The check runs again before every delivery (docs/webhooks.md).",
      }),
  })
  .openapi("SavedWebhookEndpoint");

export const attemptSchema = z
  .object({
    attempt: z.number().int(),
    trigger: z.string(),
    target: z.string(),
    url: z.string(),
    statusCode: z.number().int().nullable(),
    error: z.string().nullable(),
    durationMs: z.number().int(),
    responseBody: z.string().nullable().openapi({ description: "The receiver's response, first 2 KiB." }),
    signedAt: z.number().int(),
    createdAt: z.string(),
  })
  .openapi("WebhookAttempt");

export const deliverySchema = z
  .object({
    id: z.string().openapi({ description: "The delivery id, as in X-Service-Delivery-Id." }),
    endpointId: z.string(),
    event: z.string(),
    status: z.enum(DELIVERY_STATUSES),
    attemptCount: z.number().int(),
    lastStatusCode: z.number().int().nullable(),
    subjectId: z.string().nullable(),
    body: z.string().openapi({
      description:
        'The request body exactly as sent (JSON text, shaped for `custom` mode): every attempt sends these bytes, and its `X-Service-Signature` is the HMAC of `"<signedAt>.<body>"`.',
    }),
    createdAt: z.string(),
    updatedAt: z.string(),
    attempts: z.array(attemptSchema),
  })
  .openapi("WebhookDelivery");

export const capturedSchema = z
  .object({
    url: z.string(),
    keeps: z.number().int(),
    requests: z.array(
      z.object({
        id: z.string(),
        receivedAt: z.string(),
        method: z.string(),
        headers: z.record(z.string(), z.string()),
        body: z.string(),
        truncated: z.boolean(),
      }),
    ),
  })
  .openapi("TestReceiverCaptures");

/** The delivery log's filters (the API's query, the dashboard's form): a status, an event of the catalogue. */
export const deliveryFiltersSchema = z.object({
  status: z.enum(DELIVERY_STATUSES).optional().openapi({ description: "Only deliveries whose latest attempt left them in this status." }),
  event: z
    .enum(ALL_EVENTS as [string, ...string[]])
    .optional()
    .openapi({ description: "Only deliveries of this event.", example: "call.completed" }),
});

/** Send Test's optional body: which event's synthetic payload to send. */
export const sendTestSchema = z
  .strictObject({
    event: z
      .enum(TEST_EVENTS)
      .optional()
      .openapi({
        description: `The event whose synthetic payload to send: any event this platform sends (default \`${DEFAULT_TEST_EVENT}\`). The payload has that event's shape, built by the code that builds real ones; it is about no real call or chat.`,
        example: "widget.completed",
      }),
  })
  .openapi("SendTestWebhook");
