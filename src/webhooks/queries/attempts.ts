// The queries of a delivery attempt (src/webhooks/attempt.ts runs the stages): numbering an
// attempt and loading what it needs, recording attempts with their deliveries' states, and the
// endpoints' side of the outcomes (failures in a row, turned off). None is scoped by organization:
// each names a delivery or an endpoint the service wrote or loaded itself, never one from a request.
import { and, eq, isNull, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import {
  type WebhookAttempt,
  type WebhookDelivery,
  type WebhookEndpoint,
  webhookAttempts,
  webhookDeliveries,
  webhookEndpoints,
} from "../../db/schema";
import { newId } from "../../lib/ids";

/**
 * One round trip: adds one to the delivery's attempt count and loads the delivery and its
 * endpoint as they are now, only if the endpoint may receive (active, not turned off by the
 * service) unless `evenIfInactive` (a test). No row when the delivery or its endpoint is gone or
 * the endpoint may not receive.
 */
export async function numberAttempt(db: Db, deliveryId: string, evenIfInactive: boolean) {
  const [row] = await db
    .update(webhookDeliveries)
    .set({ attemptCount: sql`${webhookDeliveries.attemptCount} + 1` })
    .from(webhookEndpoints)
    .where(
      and(
        eq(webhookDeliveries.id, deliveryId),
        eq(webhookEndpoints.id, webhookDeliveries.endpointId),
        ...(evenIfInactive ? [] : [eq(webhookEndpoints.active, true), isNull(webhookEndpoints.disabledReason)]),
      ),
    )
    .returning({
      attempt: webhookDeliveries.attemptCount,
      organizationId: webhookDeliveries.organizationId,
      event: webhookDeliveries.event,
      body: webhookDeliveries.payload,
      endpoint: {
        id: webhookEndpoints.id,
        url: webhookEndpoints.url,
        useTestReceiver: webhookEndpoints.useTestReceiver,
        testMode: webhookEndpoints.testMode,
        testUrl: webhookEndpoints.testUrl,
        captureToken: webhookEndpoints.captureToken,
        secret: webhookEndpoints.secret,
        consecutiveFailures: webhookEndpoints.consecutiveFailures,
      },
    });
  return row;
}

/** Whether the delivery is still there (to say why numberAttempt found nothing). */
export async function deliveryExists(db: Db, deliveryId: string): Promise<boolean> {
  const [exists] = await db.select({ id: webhookDeliveries.id }).from(webhookDeliveries).where(eq(webhookDeliveries.id, deliveryId));
  return Boolean(exists);
}

/** One attempt as it is recorded: its row, and its delivery's new state. */
export interface AttemptRecord {
  deliveryId: string;
  organizationId: string;
  endpointId: string;
  attempt: number;
  target: string;
  url: string;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  responseBody: string | null;
  signedAt: number;
  /** The delivery succeeded with this attempt (else it failed). */
  ok: boolean;
}

/**
 * One statement for any number of attempts: their rows and their deliveries' new states (a
 * data-modifying CTE), so the log never shows a state without its attempt.
 */
export async function insertAttempts(db: Db, records: AttemptRecord[], trigger: WebhookAttempt["trigger"]): Promise<void> {
  if (records.length === 0) return;
  // One array per column: a statement of a few parameters however many attempts it records.
  const column = <T>(of: (r: AttemptRecord) => T) => sql.param(records.map(of));
  await db.execute(sql`
    with recorded as (
      insert into ${webhookAttempts} (id, delivery_id, organization_id, endpoint_id, attempt, target, url, status_code, error,
        duration_ms, response_body, signed_at, trigger)
      select a.*, ${trigger}::text from unnest(
        ${column(() => newId())}::uuid[], ${column((r) => r.deliveryId)}::uuid[],
        ${column((r) => r.organizationId)}::uuid[], ${column((r) => r.endpointId)}::uuid[],
        ${column((r) => r.attempt)}::int[], ${column((r) => r.target)}::text[],
        ${column((r) => r.url)}::text[], ${column((r) => r.statusCode)}::int[], ${column((r) => r.error)}::text[],
        ${column((r) => r.durationMs)}::int[], ${column((r) => r.responseBody)}::text[], ${column((r) => r.signedAt)}::int[]
      ) as a
      returning delivery_id
    )
    update ${webhookDeliveries} set status = v.status, last_status_code = v.code, updated_at = now()
    from unnest(${column((r) => r.deliveryId)}::uuid[], ${column((r) => (r.ok ? "succeeded" : "failed"))}::text[],
      ${column((r) => r.statusCode)}::int[]) as v(id, status, code)
    where ${webhookDeliveries.id} = v.id`);
}

/** What a set of outcomes does to one endpoint. */
export interface EndpointChange {
  /** A success with no failure counted here: the count of failures in a row starts again. */
  ok: boolean;
  /** Final failures to add to the count. */
  failed: number;
  /** The Production URL answered 410 Gone. */
  gone: boolean;
}

/**
 * The endpoints' changes in one statement: the count of failures in a row reset or added to, the
 * endpoint turned off (with `reasons.gone` or `reasons.tooMany`) when gone or once the count
 * reaches `disableAfter`. An endpoint turned off already keeps its first reason.
 */
export async function applyEndpointChanges(
  db: Db,
  changes: Map<string, EndpointChange>,
  disableAfter: number,
  reasons: { gone: string; tooMany: string },
): Promise<void> {
  const ids = [...changes.keys()];
  const v = [...changes.values()];
  const after = sql`(case when v.ok and v.failed = 0 then 0 else ${webhookEndpoints.consecutiveFailures} + v.failed end)`;
  const tooMany = sql`(${after} >= ${disableAfter} and ${webhookEndpoints.disabledReason} is null)`;
  await db
    .update(webhookEndpoints)
    .set({
      consecutiveFailures: after,
      active: sql`case when v.gone or ${tooMany} then false else ${webhookEndpoints.active} end`,
      disabledReason: sql`case when ${webhookEndpoints.disabledReason} is not null then ${webhookEndpoints.disabledReason}
        when v.gone then ${reasons.gone}
        when ${tooMany} then ${reasons.tooMany}
        else null end`,
    })
    .from(
      sql`unnest(${sql.param(ids)}::uuid[], ${sql.param(v.map((c) => c.ok))}::boolean[], ${sql.param(v.map((c) => c.failed))}::int[], ${sql.param(v.map((c) => c.gone))}::boolean[]) as v(id, ok, failed, gone)`,
    )
    .where(eq(webhookEndpoints.id, sql`v.id`));
}

/** A delivery by id, whatever its workspace (QStash names it; the service wrote it). */
export async function deliveryById(db: Db, deliveryId: string): Promise<WebhookDelivery | undefined> {
  const [delivery] = await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, deliveryId));
  return delivery;
}

/** Adds one to the endpoint's failures in a row; the endpoint as it is afterwards (none when gone). */
export async function addEndpointFailure(db: Db, endpointId: string): Promise<WebhookEndpoint | undefined> {
  const [endpoint] = await db
    .update(webhookEndpoints)
    .set({ consecutiveFailures: sql`${webhookEndpoints.consecutiveFailures} + 1` })
    .where(eq(webhookEndpoints.id, endpointId))
    .returning();
  return endpoint;
}

/** The service turns the endpoint off, saying why. */
export async function turnOffEndpoint(db: Db, endpointId: string, reason: string): Promise<void> {
  await db.update(webhookEndpoints).set({ active: false, disabledReason: reason }).where(eq(webhookEndpoints.id, endpointId));
}
