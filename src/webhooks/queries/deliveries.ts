// The queries of webhook deliveries: writing an emit's deliveries (src/webhooks/deliver.ts) and
// reading the delivery log with its attempts (src/webhooks/log.ts). What a request names is scoped
// to its workspace with src/db/tenancy.ts; attempts are read by deliveries already scoped.
import { and, asc, desc, eq, inArray, sql } from "drizzle-orm";
import { type Db, rowsOf } from "../../db/client";
import type { PageQuery } from "../../db/pagination";
import {
  type WebhookAttempt,
  type WebhookDelivery,
  type WebhookEndpoint,
  webhookAttempts,
  webhookDeliveries,
  webhookEndpoints,
} from "../../db/schema";
import { ownedBy, ownedRow } from "../../db/tenancy";
import { newId } from "../../lib/ids";
import type { BodyTemplate } from "../payload";

/** What every delivery of one emit has in common. */
export interface DeliveryFields {
  organizationId: string;
  eventId: string;
  event: string;
  subjectId: string | null;
  attemptCount: number;
}

/** What an emit loads of a subscribed endpoint: what an attempt needs, and how to shape the payload. */
export type SubscribedEndpoint = Pick<
  WebhookEndpoint,
  | "id"
  | "url"
  | "useTestReceiver"
  | "testMode"
  | "testUrl"
  | "captureToken"
  | "secret"
  | "consecutiveFailures"
  | "payloadMode"
  | "customFields"
>;

/** How many delivery ids the fan-out's one statement brings; endpoints past them are written by a second. */
const IDS_PER_EMIT = 128;

/**
 * One statement finds the endpoints subscribed to the event and writes their deliveries, with
 * ids made here (uuidv7, in order) and the body's text sent once, in two parts: each delivery's
 * body is `head || id || tail`, the text bodyWithId makes of them. What it leaves unwritten (endpoints
 * with a custom payload, any past the ids brought) comes back without a delivery id, for the
 * caller to write. Each endpoint's delivery id is paired with it before the insert, so the answer
 * is read from the endpoints alone (Postgres runs a data-modifying CTE to completion whether or
 * not it is read); joining the insert's RETURNING back to them made a nested loop of 100 × 100 rows.
 */
export async function writeSubscribedDeliveries(
  db: Db,
  fields: DeliveryFields,
  template: BodyTemplate,
): Promise<Array<{ deliveryId: string | null; endpoint: SubscribedEndpoint }>> {
  const ids = Array.from({ length: IDS_PER_EMIT }, () => newId());
  const rows = rowsOf<SubscriberRow>(
    await db.execute(sql`
      with e as (
        select s.*, case when s.payload_mode <> 'custom' then d.id end as delivery_id
        from (
          select id, url, use_test_receiver, test_mode, test_url, capture_token, secret, consecutive_failures, payload_mode,
            custom_fields, row_number() over (order by id) as n
          from ${webhookEndpoints}
          where ${ownedBy(webhookEndpoints, fields.organizationId)} and active and disabled_reason is null
            and events @> ${JSON.stringify([fields.event])}::jsonb
        ) s left join unnest(${sql.param(ids)}::uuid[]) with ordinality as d(id, n) on d.n = s.n
      ), written as (
        insert into ${webhookDeliveries} (id, organization_id, endpoint_id, event_id, event, subject_id, payload, attempt_count)
        select e.delivery_id, ${fields.organizationId}::uuid, e.id, ${fields.eventId}::uuid, ${fields.event}::text, ${fields.subjectId}::text,
          ${template.head}::text || e.delivery_id::text || ${template.tail}::text, ${fields.attemptCount}::int
        from e where e.delivery_id is not null
      )
      select * from e order by n`),
  );
  return rows.map((row) => ({
    deliveryId: row.delivery_id,
    endpoint: {
      id: row.id,
      url: row.url,
      useTestReceiver: row.use_test_receiver,
      testMode: row.test_mode,
      testUrl: row.test_url,
      captureToken: row.capture_token,
      secret: row.secret,
      consecutiveFailures: Number(row.consecutive_failures),
      payloadMode: row.payload_mode,
      customFields: row.custom_fields,
    },
  }));
}

interface SubscriberRow {
  id: string;
  url: string | null;
  use_test_receiver: boolean;
  test_mode: boolean;
  test_url: string | null;
  capture_token: string;
  secret: string;
  consecutive_failures: number | string;
  payload_mode: "all" | "custom";
  custom_fields: string[];
  delivery_id: string | null;
}

/** Writes deliveries in one statement (those writeSubscribedDeliveries leaves, or a test's). */
export async function insertDeliveries(db: Db, rows: Array<typeof webhookDeliveries.$inferInsert>): Promise<void> {
  await db.insert(webhookDeliveries).values(rows);
}

/**
 * A page of the deliveries of the workspace's endpoint, newest first, one row past the page to
 * tell whether more follow; `filters` narrow them to a status or an event.
 */
export async function deliveryPage(
  db: Db,
  organizationId: string,
  endpointId: string,
  page: PageQuery,
  filters: { status?: WebhookDelivery["status"]; event?: string },
): Promise<WebhookDelivery[]> {
  return db
    .select()
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.endpointId, endpointId),
        ownedBy(webhookDeliveries, organizationId),
        ...(filters.status ? [eq(webhookDeliveries.status, filters.status)] : []),
        ...(filters.event ? [eq(webhookDeliveries.event, filters.event)] : []),
        ...page.where(webhookDeliveries),
      ),
    )
    .orderBy(desc(webhookDeliveries.id))
    .limit(page.limit + 1);
}

/** The workspace's delivery with this id to this endpoint, if any. */
export async function findDelivery(
  db: Db,
  organizationId: string,
  endpointId: string,
  deliveryId: string,
): Promise<WebhookDelivery | undefined> {
  const [row] = await db
    .select()
    .from(webhookDeliveries)
    .where(and(ownedRow(webhookDeliveries, organizationId, deliveryId), eq(webhookDeliveries.endpointId, endpointId)));
  return row;
}

/** Every attempt of these deliveries (in no order). */
export async function attemptsOfDeliveries(db: Db, deliveryIds: string[]): Promise<WebhookAttempt[]> {
  return db.select().from(webhookAttempts).where(inArray(webhookAttempts.deliveryId, deliveryIds));
}

/** Every attempt of one delivery (in no order). */
export async function attemptsOfDelivery(db: Db, deliveryId: string): Promise<WebhookAttempt[]> {
  return db.select().from(webhookAttempts).where(eq(webhookAttempts.deliveryId, deliveryId));
}

/** The workspace's deliveries about this subject, oldest first, each with its endpoint's name. */
export async function deliveriesAbout(db: Db, organizationId: string, subjectId: string) {
  return db
    .select({
      id: webhookDeliveries.id,
      event: webhookDeliveries.event,
      status: webhookDeliveries.status,
      attempts: webhookDeliveries.attemptCount,
      createdAt: webhookDeliveries.createdAt,
      endpointId: webhookDeliveries.endpointId,
      endpointName: webhookEndpoints.name,
    })
    .from(webhookDeliveries)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
    .where(and(ownedBy(webhookDeliveries, organizationId), eq(webhookDeliveries.subjectId, subjectId)))
    .orderBy(asc(webhookDeliveries.id));
}
