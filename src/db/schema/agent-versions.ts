import { getTableColumns } from "drizzle-orm";
import { index, integer, jsonb, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { type Agent, agents } from "./agents";
import { organizations } from "./organizations";

/**
 * The agent row's columns that are not its configuration: identity, tenancy, the signing secret (a
 * secret, rotated apart from versions), the version counters and the timestamps. Every other
 * column is configuration, so a column added to agents is versioned without anyone listing it.
 */
const NOT_CONFIG = ["id", "organizationId", "toolSecret", "liveVersion", "latestVersion", "createdAt", "updatedAt"] as const;

export type AgentConfigKey = Exclude<keyof Agent, (typeof NOT_CONFIG)[number]>;

/** An agent's whole editable configuration, as one version keeps it (docs/agents.md, "Versions"). */
export type AgentConfig = Pick<Agent, AgentConfigKey>;

/** The configuration's fields, in the agents table's column order. */
export const AGENT_CONFIG_KEYS = Object.keys(getTableColumns(agents)).filter(
  (key) => !(NOT_CONFIG as readonly string[]).includes(key),
) as AgentConfigKey[];

/** Who made a version: an API key, a dashboard user, or the platform (a backfill). */
export type VersionAuthorType = "api_key" | "user" | "system";

/**
 * Every configuration an agent has had, append-only (docs/agents.md, "Versions"). Version 1 is the
 * configuration it was created with; each change adds the next number. The agents row carries the
 * live one's configuration; a version above the row's live_version is a draft.
 */
export const agentVersions = pgTable(
  "agent_versions",
  {
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    agentId: uuid("agent_id")
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
    version: integer("version").notNull(),
    config: jsonb("config").$type<AgentConfig>().notNull(),
    /** The top-level fields that differ from the previous version (none for version 1). */
    changes: text("changes").array().notNull().default([]),
    createdByType: text("created_by_type").$type<VersionAuthorType>().notNull(),
    /** The API key's or the user's id; null for the platform. */
    createdById: uuid("created_by_id"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date", precision: 3 }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.agentId, t.version] }), index("agent_versions_org_idx").on(t.organizationId, t.agentId)],
);

export type AgentVersion = typeof agentVersions.$inferSelect;
