import { sql } from "drizzle-orm";
import { index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { agents } from "./agents";
import { CHANNEL_TYPES, type MessageKind, messagingChannels } from "./messaging";
import { organizations } from "./organizations";
import type { ToolTurnDetail } from "./tools";
import { id, timestamps } from "./util";
import { widgets } from "./widgets";

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: "date", precision: 3 });

/** Where a chat happens: a website's widget, or a messaging channel (docs/chats.md). */
export const CHAT_CHANNELS = ["widget", ...CHANNEL_TYPES] as const;
export type ChatChannel = (typeof CHAT_CHANNELS)[number];
export const CHAT_STATUSES = ["in-progress", "completed"] as const;
export type ChatStatus = (typeof CHAT_STATUSES)[number];
/** Widget endings, then messaging endings (docs/widget.md, docs/messaging.md). */
export const CHAT_ENDED_REASONS = ["visitor-ended", "user-ended", "agent-ended", "inactivity", "session-full", "channel-removed"] as const;
export type ChatEndedReason = (typeof CHAT_ENDED_REASONS)[number];
/** How a widget chat ends. */
export type WidgetEndedReason = Extract<ChatEndedReason, "visitor-ended" | "agent-ended" | "inactivity" | "session-full">;
/** How a messaging conversation ends. */
export type MessagingEndedReason = Extract<
  ChatEndedReason,
  "inactivity" | "user-ended" | "agent-ended" | "channel-removed" | "session-full"
>;

/** One turn of a chat's transcript. */
export interface ChatTurn {
  role: "agent" | "user" | "tool";
  text: string;
  /** ISO 8601. */
  at: string;
  /** Messaging user turns: what was received. A voice note's text is its transcription; an unsupported message's is `[sticker]` and the like. */
  kind?: MessageKind;
  /** Messaging agent turns the provider refused (WhatsApp's 24-hour window, a blocked bot): what it said. */
  undelivered?: string;
  /** Tool turns: the call, its outcome and latency (docs/tools.md). */
  tool?: ToolTurnDetail;
  /** Agent turns of an agent that retrieves on every turn: the knowledge passages its reply was given (docs/knowledge.md, "Retrieval"). */
  knowledge?: KnowledgeTurn;
}

/** Which knowledge passages a reply was given, nearest first (their text stays in the knowledge base). */
export interface KnowledgeTurn {
  passages: Array<{ chunkId: string; documentId: string; documentName: string; score: number }>;
}

/**
 * Every chat of a workspace, whatever its channel (docs/chats.md): a visitor's chat through a
 * widget, or an end user's conversation with a messaging channel's agent, from the first message
 * to its end. One table, one runtime (src/chats/runtime.ts) with an adapter per channel.
 */
export const chats = pgTable(
  "chats",
  {
    id: id(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    channel: text("channel").$type<ChatChannel>().notNull(),
    /** Widget chats: the widget; null once it is deleted (the transcript stays with the workspace). */
    widgetId: uuid("widget_id").references(() => widgets.id, { onDelete: "set null" }),
    /** Messaging chats: the channel; null once it is removed. */
    channelId: uuid("channel_id").references(() => messagingChannels.id, { onDelete: "set null" }),
    agentId: uuid("agent_id").references(() => agents.id, { onDelete: "set null" }),
    agentName: text("agent_name").notNull(),
    /** The agent's live version when the chat began (docs/agents.md, "Versions"); null for chats before versions. */
    agentVersion: integer("agent_version"),
    /** Widget: the widget's own random id for the browser (localStorage), not a person. Telegram: the chat id; WhatsApp: the user's WhatsApp id. */
    endUserId: text("end_user_id").notNull(),
    /** Messaging: the name the provider gives. */
    endUserName: text("end_user_name"),
    /** Widget: the page's origin. */
    origin: text("origin"),
    status: text("status").$type<ChatStatus>().notNull(),
    endedReason: text("ended_reason").$type<ChatEndedReason>(),
    transcript: jsonb("transcript").$type<ChatTurn[]>().notNull().default([]),
    messageCount: integer("message_count").notNull().default(0),
    /** Tool calls made in this chat (its tool turns). */
    toolCallCount: integer("tool_call_count").notNull().default(0),
    startedAt: ts("started_at").notNull().defaultNow(),
    lastActivityAt: ts("last_activity_at").notNull().defaultNow(),
    endedAt: ts("ended_at"),
    ...timestamps,
  },
  (t) => [
    index("chats_org_idx").on(t.organizationId, t.id),
    index("chats_widget_idx").on(t.widgetId, t.id),
    /** One open conversation per (messaging channel, end user); widget chats have no channel_id. */
    uniqueIndex("chats_open_conversation_idx").on(t.channelId, t.endUserId).where(sql`${t.status} = 'in-progress'`),
    index("chats_idle_idx").on(t.lastActivityAt).where(sql`${t.status} = 'in-progress'`),
  ],
);

export type Chat = typeof chats.$inferSelect;
