// The delivery log: deliveries of an endpoint, newest first, each with its attempt history.
// The statements are in queries/deliveries.ts.

import type { PageQuery } from "../db/pagination";
import type { DeliveryStatus, WebhookAttempt, WebhookDelivery } from "../db/schema";
import { ApiError } from "../lib/errors";
import { type Page, pageOf } from "../lib/pagination";
import type { Op } from "../services";
import { dispatch, type WebhookDeps } from "./deliver";
import { getEndpoint } from "./endpoints";
import { attemptsOfDeliveries, attemptsOfDelivery, deliveriesAbout, deliveryPage, findDelivery } from "./queries/deliveries";

export interface AttemptView {
  attempt: number;
  trigger: string;
  target: string;
  url: string;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  responseBody: string | null;
  signedAt: number;
  createdAt: string;
}

export interface DeliveryView {
  id: string;
  endpointId: string;
  event: string;
  status: WebhookDelivery["status"];
  attemptCount: number;
  lastStatusCode: number | null;
  subjectId: string | null;
  /** The request body exactly as sent on every attempt: the bytes each attempt's signature covers. */
  body: string;
  createdAt: string;
  updatedAt: string;
  attempts: AttemptView[];
}

const toAttemptView = (a: WebhookAttempt): AttemptView => ({
  attempt: a.attempt,
  trigger: a.trigger,
  target: a.target,
  url: a.url,
  statusCode: a.statusCode,
  error: a.error,
  durationMs: a.durationMs,
  responseBody: a.responseBody,
  signedAt: a.signedAt,
  createdAt: a.createdAt.toISOString(),
});

const toDeliveryView = (d: WebhookDelivery, attempts: WebhookAttempt[]): DeliveryView => ({
  id: d.id,
  endpointId: d.endpointId,
  event: d.event,
  status: d.status,
  attemptCount: d.attemptCount,
  lastStatusCode: d.lastStatusCode,
  subjectId: d.subjectId,
  body: d.payload,
  createdAt: d.createdAt.toISOString(),
  updatedAt: d.updatedAt.toISOString(),
  attempts: attempts
    .filter((a) => a.deliveryId === d.id)
    .sort((x, y) => x.attempt - y.attempt)
    .map(toAttemptView),
});

/** What the delivery log may be narrowed to (checked at the edge: deliveryFiltersSchema). */
export interface DeliveryFilters {
  status?: DeliveryStatus;
  event?: string;
}

/** A page of the endpoint's delivery log, newest first, narrowed by `filters`; its cursor pages on under the same filters. */
export async function listDeliveries({
  ctx: { db, organizationId },
  input: { endpointId, page, filters },
}: Op<{ endpointId: string; page: PageQuery; filters: DeliveryFilters }>): Promise<Page<DeliveryView>> {
  await getEndpoint({ ctx: { db, organizationId }, input: { id: endpointId } }); // 404 for another workspace's endpoint
  const rows = await deliveryPage(db, organizationId, endpointId, page, filters);
  const ids = rows.slice(0, page.limit).map((r) => r.id);
  const attempts = ids.length ? await attemptsOfDeliveries(db, ids) : [];
  return pageOf(rows, page.limit, (d) => toDeliveryView(d, attempts));
}

export async function getDelivery({
  ctx: { db, organizationId },
  input: { endpointId, deliveryId },
}: Op<{ endpointId: string; deliveryId: string }>): Promise<DeliveryView> {
  const row = await findDelivery(db, organizationId, endpointId, deliveryId);
  if (!row) throw new ApiError("not_found", "No delivery with that id for this endpoint.");
  const attempts = await attemptsOfDelivery(db, deliveryId);
  return toDeliveryView(row, attempts);
}

/**
 * Replays a delivery: a new attempt under the same delivery id, signed afresh. An inactive
 * endpoint (turned off, or by the service) receives nothing, so resending to it is a 409.
 */
export async function resendDelivery({
  ctx,
  input,
}: Op<{ endpointId: string; deliveryId: string }, keyof WebhookDeps | "organizationId">): Promise<DeliveryView> {
  const endpoint = await getEndpoint({ ctx, input: { id: input.endpointId } });
  await getDelivery({ ctx, input });
  if (!endpoint.active || endpoint.disabledReason) {
    throw new ApiError("conflict", "The endpoint is inactive: turn it on before resending.");
  }
  await dispatch(ctx, [input.deliveryId], "resend");
  return getDelivery({ ctx, input });
}

/** A webhook delivery about one subject (a call, a chat), with its endpoint's name (a call's page). */
export interface SubjectDelivery {
  id: string;
  event: string;
  status: WebhookDelivery["status"];
  attempts: number;
  createdAt: Date;
  endpointId: string;
  endpointName: string;
}

/** The workspace's webhook deliveries about this subject (a call's or a chat's id), oldest first. */
export async function deliveriesOf({ ctx, input: { subjectId } }: Op<{ subjectId: string }>): Promise<SubjectDelivery[]> {
  return deliveriesAbout(ctx.db, ctx.organizationId, subjectId);
}
