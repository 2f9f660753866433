// Usage of a workspace: the credits left, totals by day and modality, and the request log (the
// Models API's requests and the calls' metered uses), for GET /v1/usage, the dashboard's JSON
// copy and its Usage page. Reads only: metering writes its rows in src/metering/. Takes one
// `{ ctx, input }` (src/services.ts): a `Ctx<"db" | "organizationId">` and the query.
import { and, desc, eq, gte, sql } from "drizzle-orm";
import { pageQuery } from "../db/pagination";
import { organizations, type UsageEvent, usageEvents } from "../db/schema";
import { ownedBy } from "../db/tenancy";
import { type Page, type PageParams, pageOf } from "../lib/pagination";
import type { Op } from "../services";

export type Modality = UsageEvent["modality"];

export interface UsageQuery extends PageParams {
  /** The totals cover this many days back from now. */
  days: number;
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
}

/** The usage of a workspace: its balance, its totals since `days` ago, and a page of its request log. */
export async function getUsage({ ctx: { db, organizationId }, input: query }: Op<UsageQuery>): Promise<Usage> {
  const since = new Date(Date.now() - query.days * 86_400_000);
  const day = sql<string>`to_char(date_trunc('day', ${usageEvents.createdAt} at time zone 'UTC'), 'YYYY-MM-DD')`;
  const modality = query.modality ? [eq(usageEvents.modality, query.modality)] : [];
  const page = pageQuery(query);
  const [[balance], totals, rows] = await Promise.all([
    db.select({ micro: organizations.creditsMicro }).from(organizations).where(eq(organizations.id, organizationId)),
    db
      .select({
        day,
        modality: usageEvents.modality,
        unit: usageEvents.unit,
        requests: sql<number>`count(*)::int`,
        succeeded: sql<number>`(count(*) filter (where ${usageEvents.status} < 400))::int`,
        quantity: sql<number>`coalesce(sum(${usageEvents.quantity}), 0)::bigint`,
        costMicro: sql<number>`coalesce(sum(${usageEvents.costMicro}), 0)::bigint`,
      })
      .from(usageEvents)
      .where(and(ownedBy(usageEvents, organizationId), gte(usageEvents.createdAt, since), ...modality))
      .groupBy(day, usageEvents.modality, usageEvents.unit)
      .orderBy(desc(day), usageEvents.modality),
    db
      .select()
      .from(usageEvents)
      .where(and(ownedBy(usageEvents, organizationId), ...modality, ...page.where(usageEvents)))
      .orderBy(desc(usageEvents.id))
      .limit(page.limit + 1),
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
  };
}
