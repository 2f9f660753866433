import { boolean, foreignKey, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { organizations } from "./organizations";
import { id, timestamps } from "./util";

/** Receiver endpoints (spec: "Webhook endpoint"), managed by admins. */
export const webhookEndpoints = pgTable(
  "webhook_endpoints",
  {
    id: id(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    description: text("description"),
    /** Production URL; null only when the built-in test receiver is used. */
    url: text("url"),
    active: boolean("active").notNull().default(true),
    useTestReceiver: boolean("use_test_receiver").notNull().default(false),
    testUrl: text("test_url"),
    testMode: boolean("test_mode").notNull().default(false),
    channels: jsonb("channels").$type<string[]>().notNull(),
    events: jsonb("events").$type<string[]>().notNull(),
    payloadMode: text("payload_mode").$type<"all" | "custom">().notNull().default("all"),
    customFields: jsonb("custom_fields").$type<string[]>().notNull().default([]),
    /** `whs_…`; needed in full to sign, returned only at creation and rotation. */
    secret: text("secret").notNull(),
    secretRotatedAt: timestamp("secret_rotated_at", { withTimezone: true, mode: "date" }),
    /** Unguessable part of the built-in test receiver's capture URL. */
    captureToken: text("capture_token").notNull(),
    /** Set when the service turned the endpoint off (410 Gone, sustained failure). */
    disabledReason: text("disabled_reason"),
    consecutiveFailures: integer("consecutive_failures").notNull().default(0),
    ...timestamps,
  },
  (t) => [
    // Unique so that a delivery's foreign key can name the pair (below); it also serves the org's list, in id order.
    uniqueIndex("webhook_endpoints_org_id_uq").on(t.organizationId, t.id),
    uniqueIndex("webhook_endpoints_capture_uq").on(t.captureToken),
  ],
);

/** A delivery's status: that of its latest attempt (`pending` before the first). */
export const DELIVERY_STATUSES = ["pending", "succeeded", "failed"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** One event to one endpoint; its id is the delivery id, the same across its retries. */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: id(),
    /** The endpoint's organization: the foreign key below holds the pair, so a delivery never names another's endpoint. */
    organizationId: uuid("organization_id").notNull(),
    endpointId: uuid("endpoint_id").notNull(),
    /** Shared by every delivery of one emitted event. */
    eventId: uuid("event_id").notNull(),
    event: text("event").notNull(),
    /** The call or chat the event is about, for "deliveries of this call". */
    subjectId: text("subject_id"),
    /**
     * The body exactly as sent (JSON text, already shaped for custom mode): serialized once when the
     * delivery is written, so every attempt sends, and signs, the same bytes.
     */
    payload: text("payload").notNull(),
    status: text("status").$type<DeliveryStatus>().notNull().default("pending"),
    attemptCount: integer("attempt_count").notNull().default(0),
    lastStatusCode: integer("last_status_code"),
    ...timestamps,
  },
  (t) => [
    // One check per row where there were two (the organization, the endpoint), and a stronger one:
    // deleting the endpoint (or its organization, through it) still deletes its log.
    foreignKey({
      name: "webhook_deliveries_endpoint_fk",
      columns: [t.organizationId, t.endpointId],
      foreignColumns: [webhookEndpoints.organizationId, webhookEndpoints.id],
    }).onDelete("cascade"),
    index("webhook_deliveries_endpoint_idx").on(t.endpointId, t.id),
    index("webhook_deliveries_subject_idx").on(t.organizationId, t.subjectId),
  ],
);

/** Every attempt of a delivery (svix's messageattempt). */
export const webhookAttempts = pgTable(
  "webhook_attempts",
  {
    id: id(),
    deliveryId: uuid("delivery_id")
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: "cascade" }),
    organizationId: uuid("organization_id").notNull(),
    endpointId: uuid("endpoint_id").notNull(),
    attempt: integer("attempt").notNull(),
    /** `production`, `test` (test mode) or `test_receiver`. */
    target: text("target").notNull(),
    url: text("url").notNull(),
    statusCode: integer("status_code"),
    error: text("error"),
    durationMs: integer("duration_ms").notNull(),
    /** Capped at 2 KiB. */
    responseBody: text("response_body"),
    /** The `t` of X-Service-Signature of this attempt. */
    signedAt: integer("signed_at").notNull(),
    trigger: text("trigger").$type<"emit" | "retry" | "resend" | "test">().notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("webhook_attempts_delivery_attempt_uq").on(t.deliveryId, t.attempt)],
);

export type WebhookEndpoint = typeof webhookEndpoints.$inferSelect;
export type WebhookDelivery = typeof webhookDeliveries.$inferSelect;
export type WebhookAttempt = typeof webhookAttempts.$inferSelect;
