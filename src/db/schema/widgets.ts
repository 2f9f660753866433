import { sql } from "drizzle-orm";
import { index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { agents } from "./agents";
import { organizations } from "./organizations";
import type { ToolTurnDetail } from "./tools";
import { id, timestamps } from "./util";

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: "date", precision: 3 });

export type WidgetMode = "chat" | "voice" | "both";
export type WidgetPosition = "bottom-right" | "bottom-left";

export interface WidgetColors {
  /** The launcher, the header and the visitor's bubbles. */
  accent: string;
  /** Text on the accent colour. */
  accentText: string;
  /** The panel. */
  background: string;
  /** Text on the panel. */
  text: string;
}

/**
 * Web widget channels (docs/widget.md). The token is public by design (it sits in the host
 * page's HTML), so it is stored as is, for the dashboard to show the embed code again; what
 * guards a widget is its allowed origins, its rate limits and what its routes may reach.
 */
export const widgets = pgTable(
  "widgets",
  {
    id: id(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    agentId: uuid("agent_id")
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    mode: text("mode").$type<WidgetMode>().notNull(),
    allowedOrigins: jsonb("allowed_origins").$type<string[]>().notNull(),
    /** Shown as the panel's title; null: the agent's name. */
    title: text("title"),
    /** The first assistant message; null: the agent's first message, if any. */
    greeting: text("greeting"),
    colors: jsonb("colors").$type<WidgetColors>().notNull(),
    position: text("position").$type<WidgetPosition>().notNull(),
    /** `wgt_` + 32 base62 characters. */
    token: text("token").notNull(),
    tokenRotatedAt: ts("token_rotated_at"),
    revokedAt: ts("revoked_at"),
    ...timestamps,
  },
  (t) => [index("widgets_org_idx").on(t.organizationId, t.id), uniqueIndex("widgets_token_idx").on(t.token)],
);

export type Widget = typeof widgets.$inferSelect;

export type WidgetSessionStatus = "in-progress" | "completed";
export type WidgetEndedReason = "visitor-ended" | "agent-ended" | "inactivity" | "session-full";

export interface WidgetTurn {
  role: "agent" | "user" | "tool";
  text: string;
  /** ISO 8601. */
  at: string;
  /** Tool turns: the call, its outcome and latency (docs/tools.md). */
  tool?: ToolTurnDetail;
}

/** One visitor's chat through a widget, from the first message to its end (docs/widget.md). */
export const widgetSessions = pgTable(
  "widget_sessions",
  {
    id: id(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    /** Kept when the widget or the agent is deleted: the transcript stays with the workspace. */
    widgetId: uuid("widget_id").references(() => widgets.id, { onDelete: "set null" }),
    agentId: uuid("agent_id").references(() => agents.id, { onDelete: "set null" }),
    agentName: text("agent_name").notNull(),
    /** The widget's own random id for the browser (localStorage), not a person. */
    visitorId: text("visitor_id").notNull(),
    origin: text("origin").notNull(),
    status: text("status").$type<WidgetSessionStatus>().notNull(),
    endedReason: text("ended_reason").$type<WidgetEndedReason>(),
    transcript: jsonb("transcript").$type<WidgetTurn[]>().notNull().default([]),
    messageCount: integer("message_count").notNull().default(0),
    /** Tool calls made in this chat (its tool turns). */
    toolCallCount: integer("tool_call_count").notNull().default(0),
    startedAt: ts("started_at").notNull().defaultNow(),
    lastActivityAt: ts("last_activity_at").notNull().defaultNow(),
    endedAt: ts("ended_at"),
    ...timestamps,
  },
  (t) => [
    index("widget_sessions_org_idx").on(t.organizationId, t.id),
    index("widget_sessions_widget_idx").on(t.widgetId, t.id),
    index("widget_sessions_idle_idx").on(t.lastActivityAt).where(sql`${t.status} = 'in-progress'`),
  ],
);

export type WidgetSession = typeof widgetSessions.$inferSelect;
