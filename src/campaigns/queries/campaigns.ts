// Every statement about a workspace's campaigns, for src/campaigns/service.ts. A change of status is
// one conditional UPDATE (`where status in (…)`): two requests racing to start and cancel cannot
// both win, and the loser learns it from the row it did not get.
import { and, desc, eq, inArray, type SQL, sql } from "drizzle-orm";
import { type Db, rowsOf } from "../../db/client";
import { pageQuery } from "../../db/pagination";
import {
  type Campaign,
  type CampaignRetry,
  type CampaignSchedule,
  type CampaignStatus,
  campaignRecipients,
  campaigns,
} from "../../db/schema";
import { ownedBy, ownedRow } from "../../db/tenancy";
import { newId } from "../../lib/ids";
import { type Page, type PageParams, pageOf } from "../../lib/pagination";
import type { RecipientRow } from "../recipients";
import { noCounts, type RecipientCounts } from "../views";

export interface NewCampaign {
  name: string;
  agentId: string;
  agentVersion: number | null;
  fromNumbers: string[];
  schedule: CampaignSchedule | null;
  retry: CampaignRetry;
  maxCallsInFlight: number;
  metadata: Record<string, unknown>;
}

/**
 * The campaign and all its recipients in one statement (a data-modifying CTE): over Neon's HTTP
 * path a statement is its own transaction, so either everything is written or nothing is. The
 * rows travel as one JSON parameter, whatever their number (Postgres takes at most 65,535
 * parameters a statement; 10,000 rows of 7 would pass it).
 */
export async function insertCampaign(db: Db, organizationId: string, input: NewCampaign, rows: RecipientRow[]): Promise<string> {
  const id = newId();
  const recipients = rows.map((r) => ({
    id: newId(),
    row: r.row,
    phone_number: r.phoneNumber,
    timezone: r.timezone,
    variables: r.variables,
  }));
  await db.execute(sql`
    with campaign as (
      insert into ${campaigns} (id, organization_id, name, agent_id, agent_version, from_numbers, schedule, retry, max_calls_in_flight, recipient_count, metadata)
      values (
        ${id}, ${organizationId}, ${input.name}, ${input.agentId}, ${input.agentVersion}::int,
        array(select jsonb_array_elements_text(${JSON.stringify(input.fromNumbers)}::jsonb)),
        ${JSON.stringify(input.schedule)}::jsonb, ${JSON.stringify(input.retry)}::jsonb,
        ${input.maxCallsInFlight}, ${rows.length}, ${JSON.stringify(input.metadata)}::jsonb
      )
      returning id, organization_id
    )
    insert into ${campaignRecipients} (id, campaign_id, organization_id, "row", phone_number, timezone, variables)
    select r.id, campaign.id, campaign.organization_id, r."row", r.phone_number, r.timezone, coalesce(r.variables, '{}'::jsonb)
    from campaign, jsonb_to_recordset(${JSON.stringify(recipients)}::jsonb)
      as r(id uuid, "row" integer, phone_number text, timezone text, variables jsonb)`);
  return id;
}

export async function findCampaign(db: Db, organizationId: string, id: string): Promise<Campaign | undefined> {
  const [row] = await db
    .select()
    .from(campaigns)
    .where(ownedRow(campaigns, organizationId, id))
    .limit(1);
  return row;
}

/** A page of the workspace's campaigns, newest first (in one status, if given). */
export async function pageOfCampaigns(
  db: Db,
  organizationId: string,
  params: PageParams & { status?: CampaignStatus },
): Promise<Page<Campaign>> {
  const page = pageQuery(params);
  const rows = await db
    .select()
    .from(campaigns)
    .where(
      and(ownedBy(campaigns, organizationId), ...page.where(campaigns), ...(params.status ? [eq(campaigns.status, params.status)] : [])),
    )
    .orderBy(desc(campaigns.id))
    .limit(page.limit + 1);
  return pageOf(rows, page.limit, (r) => r);
}

/** Recipients in each state of each campaign named: one grouped query. */
export async function countsOf(db: Db, ids: string[]): Promise<Map<string, RecipientCounts>> {
  const out = new Map<string, RecipientCounts>();
  if (ids.length === 0) return out;
  const rows = await db
    .select({ id: campaignRecipients.campaignId, state: campaignRecipients.state, n: sql<string>`count(*)` })
    .from(campaignRecipients)
    .where(inArray(campaignRecipients.campaignId, ids))
    .groupBy(campaignRecipients.campaignId, campaignRecipients.state);
  for (const r of rows) {
    const counts = out.get(r.id) ?? noCounts();
    counts[r.state] = Number(r.n);
    out.set(r.id, counts);
  }
  return out;
}

/** Sets `patch` on the campaign while its status is one of `from`; none when it is not (or is not the workspace's). */
export async function updateCampaignIn(
  db: Db,
  organizationId: string,
  id: string,
  from: readonly CampaignStatus[],
  patch: Partial<Omit<Campaign, "id" | "organizationId" | "createdAt">>,
): Promise<Campaign | undefined> {
  const [row] = await db
    .update(campaigns)
    .set({ ...patch, updatedAt: new Date() })
    .where(and(ownedRow(campaigns, organizationId, id), inArray(campaigns.status, [...from]) as SQL))
    .returning();
  return row;
}

/**
 * Cancels the campaign while it is draft, running or paused, and its pending recipients with it,
 * in one statement. A recipient being called keeps its state: its call finishes and the runner
 * records how it ended. Whether the campaign was canceled.
 */
export async function cancelCampaignRow(db: Db, organizationId: string, id: string): Promise<boolean> {
  const result = await db.execute(sql`
    with campaign as (
      update ${campaigns} set status = 'canceled', paused_reason = null, updated_at = now()
      where id = ${id} and organization_id = ${organizationId} and status in ('draft', 'running', 'paused')
      returning id
    ), recipients as (
      update ${campaignRecipients} set state = 'canceled', next_attempt_at = null, updated_at = now()
      where campaign_id in (select id from campaign) and state = 'pending'
      returning 1
    )
    select count(*)::int as canceled from campaign`);
  return Number(rowsOf<{ canceled: number }>(result)[0]?.canceled ?? 0) > 0;
}

/** Deletes the campaign (its recipients cascade) while its status is one of `from`. */
export async function deleteCampaignIn(db: Db, organizationId: string, id: string, from: readonly CampaignStatus[]): Promise<boolean> {
  const deleted = await db
    .delete(campaigns)
    .where(and(ownedRow(campaigns, organizationId, id), inArray(campaigns.status, [...from]) as SQL))
    .returning({ id: campaigns.id });
  return deleted.length > 0;
}
