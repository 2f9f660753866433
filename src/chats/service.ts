// Reading chats: every chat of a workspace, whatever its channel, from the one table
// (src/db/schema/chats.ts; docs/chats.md). Shared by /v1/chats and the dashboard; every read is
// scoped by the organization, and another workspace's chat is simply not found. Each operation takes
// `{ ctx, input }` (src/services.ts). Each read is one
// SQL statement: the page (or the chat), with what each chat cost summed from the usage log beside it
// (and, for the dashboard's search, the first message that has the term).
// Writes go through the chat runtime (runtime.ts) and the channels' adapters.
import { and, desc, eq, getTableColumns, type SQL, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { containsPattern } from "../db/like";
import { pageQuery } from "../db/pagination";
import { type Chat, type ChatTurn, chats, usageEvents } from "../db/schema";
import { ownedBy } from "../db/tenancy";
import { ApiError } from "../lib/errors";
import { isUuid } from "../lib/ids";
import { type Page, pageOf } from "../lib/pagination";
import type { Op } from "../services";
import { type Excerpt, excerptOf } from "./excerpt";
import type { ListChatsQuery } from "./schema";

export type { ChatTurn };

/** The one answer for a missing chat and another workspace's chat. */
export const chatNotFound = () => new ApiError("not_found", "No chat with that id in this workspace.");

/** A chat as the API reads it: its columns but the transcript and the bookkeeping ones. */
export type ChatRow = Omit<Chat, "transcript" | "organizationId" | "createdAt" | "updatedAt">;

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

/** The message a search found in a chat: who wrote it, and the excerpt around the term. */
export interface MessageMatch extends Excerpt {
  role: "user" | "agent";
}

export interface ChatWithUsage {
  chat: ChatRow;
  usage: ChatUsage;
  /** Lists only: the end user's first message, cut at PREVIEW_CHARS (null before there is one). */
  preview?: string | null;
  /** Searches only: the first message of the end user or the agent that has the term (null when none has it). */
  match?: MessageMatch | null;
}

/**
 * The dashboard's search (not the API's): a whole chat id, or text found case-insensitively in the
 * end user's name or id, or in a message of the end user or the agent (tool calls aside).
 */
type Filters = Omit<ListChatsQuery, "limit" | "cursor" | "createdAfter" | "createdBefore"> & { search?: string };

/** A search as it is compared: trimmed, in NFC (the form text is typed in), null when there is none or it is an id. */
function textSearchOf(search: string | undefined): string | null {
  const term = search?.trim().normalize("NFC") ?? "";
  return term === "" || isUuid(term) ? null : term;
}

/** The transcript's messages as rows `t` in their order `n`, the end user's and the agent's only (not tool calls). */
const messages = () => sql`jsonb_array_elements(${chats.transcript}) with ordinality as m(t, n) where t->>'role' in ('user', 'agent')`;

/** How much of the first message a list shows. */
export const PREVIEW_CHARS = 140;

/** The conditions of a query: the organization's chats, the page's window, the filters. */
function conditionsOf(organizationId: string, filters: Filters, window: SQL[]): SQL[] {
  const conditions = [ownedBy(chats, organizationId), ...window];
  if (filters.channel) conditions.push(eq(chats.channel, filters.channel));
  if (filters.channelId) conditions.push(sql`coalesce(${chats.widgetId}, ${chats.channelId}) = ${filters.channelId}`);
  if (filters.agentId) conditions.push(eq(chats.agentId, filters.agentId));
  if (filters.status) conditions.push(eq(chats.status, filters.status));
  const search = filters.search?.trim() ?? "";
  const term = textSearchOf(search);
  if (isUuid(search)) conditions.push(eq(chats.id, search.toLowerCase()));
  else if (term !== null) {
    const like = containsPattern(term);
    conditions.push(
      sql`(${chats.endUserName} ilike ${like} or ${chats.endUserId} ilike ${like} or exists (select 1 from ${messages()} and t->>'text' ilike ${like}))`,
    );
  }
  return conditions;
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
 * Newest first (ids are UUID v7, so id order is time order), at most `limit` rows, each with its
 * cost: the page is cut on the (organization, id) index, and the usage log read for its rows only.
 */
async function readChats(
  db: Db,
  organizationId: string,
  conditions: SQL[],
  limit: number,
  transcript: boolean,
  /** Lists: a text search, whose first matching message each row carries. */
  term: string | null = null,
): Promise<Array<ChatWithUsage & { transcript: ChatTurn[] | null }>> {
  const { transcript: turns, ...columns } = chatColumns;
  const preview = sql<
    string | null
  >`(select left(t->>'text', ${PREVIEW_CHARS}) from jsonb_array_elements(${chats.transcript}) as t where t->>'role' = 'user' limit 1)`;
  type Found = { role: "user" | "agent"; text: string } | null;
  const match =
    term === null
      ? sql<Found>`null::jsonb`
      : sql<Found>`(select jsonb_build_object('role', t->>'role', 'text', t->>'text') from ${messages()} and t->>'text' ilike ${containsPattern(term)} order by n limit 1)`;
  const page = db
    .select(
      transcript
        ? {
            ...columns,
            transcript: turns,
            preview: sql<string | null>`null::text`.as("preview"),
            match: sql<Found>`null::jsonb`.as("match"),
          }
        : {
            ...columns,
            transcript: sql<ChatTurn[] | null>`null::jsonb`.as("transcript"),
            preview: preview.as("preview"),
            match: match.as("match"),
          },
    )
    .from(chats)
    .where(and(...conditions))
    .orderBy(desc(chats.id))
    .limit(limit)
    .as("page");
  // Written out qualified: inside the lateral subquery a bare "id" would be the usage row's.
  const pageId = sql`${sql.identifier("page")}.${sql.identifier("id")}`;
  const usage = db
    .select(usageColumns)
    .from(usageEvents)
    .where(and(sql`${usageEvents.chatId} = ${pageId}`, ownedBy(usageEvents, organizationId), eq(usageEvents.status, 200)))
    .as("usage");
  const rows = await db.select().from(page).leftJoinLateral(usage, sql`true`).orderBy(sql`${pageId} desc`);
  return rows.map(({ page: { transcript: t, preview: p, match: m, ...chat }, usage: u }) => ({
    chat,
    usage: u ? toUsage(u) : emptyChatUsage(),
    transcript: t,
    preview: p,
    match: m && term !== null ? { role: m.role, ...excerptOf(m.text, term) } : null,
  }));
}

const { organizationId: _organization, createdAt: _created, updatedAt: _updated, ...chatColumns } = getTableColumns(chats);

/** Newest first, filtered; a page of the workspace's chats with what each cost (and, searching, the message that matched). */
export async function listChats({ ctx, input: query }: Op<ListChatsQuery & { search?: string }>): Promise<Page<ChatWithUsage>> {
  const { db, organizationId } = ctx;
  const page = pageQuery(query);
  const conditions = conditionsOf(organizationId, query, page.where({ id: chats.id, createdAt: chats.startedAt }));
  const rows = await readChats(db, organizationId, conditions, page.limit + 1, false, textSearchOf(query.search));
  return pageOf(
    rows.map(({ chat, usage, preview, match }) => ({ id: chat.id, chat, usage, preview, match })),
    page.limit,
    ({ chat, usage, preview, match }) => ({ chat, usage, preview, match }),
  );
}

/** The workspace's chat with its transcript and cost; 404 for a missing one, another workspace's, or a non-UUID id. */
export async function getChat({
  ctx: { db, organizationId },
  input: { id },
}: Op<{ id: string }>): Promise<ChatWithUsage & { transcript: ChatTurn[] }> {
  if (!isUuid(id)) throw chatNotFound();
  const [row] = await readChats(db, organizationId, conditionsOf(organizationId, {}, [eq(chats.id, id)]), 1, true);
  if (!row) throw chatNotFound();
  return { chat: row.chat, usage: row.usage, transcript: row.transcript ?? [] };
}
