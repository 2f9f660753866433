import { sql } from "drizzle-orm";
import { bigint, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { agents } from "./agents";
import { organizations } from "./organizations";
import { id, timestamps } from "./util";

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: "date", precision: 3 });

export const CHANNEL_TYPES = ["telegram", "whatsapp"] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];
export type ChannelStatus = "active" | "paused";

/** What the provider told us about the channel when it was connected: public, shown in the API. */
export interface ChannelInfo {
  /** Telegram: the bot's id and @username (getMe). */
  botId?: string;
  botUsername?: string;
  /** WhatsApp: the business number's id and display number. */
  phoneNumberId?: string;
  displayPhoneNumber?: string;
}

/**
 * A messaging channel (docs/messaging.md): a Telegram bot or a WhatsApp Business number connected
 * to one agent of a workspace. `credentials` is a sealed JSON object (SECRETS_KEK, like webhook
 * secrets): the bot token and our webhook secret token (Telegram); the access token, app secret
 * and verify token (WhatsApp). Never returned, never logged.
 */
export const messagingChannels = pgTable(
  "messaging_channels",
  {
    id: id(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    agentId: uuid("agent_id")
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
    /** The agent's version its conversations run (docs/agents.md, "Versions"); null: the live one. */
    agentVersion: integer("agent_version"),
    type: text("type").$type<ChannelType>().notNull(),
    name: text("name").notNull(),
    status: text("status").$type<ChannelStatus>().notNull().default("active"),
    /** The provider's id of the bot or number: one channel per bot or number on the platform. */
    externalId: text("external_id").notNull(),
    info: jsonb("info").$type<ChannelInfo>().notNull().default({}),
    credentials: text("credentials").notNull(),
    /** A conversation with no message for this long ends (`inactivity`). */
    idleTimeoutSeconds: integer("idle_timeout_seconds").notNull().default(1800),
    ...timestamps,
  },
  (t) => [
    index("messaging_channels_org_idx").on(t.organizationId, t.id),
    uniqueIndex("messaging_channels_external_idx").on(t.type, t.externalId),
  ],
);

export type MessagingChannel = typeof messagingChannels.$inferSelect;

export type MessageKind = "text" | "voice" | "unsupported";

export type InboundStatus = "pending" | "processing" | "done";

/** An inbound message as the adapters normalize it. */
export interface InboundMessage {
  kind: MessageKind;
  /** Text messages: the text. */
  text?: string;
  /** Voice notes: the provider's file or media id, to download. */
  mediaId?: string;
  mimeType?: string;
  /** Unsupported messages: the provider's type (`sticker`, `location`, …). */
  type?: string;
  userName?: string;
  /** When the provider says it was sent (ISO 8601). */
  sentAt: string;
}

/**
 * Every inbound message, once: the provider's id (Telegram's update_id, WhatsApp's message id) is
 * unique per channel, so a redelivered update is dropped at the insert. Messages of one
 * conversation are answered one at a time in `seq` order (docs/messaging.md).
 */
export const messagingInbound = pgTable(
  "messaging_inbound",
  {
    id: id(),
    channelId: uuid("channel_id")
      .notNull()
      .references(() => messagingChannels.id, { onDelete: "cascade" }),
    externalId: text("external_id").notNull(),
    endUserId: text("end_user_id").notNull(),
    /** Order within the channel: Telegram's update_id, WhatsApp's timestamp in ms. */
    seq: bigint("seq", { mode: "number" }).notNull(),
    message: jsonb("message").$type<InboundMessage>().notNull(),
    status: text("status").$type<InboundStatus>().notNull().default("pending"),
    claimedAt: ts("claimed_at"),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("messaging_inbound_external_idx").on(t.channelId, t.externalId),
    index("messaging_inbound_conversation_idx").on(t.channelId, t.endUserId, t.seq).where(sql`${t.status} <> 'done'`),
    index("messaging_inbound_created_idx").on(t.createdAt),
  ],
);

export type MessagingInboundRow = typeof messagingInbound.$inferSelect;
