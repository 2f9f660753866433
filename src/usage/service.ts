// Usage of a workspace: the credits left, totals by day and modality (the log's daily figures), the
// request log (the Models API's requests and the calls' and chats' metered uses), and the same per
// agent, for GET /v1/usage, the dashboard's JSON copy and its Usage page. Reads only: metering
// writes the log and its daily figures in src/metering/. Takes one `{ ctx, input }`
// (src/services.ts): a `Ctx<"db" | "organizationId">` and the query.
import { and, desc, eq, gte, lt, lte, sql } from "drizzle-orm";
import { type CostCursor, type CostlyCall, costliestCalls } from "../calls/service";
import { pageQuery } from "../db/pagination";
import { callDailyStats, chats, NO_AGENT_ID, organizations, type UsageEvent, usageDailyStats, usageEvents } from "../db/schema";
import { ownedBy } from "../db/tenancy";
import { ApiError } from "../lib/errors";
import { firstIdAt, isUuid } from "../lib/ids";
import { type Page, type PageParams, pageOf } from "../lib/pagination";
import { minutesOf, windowOf } from "../overview/service";
import type { Op } from "../services";

export type Modality = UsageEvent["modality"];

const DAY_MS = 86_400_000;

/** Whole UTC days, both included (YYYY-MM-DD). */
export interface DayRange {
  firstDay: string;
  lastDay: string;
}

/** The last `days` days, today included (UTC). */
export const lastDays = (days: number): DayRange => ({ firstDay: windowOf(days).firstDay, lastDay: windowOf(1).firstDay });

/** The instants a range covers: from the start of its first day (`since`) to the start of the day after its last (`until`, excluded). */
export const instantsOf = (range: DayRange): { since: Date; until: Date } => ({
  since: new Date(`${range.firstDay}T00:00:00Z`),
  until: new Date(Date.parse(`${range.lastDay}T00:00:00Z`) + DAY_MS),
});

/** Each day of a range, in order (YYYY-MM-DD). */
export const daysOf = (range: DayRange): string[] => {
  const { since, until } = instantsOf(range);
  return Array.from({ length: Math.round((until.getTime() - since.getTime()) / DAY_MS) }, (_, i) =>
    new Date(since.getTime() + i * DAY_MS).toISOString().slice(0, 10),
  );
};

export interface UsageQuery extends PageParams {
  /** The totals and the agents' figures cover this many days: today and the days before it (UTC); 30 unless said. */
  days?: number;
  /** Or these days (the dashboard's range); wins over `days`. */
  range?: DayRange;
  modality?: Modality;
}

/** One day's use of one modality (and its unit). */
export interface DayTotal {
  /** YYYY-MM-DD, UTC. */
  day: string;
  modality: Modality;
  unit: UsageEvent["unit"];
  requests: number;
  succeeded: number;
  quantity: number;
  costMicro: number;
}

export interface Usage {
  balanceMicro: number;
  /** Newest day first, then by modality. */
  totals: DayTotal[];
  requests: Page<UsageEvent>;
  /** The calls and chats of each agent over the last `days` days (not filtered by modality). */
  byAgent: UsageByAgent;
}

/**
 * The usage of a workspace: its balance, its totals over the last `days` days (UTC), a page of its
 * request log, and its agents' use. The totals are the log's daily figures (usage_daily_stats, added
 * to by the statement that logs each use), so they cost the same with 100 or 100,000 uses a day.
 */
export async function getUsage({ ctx, input: query }: Op<UsageQuery>): Promise<Usage> {
  const { db, organizationId } = ctx;
  // The same days as the agents' figures and the dashboard's charts: by default today and the days before it (UTC).
  const range = query.range ?? lastDays(query.days ?? 30);
  const { firstDay, lastDay } = range;
  const s = usageDailyStats;
  const modality = query.modality ? [eq(usageEvents.modality, query.modality)] : [];
  const page = pageQuery(query);
  // A log bounded in time is read from that part of the (organization, id) index (a day wider: the
  // worker's clock made the id, the database's the time); `created_at` is the rule.
  const idBounds = [
    ...(query.createdAfter ? [gte(usageEvents.id, firstIdAt(Date.parse(query.createdAfter) - DAY_MS))] : []),
    ...(query.createdBefore ? [lt(usageEvents.id, firstIdAt(Date.parse(query.createdBefore) + DAY_MS))] : []),
  ];
  const [[balance], totals, rows, byAgent] = await Promise.all([
    db.select({ micro: organizations.creditsMicro }).from(organizations).where(eq(organizations.id, organizationId)),
    db
      .select({
        day: s.day,
        modality: s.modality,
        unit: s.unit,
        requests: s.requests,
        succeeded: s.succeeded,
        quantity: s.quantity,
        costMicro: s.costMicro,
      })
      .from(s)
      .where(
        and(
          ownedBy(s, organizationId),
          gte(s.day, firstDay),
          lte(s.day, lastDay),
          ...(query.modality ? [eq(s.modality, query.modality)] : []),
        ),
      )
      .orderBy(desc(s.day), s.modality, s.unit),
    db
      .select()
      .from(usageEvents)
      .where(and(ownedBy(usageEvents, organizationId), ...modality, ...page.where(usageEvents), ...idBounds))
      .orderBy(desc(usageEvents.id))
      .limit(page.limit + 1),
    getUsageByAgent({ ctx, input: { range } }),
  ]);
  return {
    balanceMicro: Number(balance?.micro ?? 0),
    totals: totals.map((t) => ({
      day: t.day,
      modality: t.modality,
      unit: t.unit,
      requests: Number(t.requests),
      succeeded: Number(t.succeeded),
      quantity: Number(t.quantity),
      costMicro: Number(t.costMicro),
    })),
    requests: pageOf(rows, page.limit, (row) => row),
    byAgent,
  };
}

/** What an agent's calls and chats used over some days (or the sum of every agent's). */
export interface AgentFigures {
  /** Calls that ended. */
  calls: number;
  /** Their connected time, in minutes (to a tenth). */
  minutes: number;
  /** Chats started. */
  chats: number;
  /** What the calls cost: every metered use of theirs (speech to text, the LLM, text to speech). */
  callMicro: number;
  /** What the chats cost: their metered uses that succeeded. */
  chatMicro: number;
}

export interface AgentUsage extends AgentFigures {
  /** Null when the agent was deleted before its chats were read (its name stays). */
  agentId: string | null;
  agentName: string;
}

export interface UsageByAgent {
  /** The first day covered (YYYY-MM-DD, UTC). */
  since: string;
  /** Agents with a call or a chat in those days, most credits first. */
  agents: AgentUsage[];
  total: AgentFigures;
}

/**
 * Each agent's calls, minutes and chats over the range's days (UTC), with what
 * they cost: the calls from their daily figures (call_daily_stats, kept as calls end: by the day a
 * call was made, as the Overview counts them), the chats started in those days with their metered
 * uses (the usage log's chat index). A call's cost is the sum of its metered uses, so an agent's
 * credits are `callMicro + chatMicro`; the Models API's own requests belong to no agent.
 */
export async function getUsageByAgent({ ctx: { db, organizationId }, input: { range } }: Op<{ range: DayRange }>): Promise<UsageByAgent> {
  const { firstDay, lastDay } = range;
  const { since, until } = instantsOf(range);
  const s = callDailyStats;
  const chatUsage = db
    .select({ micro: sql<number>`coalesce(sum(${usageEvents.costMicro}), 0)`.as("micro") })
    .from(usageEvents)
    .where(and(sql`${usageEvents.chatId} = ${chats.id}`, ownedBy(usageEvents, organizationId), eq(usageEvents.status, 200)))
    .as("chat_usage");
  const [callRows, chatRows] = await Promise.all([
    db
      .select({
        agentId: s.agentId,
        agentName: s.agentName,
        calls: sql<number>`sum(${s.calls})::int`,
        seconds: sql<number>`sum(${s.connectedSeconds})`,
        micro: sql<number>`sum(${s.costMicro})::bigint`,
      })
      .from(s)
      .where(and(ownedBy(s, organizationId), gte(s.day, firstDay), lte(s.day, lastDay)))
      .groupBy(s.agentId, s.agentName),
    db
      .select({
        agentId: chats.agentId,
        agentName: chats.agentName,
        chats: sql<number>`count(*)::int`,
        micro: sql<number>`coalesce(sum(${chatUsage.micro}), 0)::bigint`,
      })
      .from(chats)
      .leftJoinLateral(chatUsage, sql`true`)
      // The id bound (a day early: the worker's clock made the id, the database's the start) keeps
      // the scan to the window's part of the (organization, id) index; started_at is the rule.
      .where(
        and(
          ownedBy(chats, organizationId),
          gte(chats.id, firstIdAt(since.getTime() - DAY_MS)),
          lt(chats.id, firstIdAt(until.getTime() + DAY_MS)),
          gte(chats.startedAt, since),
          lt(chats.startedAt, until),
        ),
      )
      .groupBy(chats.agentId, chats.agentName),
  ]);

  const byKey = new Map<string, AgentUsage & { seconds: number }>();
  const into = (agentId: string | null, agentName: string) => {
    const key = `${agentId}:${agentName}`;
    const row = byKey.get(key) ?? { agentId, agentName, calls: 0, seconds: 0, minutes: 0, chats: 0, callMicro: 0, chatMicro: 0 };
    byKey.set(key, row);
    return row;
  };
  for (const r of callRows) {
    const row = into(r.agentId === NO_AGENT_ID ? null : r.agentId, r.agentName);
    row.calls += Number(r.calls);
    row.seconds += Number(r.seconds);
    row.callMicro += Number(r.micro);
  }
  for (const r of chatRows) {
    const row = into(r.agentId, r.agentName);
    row.chats += Number(r.chats);
    row.chatMicro += Number(r.micro);
  }
  const agents = [...byKey.values()]
    .map(({ seconds, ...row }) => ({ ...row, minutes: minutesOf(seconds) }))
    .sort(
      (a, b) =>
        b.callMicro + b.chatMicro - (a.callMicro + a.chatMicro) ||
        b.calls - a.calls ||
        b.chats - a.chats ||
        a.agentName.localeCompare(b.agentName),
    );
  const seconds = [...byKey.values()].reduce((n, r) => n + r.seconds, 0);
  const sum = (pick: (r: AgentUsage) => number) => agents.reduce((n, r) => n + pick(r), 0);
  return {
    since: firstDay,
    agents,
    total: {
      calls: sum((r) => r.calls),
      minutes: minutesOf(seconds),
      chats: sum((r) => r.chats),
      callMicro: sum((r) => r.callMicro),
      chatMicro: sum((r) => r.chatMicro),
    },
  };
}

// A page of calls by cost resumes after the last call shown: its cost and id, opaque to the page.
const encodeCostCursor = (c: CostCursor) =>
  btoa(JSON.stringify({ c: c.costMicro, id: c.id }))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");

function decodeCostCursor(cursor: string): CostCursor {
  try {
    const { c, id } = JSON.parse(atob(cursor.replace(/-/g, "+").replace(/_/g, "/"))) as { c?: unknown; id?: unknown };
    if (Number.isSafeInteger(c) && typeof id === "string" && isUuid(id)) return { costMicro: c as number, id };
  } catch {
    // fall through to the error below
  }
  throw new ApiError("bad_request", "The cursor is not valid. Use the link of a previous page, unchanged.");
}

/**
 * The range's ended calls, costliest first (then newest), a page at a time (`cursor`: the
 * `nextCursor` of the page before): the Usage screen's per-call table, whose first page is the
 * costliest calls.
 */
export async function callsByCost({
  ctx,
  input: { range, limit, cursor },
}: Op<{ range: DayRange; limit: number; cursor?: string }>): Promise<Page<CostlyCall>> {
  const after = cursor ? decodeCostCursor(cursor) : undefined;
  const rows = await costliestCalls({ ctx, input: { ...instantsOf(range), limit: limit + 1, after } });
  const hasMore = rows.length > limit;
  const data = hasMore ? rows.slice(0, limit) : rows;
  const last = data[data.length - 1];
  return { data, hasMore, nextCursor: hasMore && last ? encodeCostCursor(last) : null };
}
