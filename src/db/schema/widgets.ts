import { index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { agents } from "./agents";
import { organizations } from "./organizations";
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
    /** The agent's version its chats and calls run (docs/agents.md, "Versions"); null: the live one. */
    agentVersion: integer("agent_version"),
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
