import { sql } from "drizzle-orm";
import {
  bigint,
  date,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { agents } from "./agents";
import { organizations } from "./organizations";
import type { ToolTurnDetail } from "./tools";
import { id, timestamps } from "./util";

/** A call's statuses; the state machine over them is src/calls/states.ts. */
export const CALL_STATUSES = ["queued", "ringing", "in-progress", "completed", "failed", "busy", "no-answer", "canceled"] as const;
export type CallStatus = (typeof CALL_STATUSES)[number];

/** Why a call ended; what each means, the status it gives and where the fault lies: ENDED_REASONS in src/calls/states.ts. */
export const ENDED_REASON_VALUES = [
  "agent-ended-call",
  "transferred",
  "customer-ended-call",
  "silence-timeout",
  "max-duration-reached",
  "ended-via-api",
  "customer-busy",
  "customer-did-not-answer",
  "call-canceled",
  "web-call-not-joined",
  "dial-failed",
  "media-stream-failed",
  "telephony-provider-error",
  "stt-provider-error",
  "llm-provider-error",
  "tts-provider-error",
  "insufficient-credits",
  "watchdog-timeout",
  "voicemail",
] as const;
export type EndedReason = (typeof ENDED_REASON_VALUES)[number];

/** Who or what ended the call (`endedReasonCategory`): `none` is a normal end, the others say where the fault lies. */
export const FAULT_CATEGORIES = ["none", "customer", "telephony", "provider", "platform"] as const;
export type FaultCategory = (typeof FAULT_CATEGORIES)[number];

/** How a caller's turn ended, and what speculation it took (turn detection: src/calls/turns.ts). */
export interface TurnTaking {
  /** From the end of the caller's speech to the turn's end (the endpointing wait as taken). */
  waitMs: number;
  /** `sentence`: its speculative transcript ended a sentence; `silence`: the whole endpointing wait; `model`: the streaming provider's turn model (Flux's EndOfTurn). */
  endedBy: "sentence" | "silence" | "model";
  /** Speculative transcriptions started in the turn (one per pause). */
  speculations: number;
  /** Of them, thrown away because the caller spoke again (each still a transcription paid to the provider). */
  discarded: number;
  /** The turn's transcript is a speculation's (no transcription after the turn's end). */
  committed: boolean;
  /** Transcription requests the turn cost in all. */
  transcriptions: number;
}

export interface TranscriptTurn {
  /** `tool`: a call of one of the agent's tools (docs/tools.md), with its `tool` detail. */
  role: "agent" | "user" | "tool";
  text: string;
  /** Milliseconds from the moment the call connected. */
  startMs: number;
  endMs: number;
  /** The agent was cut off by the caller (barge-in): `text` is what it meant to say. */
  interrupted?: boolean;
  /**
   * Agent replies, their trace: from the end of the caller's speech to the first audio frame sent
   * (`voiceToVoiceMs`), in parts: the wait until the turn was judged over (`endpointingMs`), the
   * transcript after it (`sttMs`), the LLM to its first chunk, that chunk's speech to its first
   * audio, and `platformMs`, the rest (our code, queues). `discardedTranscriptions`: speculative
   * transcriptions of the caller's turn thrown away. docs/calls.md, "Latency".
   */
  latency?: {
    voiceToVoiceMs: number;
    endpointingMs?: number;
    sttMs: number;
    llmMs: number;
    ttsMs: number;
    platformMs: number;
    discardedTranscriptions?: number;
    /** An agent that retrieves on every turn: how long the reply waited for its knowledge passages (part of `llmMs`). */
    retrievalMs?: number;
    /** Those passages came from the search made while the caller spoke (docs/knowledge.md, "Retrieval"). */
    retrievalPrefetched?: boolean;
  };
  /** Tool turns: the call, its outcome and latency (docs/tools.md). */
  tool?: ToolTurnDetail;
  /** Caller turns of keys pressed on the phone's keypad: the keys in order (`text` reads `[keypad] 1 2 #`; docs/calls.md "Keypad (DTMF)"). */
  dtmf?: string;
  /** Caller turns: how the turn was ended and transcribed (src/calls/turns.ts, docs/calls.md "Turn-taking"); not in the API's view. */
  turnTaking?: TurnTaking;
}

/** Where a phone call was handed on by the agent's transfer_call tool (docs/tools.md). */
export interface CallTransfer {
  number: string;
  name: string | null;
  /** When the carrier accepted the transfer (ISO 8601). */
  at: string;
  /**
   * How the carrier's leg to the destination went (Twilio's DialCallStatus), once it ended:
   * `completed` (answered and bridged), `busy`, `no-answer`, `failed` or `canceled`. Absent until then.
   */
  outcome?: TransferOutcome;
  /** Seconds the caller and the destination were connected (DialCallDuration), with `outcome`. */
  connectedSeconds?: number;
}

/**
 * A phone call's direction (`outbound`: we dialled; `inbound`: it rang one of the workspace's numbers), or
 * `web` for an in-browser session, which has no phone leg to have a direction (docs/calls.md, "Direction").
 */
export const CALL_DIRECTIONS = ["outbound", "inbound", "web"] as const;
export type CallDirection = (typeof CALL_DIRECTIONS)[number];

/** Twilio's AnsweredBy values (answering-machine detection). */
export const ANSWERED_BY = [
  "human",
  "machine_start",
  "machine_end_beep",
  "machine_end_silence",
  "machine_end_other",
  "fax",
  "unknown",
] as const;
export type AnsweredBy = (typeof ANSWERED_BY)[number];

export const TRANSFER_OUTCOMES = ["completed", "busy", "no-answer", "failed", "canceled"] as const;
export type TransferOutcome = (typeof TRANSFER_OUTCOMES)[number];

export interface CallAnalysis {
  summary: string;
  sentiment: "positive" | "neutral" | "negative";
  topics: string[];
  actionItems: string[];
}

export interface CallReport {
  successScore: number;
  criteriaResults: Array<{ criterion: string; passed: boolean; reason?: string }>;
  extractedData: Record<string, unknown>;
}

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: "date", precision: 3 });

/** Phone and web calls. The state machine is in src/calls/states.ts (docs/calls.md). */
export const calls = pgTable(
  "calls",
  {
    id: id(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    agentId: uuid("agent_id").references(() => agents.id, { onDelete: "set null" }),
    /** The agent's name when the call was placed (the agent may be renamed or deleted later). */
    agentName: text("agent_name").notNull(),
    /** The agent's live version when the call was created (docs/agents.md, "Versions"); null for calls before versions. */
    agentVersion: integer("agent_version"),
    type: text("type").$type<"phone" | "web">().notNull(),
    direction: text("direction").$type<CallDirection>().notNull(),
    status: text("status").$type<CallStatus>().notNull(),
    endedReason: text("ended_reason").$type<EndedReason>(),
    fromNumber: text("from_number"),
    toNumber: text("to_number"),
    /** The telephony provider and its call id (Twilio's CallSid). */
    provider: text("provider"),
    providerCallId: text("provider_call_id"),
    idempotencyKey: text("idempotency_key"),
    /** Request fingerprint of the idempotent create, so a key reused for a different request is refused. */
    idempotencyHash: text("idempotency_hash"),
    variables: jsonb("variables").$type<Record<string, string>>().notNull().default({}),
    metadata: jsonb("metadata").$type<Record<string, unknown>>().notNull().default({}),
    transcript: jsonb("transcript").$type<TranscriptTurn[]>().notNull().default([]),
    analysis: jsonb("analysis").$type<CallAnalysis>(),
    /** The transfer_call that ended the call (endedReason `transferred`), when there was one. */
    transfer: jsonb("transfer").$type<CallTransfer>(),
    report: jsonb("report").$type<CallReport>(),
    /** Why analysis could not be produced, when it failed. */
    analysisError: text("analysis_error"),
    recordingKey: text("recording_key"),
    recordingSeconds: integer("recording_seconds"),
    /** Web calls: SHA-256 of the one-time session token, its expiry, and when it was used. */
    sessionTokenHash: text("session_token_hash"),
    sessionTokenExpiresAt: ts("session_token_expires_at"),
    sessionTokenUsedAt: ts("session_token_used_at"),
    /** Media stream token for the telephony provider's WebSocket (checked on `start`). */
    streamTokenHash: text("stream_token_hash"),
    /** The watchdog ends a call that is not terminal by this time (docs/calls.md). */
    deadlineAt: ts("deadline_at").notNull(),
    startedAt: ts("started_at"),
    endedAt: ts("ended_at"),
    costMicro: bigint("cost_micro", { mode: "number" }).notNull().default(0),
    /**
     * The voice-to-voice latency of each measured agent reply (the transcript's `latency`), written
     * with the final transcript: the dashboard's overview takes percentiles over many calls without
     * reading their transcripts. Null until the call ends.
     */
    voiceToVoiceMs: integer("voice_to_voice_ms").array(),
    /**
     * A campaign's call: the campaign and the recipient row it dialled (docs/campaigns.md). No foreign
     * keys to campaigns: those tables import this one; the ids outlive a deleted campaign like agentName.
     */
    campaignId: uuid("campaign_id"),
    campaignRecipientId: uuid("campaign_recipient_id"),
    /** Outbound calls with answering-machine detection: Twilio's AnsweredBy (human, machine_start, machine_end_beep, fax…). */
    answeredBy: text("answered_by").$type<AnsweredBy>(),
    ...timestamps,
  },
  (t) => [
    index("calls_org_idx").on(t.organizationId, t.id),
    // The Usage screen's calls by cost (src/calls/service.ts, costliestCalls): a workspace's ended calls
    // walked costliest first, the range checked on the id in the index, so a page reads its 20 rows and
    // not every call of the range.
    index("calls_org_cost_idx")
      .on(t.organizationId, t.costMicro.desc().nullsFirst(), t.id.desc().nullsFirst())
      .where(sql`${t.endedAt} is not null`),
    index("calls_campaign_idx").on(t.campaignId, t.status),
    uniqueIndex("calls_idempotency_idx").on(t.organizationId, t.idempotencyKey),
    // One call per provider call id (Twilio's CallSid), under any concurrency: src/calls/inbound.ts.
    uniqueIndex("calls_provider_call_idx").on(t.provider, t.providerCallId),
    index("calls_deadline_idx").on(t.deadlineAt),
  ],
);

export type Call = typeof calls.$inferSelect;

/**
 * A workspace's phone numbers: caller ids it may place calls from, and, assigned to an agent,
 * numbers that agent answers (docs/calls.md). A number belongs to one workspace
 * on the platform (the unique index), and must also be a number or verified caller id of the
 * platform's Twilio account (checked when added and at each call: src/calls/phone-numbers.ts).
 */
export const phoneNumbers = pgTable(
  "phone_numbers",
  {
    id: id(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    number: text("number").notNull(),
    provider: text("provider").$type<"twilio">().notNull().default("twilio"),
    label: text("label"),
    /** The agent that answers calls to this number (inbound); null: calls to it are turned away. */
    agentId: uuid("agent_id").references(() => agents.id, { onDelete: "set null" }),
    ...timestamps,
  },
  (t) => [uniqueIndex("phone_numbers_number_idx").on(t.number), index("phone_numbers_org_idx").on(t.organizationId, t.id)],
);

export type PhoneNumber = typeof phoneNumbers.$inferSelect;

/** An ended call whose agent is unknown (deleted before it ended) counts under this agent id. */
export const NO_AGENT_ID = "00000000-0000-0000-0000-000000000000";

/**
 * The calls of a workspace per day (UTC, of the call's creation) and agent, added to as each call
 * ends, as its cost settles and as its report is written (src/calls/queries/stats.ts): what the
 * dashboard's Overview reads instead of every call. `latency_histogram` counts the agents' replies
 * by voice-to-voice time (the buckets of stats.ts: 10 ms to 3 s, then 100 ms to 10 s, then one
 * for the rest; stored without its trailing empty buckets), so percentiles over any set of days and
 * agents add up exactly to the bucket.
 */
export const callDailyStats = pgTable(
  "call_daily_stats",
  {
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    day: date("day", { mode: "string" }).notNull(),
    /** No foreign key: the figures outlive the agent (NO_AGENT_ID when it was gone). */
    agentId: uuid("agent_id").notNull(),
    agentName: text("agent_name").notNull(),
    calls: integer("calls").notNull().default(0),
    connectedSeconds: doublePrecision("connected_seconds").notNull().default(0),
    costMicro: bigint("cost_micro", { mode: "number" }).notNull().default(0),
    analyzed: integer("analyzed").notNull().default(0),
    successSum: doublePrecision("success_sum").notNull().default(0),
    replies: integer("replies").notNull().default(0),
    latencyHistogram: integer("latency_histogram").array().notNull().default(sql`'{}'::integer[]`),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.day, t.agentId, t.agentName] })],
);

export type CallDailyStats = typeof callDailyStats.$inferSelect;
