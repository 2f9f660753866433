import { bigint, date, index, integer, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { organizations } from "./organizations";
import { id } from "./util";

/** Every Models API request of a workspace (spec: Limits 2), successful or not. */
export const usageEvents = pgTable(
  "usage_events",
  {
    id: id(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    /** The API key used, when one was (dashboard sessions have none). */
    apiKeyId: uuid("api_key_id"),
    method: text("method").notNull(),
    endpoint: text("endpoint").notNull(),
    modality: text("modality").$type<"tts" | "stt" | "chat" | "embedding">().notNull(),
    provider: text("provider").notNull(),
    model: text("model").notNull(),
    status: integer("status").notNull(),
    errorCode: text("error_code"),
    latencyMs: integer("latency_ms").notNull(),
    /** What was consumed: characters (tts), milliseconds of audio (stt), tokens (chat, embedding). */
    unit: text("unit").$type<"characters" | "audio_ms" | "tokens">().notNull(),
    quantity: integer("quantity").notNull().default(0),
    promptTokens: integer("prompt_tokens"),
    completionTokens: integer("completion_tokens"),
    costMicro: bigint("cost_micro", { mode: "number" }).notNull().default(0),
    /** Set when the usage was a live call's (speech-to-text, the agent's LLM, text-to-speech). */
    callId: uuid("call_id"),
    /** Set when the usage was a chat's (a widget chat or a messaging session): the chat's cost. */
    chatId: uuid("chat_id"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date", precision: 3 }).notNull().defaultNow(),
  },
  (t) => [
    index("usage_events_org_idx").on(t.organizationId, t.id),
    index("usage_events_call_idx").on(t.callId),
    index("usage_events_chat_idx").on(t.chatId),
  ],
);

export type UsageEvent = typeof usageEvents.$inferSelect;

/**
 * The usage log added up per workspace, UTC day (of the use's `created_at`), modality and unit: what
 * GET /v1/usage's `totals` and the Usage page's charts read instead of every use of the range. The
 * statements that write a `usage_events` row add it here in the same statement (src/metering/queries.ts),
 * so the two never disagree; migration 0023 filled it from the log written before.
 */
export const usageDailyStats = pgTable(
  "usage_daily_stats",
  {
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    day: date("day", { mode: "string" }).notNull(),
    modality: text("modality").$type<UsageEvent["modality"]>().notNull(),
    unit: text("unit").$type<UsageEvent["unit"]>().notNull(),
    /** Every use logged, whatever its status. */
    requests: integer("requests").notNull().default(0),
    /** Those with a status below 400. */
    succeeded: integer("succeeded").notNull().default(0),
    quantity: bigint("quantity", { mode: "number" }).notNull().default(0),
    costMicro: bigint("cost_micro", { mode: "number" }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.day, t.modality, t.unit] })],
);

export type UsageDailyStats = typeof usageDailyStats.$inferSelect;
