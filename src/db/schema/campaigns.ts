import { index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { agents } from "./agents";
import { organizations } from "./organizations";
import { id, timestamps } from "./util";

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: "date", precision: 3 });

/**
 * A campaign's life (docs/campaigns.md): `draft` until started; `running` dials; `paused` (by the
 * user, or by the platform with `pausedReason`) places no new call; `completed` once every recipient
 * is final; `canceled` by the user (calls in flight finish, nothing new is dialled).
 */
export const CAMPAIGN_STATUSES = ["draft", "running", "paused", "completed", "canceled"] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

/** When calls may be placed, in each recipient's time zone: ISO weekdays (1 = Monday) and a daily window `HH:MM`–`HH:MM`. */
export interface CampaignSchedule {
  days: number[];
  start: string;
  end: string;
  /** IANA zone for recipients whose row names none (and whose number does not tell one). */
  timezone: string;
}

/** Outcomes that are tried again, how many attempts in all, and the wait between them. */
export interface CampaignRetry {
  maxAttempts: number;
  delaySeconds: number;
  on: Array<"no-answer" | "busy" | "failed" | "voicemail">;
}

export const campaigns = pgTable(
  "campaigns",
  {
    id: id(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    agentId: uuid("agent_id").references(() => agents.id, { onDelete: "set null" }),
    /** The agent's version every call of the campaign runs (docs/agents.md, "Versions"); null: the live one at each dial. */
    agentVersion: integer("agent_version"),
    /** Caller ids (the workspace's phone numbers, E.164), used in turn. */
    fromNumbers: text("from_numbers").array().notNull(),
    status: text("status").$type<CampaignStatus>().notNull().default("draft"),
    /** Why the platform paused it (its agent or a caller id was deleted, credits ran out…); null when the user did. */
    pausedReason: text("paused_reason"),
    schedule: jsonb("schedule").$type<CampaignSchedule | null>(),
    retry: jsonb("retry").$type<CampaignRetry>().notNull(),
    /** The campaign's own limit on calls in flight, and its count (kept by the calls table's triggers, like the workspace's). */
    maxCallsInFlight: integer("max_calls_in_flight").notNull(),
    callsInFlight: integer("calls_in_flight").notNull().default(0),
    recipientCount: integer("recipient_count").notNull().default(0),
    metadata: jsonb("metadata").$type<Record<string, unknown>>().notNull().default({}),
    startedAt: ts("started_at"),
    completedAt: ts("completed_at"),
    ...timestamps,
  },
  (t) => [index("campaigns_org_idx").on(t.organizationId, t.id), index("campaigns_status_idx").on(t.status)],
);

export type Campaign = typeof campaigns.$inferSelect;

/**
 * A recipient's state: `pending` (waiting for its turn, its window or its retry), `calling` (a call
 * in flight), then final: `completed` (a conversation), `voicemail`, `no-answer`, `busy`, `failed`
 * (attempts spent), or `canceled` (the campaign was).
 */
export const RECIPIENT_STATES = ["pending", "calling", "completed", "voicemail", "no-answer", "busy", "failed", "canceled"] as const;
export type RecipientState = (typeof RECIPIENT_STATES)[number];

export const campaignRecipients = pgTable(
  "campaign_recipients",
  {
    id: id(),
    campaignId: uuid("campaign_id")
      .notNull()
      .references(() => campaigns.id, { onDelete: "cascade" }),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    /** Its row in the upload (1-based), for errors and the dashboard. */
    row: integer("row").notNull(),
    phoneNumber: text("phone_number").notNull(),
    timezone: text("timezone"),
    variables: jsonb("variables").$type<Record<string, string>>().notNull().default({}),
    state: text("state").$type<RecipientState>().notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    /** Not dialled before this time (a retry's delay); null: as soon as its turn and window come. */
    nextAttemptAt: ts("next_attempt_at"),
    lastCallId: uuid("last_call_id"),
    /** The last call's ended reason. */
    lastEndedReason: text("last_ended_reason"),
    ...timestamps,
  },
  (t) => [
    uniqueIndex("campaign_recipients_number_idx").on(t.campaignId, t.phoneNumber),
    index("campaign_recipients_due_idx").on(t.campaignId, t.state, t.nextAttemptAt, t.row),
  ],
);

export type CampaignRecipient = typeof campaignRecipients.$inferSelect;
