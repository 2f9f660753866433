// Reading chats: widget chat sessions and messaging sessions of a workspace as one list and one
// record (docs/chats.md). Plain functions of (db, organizationId, input), shared by /v1/chats and
// the dashboard; every read is scoped by the organization, and another workspace's chat is
// simply not found. Each read is one SQL statement: the page (or the chat) from both tables,
// UNION ALL, with what each chat cost summed from the usage log beside it.
// Writes stay with their runtimes: src/widgets/sessions.ts and the messaging service.
import { and, type Column, desc, eq, type SQL, sql } from "drizzle-orm";
import { type PgColumn, unionAll } from "drizzle-orm/pg-core";
import type { Db } from "../db/client";
import { pageQuery } from "../db/pagination";
import { type MessagingTurn, messagingSessions, usageEvents, type WidgetTurn, widgetSessions } from "../db/schema";
import { ownedBy } from "../db/tenancy";
import { ApiError } from "../lib/errors";
import { isUuid } from "../lib/ids";
import { type Page, pageOf } from "../lib/pagination";
import type { ChatChannel, ChatEndedReason, ChatStatus, ListChatsQuery } from "./schema";

/** The one answer for a missing chat and another workspace's chat. */
export const chatNotFound = () => new ApiError("not_found", "No chat with that id in this workspace.");

/** A chat of either table, as both are read: the columns they share, under one set of names. */
export interface ChatRow {
  id: string;
  channel: ChatChannel;
  /** The widget or the messaging channel; null once deleted. */
  channelId: string | null;
  agentId: string | null;
  agentName: string;
  status: ChatStatus;
  endedReason: ChatEndedReason | null;
  /** Widget: the visitor id; messaging: the provider's id of the end user. */
  endUserId: string;
  endUserName: string | null;
  /** Widget: the page's origin. */
  origin: string | null;
  messageCount: number;
  toolCallCount: number;
  startedAt: Date;
  endedAt: Date | null;
  lastActivityAt: Date;
}

export type ChatTurn = WidgetTurn | MessagingTurn;

/** What a chat consumed (successful uses only), per modality, in micro-credits. */
export interface ChatUsage {
  requests: number;
  micro: number;
  llm: { tokens: number; promptTokens: number; completionTokens: number; micro: number };
  stt: { audioMs: number; micro: number };
  tts: { characters: number; micro: number };
}

export const emptyChatUsage = (): ChatUsage => ({
  requests: 0,
  micro: 0,
  llm: { tokens: 0, promptTokens: 0, completionTokens: 0, micro: 0 },
  stt: { audioMs: 0, micro: 0 },
  tts: { characters: 0, micro: 0 },
});

export interface ChatWithUsage {
  chat: ChatRow;
  usage: ChatUsage;
}

type Filters = Omit<ListChatsQuery, "limit" | "cursor" | "createdAfter" | "createdBefore">;

/** A column under a name both tables' selections share, decoded as the column decodes. */
const as = <T>(column: Column, name: string) => (sql`${column}`.mapWith(column) as SQL<T>).as(name);

const widgetColumns = {
  id: as<string>(widgetSessions.id, "id"),
  channel: sql<ChatChannel>`'widget'`.as("channel"),
  channelId: as<string | null>(widgetSessions.widgetId, "channel_id"),
  agentId: as<string | null>(widgetSessions.agentId, "agent_id"),
  agentName: as<string>(widgetSessions.agentName, "agent_name"),
  status: as<ChatStatus>(widgetSessions.status, "status"),
  endedReason: as<ChatEndedReason | null>(widgetSessions.endedReason, "ended_reason"),
  endUserId: as<string>(widgetSessions.visitorId, "end_user_id"),
  endUserName: sql<string | null>`null::text`.as("end_user_name"),
  origin: as<string | null>(widgetSessions.origin, "origin"),
  messageCount: as<number>(widgetSessions.messageCount, "message_count"),
  toolCallCount: as<number>(widgetSessions.toolCallCount, "tool_call_count"),
  startedAt: as<Date>(widgetSessions.startedAt, "started_at"),
  endedAt: as<Date | null>(widgetSessions.endedAt, "ended_at"),
  lastActivityAt: as<Date>(widgetSessions.lastActivityAt, "last_activity_at"),
};

const messagingColumns: typeof widgetColumns = {
  id: as<string>(messagingSessions.id, "id"),
  channel: as<ChatChannel>(messagingSessions.channelType, "channel"),
  channelId: as<string | null>(messagingSessions.channelId, "channel_id"),
  agentId: as<string | null>(messagingSessions.agentId, "agent_id"),
  agentName: as<string>(messagingSessions.agentName, "agent_name"),
  status: as<ChatStatus>(messagingSessions.status, "status"),
  endedReason: as<ChatEndedReason | null>(messagingSessions.endedReason, "ended_reason"),
  endUserId: as<string>(messagingSessions.endUserId, "end_user_id"),
  endUserName: as<string | null>(messagingSessions.endUserName, "end_user_name"),
  origin: sql<string | null>`null::text`.as("origin"),
  messageCount: as<number>(messagingSessions.messageCount, "message_count"),
  toolCallCount: as<number>(messagingSessions.toolCallCount, "tool_call_count"),
  startedAt: as<Date>(messagingSessions.startedAt, "started_at"),
  endedAt: as<Date | null>(messagingSessions.endedAt, "ended_at"),
  lastActivityAt: as<Date>(messagingSessions.lastActivityAt, "last_activity_at"),
};

interface Branch {
  table: typeof widgetSessions | typeof messagingSessions;
  columns: typeof widgetColumns;
  conditions: SQL[];
}

/** The branches a query reads: a channel filter leaves one table out. */
function branches(organizationId: string, filters: Filters, page: { where(t: { id: PgColumn; createdAt: PgColumn }): SQL[] }): Branch[] {
  const out: Branch[] = [];
  if (!filters.channel || filters.channel === "widget") {
    const t = widgetSessions;
    const conditions = [ownedBy(t, organizationId), ...page.where({ id: t.id, createdAt: t.startedAt })];
    if (filters.channelId) conditions.push(eq(t.widgetId, filters.channelId));
    if (filters.agentId) conditions.push(eq(t.agentId, filters.agentId));
    if (filters.status) conditions.push(eq(t.status, filters.status));
    out.push({ table: t, columns: widgetColumns, conditions });
  }
  if (filters.channel !== "widget") {
    const t = messagingSessions;
    const conditions = [ownedBy(t, organizationId), ...page.where({ id: t.id, createdAt: t.startedAt })];
    if (filters.channel) conditions.push(eq(t.channelType, filters.channel));
    if (filters.channelId) conditions.push(eq(t.channelId, filters.channelId));
    if (filters.agentId) conditions.push(eq(t.agentId, filters.agentId));
    if (filters.status) conditions.push(eq(t.status, filters.status));
    out.push({ table: t, columns: messagingColumns, conditions });
  }
  return out;
}

/** The usage columns of one chat (a lateral subquery over the usage log's chat index). */
const usageColumns = {
  requests: sql<number>`count(*)::int`.mapWith(Number).as("requests"),
  micro: sql<number>`coalesce(sum(${usageEvents.costMicro}), 0)::bigint`.mapWith(Number).as("micro"),
  llmTokens: sql<number>`coalesce(sum(${usageEvents.quantity}) filter (where ${usageEvents.modality} = 'chat'), 0)::bigint`
    .mapWith(Number)
    .as("llm_tokens"),
  promptTokens: sql<number>`coalesce(sum(${usageEvents.promptTokens}), 0)::bigint`.mapWith(Number).as("prompt_tokens"),
  completionTokens: sql<number>`coalesce(sum(${usageEvents.completionTokens}), 0)::bigint`.mapWith(Number).as("completion_tokens"),
  llmMicro: sql<number>`coalesce(sum(${usageEvents.costMicro}) filter (where ${usageEvents.modality} = 'chat'), 0)::bigint`
    .mapWith(Number)
    .as("llm_micro"),
  sttMs: sql<number>`coalesce(sum(${usageEvents.quantity}) filter (where ${usageEvents.modality} = 'stt'), 0)::bigint`
    .mapWith(Number)
    .as("stt_ms"),
  sttMicro: sql<number>`coalesce(sum(${usageEvents.costMicro}) filter (where ${usageEvents.modality} = 'stt'), 0)::bigint`
    .mapWith(Number)
    .as("stt_micro"),
  ttsChars: sql<number>`coalesce(sum(${usageEvents.quantity}) filter (where ${usageEvents.modality} = 'tts'), 0)::bigint`
    .mapWith(Number)
    .as("tts_chars"),
  ttsMicro: sql<number>`coalesce(sum(${usageEvents.costMicro}) filter (where ${usageEvents.modality} = 'tts'), 0)::bigint`
    .mapWith(Number)
    .as("tts_micro"),
};

type UsageRow = { [K in keyof typeof usageColumns]: number };

const toUsage = (u: UsageRow): ChatUsage => ({
  requests: u.requests,
  micro: u.micro,
  llm: { tokens: u.llmTokens, promptTokens: u.promptTokens, completionTokens: u.completionTokens, micro: u.llmMicro },
  stt: { audioMs: u.sttMs, micro: u.sttMicro },
  tts: { characters: u.ttsChars, micro: u.ttsMicro },
});

/**
 * Newest first (ids are UUID v7 in both tables, so id order is time order across them), at most
 * `limit` rows, each with its cost. Every branch is cut to `limit` on its own (organization, id)
 * index before the union, and the usage log is read for the page's rows only.
 */
async function readChats(
  db: Db,
  organizationId: string,
  parts: Branch[],
  limit: number,
  transcript: boolean,
): Promise<Array<ChatWithUsage & { transcript: ChatTurn[] | null }>> {
  const selects = parts.map((b) => {
    const columns = transcript
      ? { ...b.columns, transcript: sql<ChatTurn[]>`${b.table.transcript}`.mapWith(b.table.transcript).as("transcript") }
      : { ...b.columns, transcript: sql<ChatTurn[] | null>`null::jsonb`.as("transcript") };
    return db
      .select(columns)
      .from(b.table)
      .where(and(...b.conditions))
      .orderBy(desc(b.table.id))
      .limit(limit);
  });
  const [first, second] = selects;
  if (!first) return [];
  // Written out qualified: inside the lateral subquery a bare "id" would be the usage row's.
  const pageId = sql`${sql.identifier("page")}.${sql.identifier("id")}`;
  const page = (second ? unionAll(first, second).orderBy(desc(sql`id`)).limit(limit) : first).as("page");
  const usage = db
    .select(usageColumns)
    .from(usageEvents)
    .where(and(sql`${usageEvents.chatId} = ${pageId}`, ownedBy(usageEvents, organizationId), eq(usageEvents.status, 200)))
    .as("usage");
  const rows = await db.select().from(page).leftJoinLateral(usage, sql`true`).orderBy(sql`${pageId} desc`);
  return rows.map(({ page: { transcript: turns, ...chat }, usage: u }) => ({
    chat,
    usage: u ? toUsage(u) : emptyChatUsage(),
    transcript: turns,
  }));
}

/** Newest first, filtered; a page of the workspace's chats (both tables) with what each cost. */
export async function listChats(db: Db, organizationId: string, query: ListChatsQuery): Promise<Page<ChatWithUsage>> {
  const page = pageQuery(query);
  const rows = await readChats(db, organizationId, branches(organizationId, query, page), page.limit + 1, false);
  return pageOf(
    rows.map(({ chat, usage }) => ({ id: chat.id, chat, usage })),
    page.limit,
    ({ chat, usage }) => ({ chat, usage }),
  );
}

/** The workspace's chat with its transcript and cost; 404 for a missing one, another workspace's, or a non-UUID id. */
export async function getChat(db: Db, organizationId: string, id: string): Promise<ChatWithUsage & { transcript: ChatTurn[] }> {
  if (!isUuid(id)) throw chatNotFound();
  const parts = branches(organizationId, {}, { where: (t) => [eq(t.id, id)] });
  const [row] = await readChats(db, organizationId, parts, 1, true);
  if (!row) throw chatNotFound();
  return { chat: row.chat, usage: row.usage, transcript: row.transcript ?? [] };
}
