// Emitting events and delivering them (spec: Events; DESIGN: Webhooks).
// emit() writes one delivery per subscribed endpoint and dispatches it: through QStash when
// QSTASH_TOKEN is set (QStash calls /internal/qstash/deliver, retries non-2xx, and calls
// /internal/qstash/failed when it gives up), otherwise directly with a single attempt.
// An attempt is signed when it is made, with a fresh timestamp and the endpoint's current
// secret, so a rotated-out secret never signs again, even for retries already queued.
import { Client } from "@upstash/qstash";
import { and, eq, isNull, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { type WebhookEndpoint, webhookAttempts, webhookDeliveries, webhookEndpoints } from "../db/schema";
import type { AppConfig } from "../env";
import { mapLimit } from "../lib/concurrency";
import { newId } from "../lib/ids";
import { redisFor } from "../lib/redis";
import { captureRequest } from "./capture";
import { captureUrl, publicOrigin } from "./endpoints";
import { NEVER_DISPATCHED, payloadChannel } from "./events";
import { buildPayload, type EventData, shapePayload } from "./payload";
import { signPayload } from "./signature";
import { checkUrlResolved, dohResolver } from "./ssrf";

export const USER_AGENT = "Service-Webhooks/1.0";
export const RESPONSE_BODY_CAP = 2048;
/** Final failures in a row after which the service turns an endpoint off. */
export const DISABLE_AFTER_FAILURES = 20;
export const QSTASH_DELIVER_PATH = "/internal/qstash/deliver";
export const QSTASH_FAILED_PATH = "/internal/qstash/failed";

export interface WebhookDeps {
  db: Db;
  config: AppConfig;
  /** Keeps work alive after the response (the request scope's defer in the worker). */
  waitUntil(promise: Promise<unknown>): void;
  /** The request's origin, for the built-in test receiver's URL when PUBLIC_BASE_URL is unset. */
  origin?: string;
}

export type Trigger = "emit" | "retry" | "resend" | "test";

const qstashMode = (config: AppConfig) => Boolean(config.QSTASH_TOKEN);

export interface EmitInput {
  organizationId: string;
  event: string;
  data: EventData;
  /** The call or chat id, so the deliveries of one call can be listed. */
  subjectId?: string;
  /** Send Test: this endpoint only, whatever it subscribes to. */
  onlyEndpointId?: string;
}

/** The one way any producer sends an event. Returns the delivery ids it created. */
export async function emit(deps: WebhookDeps, input: EmitInput): Promise<{ eventId: string; deliveryIds: string[] }> {
  const eventId = newId();
  if (NEVER_DISPATCHED.has(input.event)) return { eventId, deliveryIds: [] };
  const endpoints = input.onlyEndpointId
    ? await deps.db
        .select()
        .from(webhookEndpoints)
        .where(and(eq(webhookEndpoints.id, input.onlyEndpointId), eq(webhookEndpoints.organizationId, input.organizationId)))
    : await deps.db
        .select()
        .from(webhookEndpoints)
        .where(
          and(
            eq(webhookEndpoints.organizationId, input.organizationId),
            eq(webhookEndpoints.active, true),
            isNull(webhookEndpoints.disabledReason),
            sql`${webhookEndpoints.events} @> ${JSON.stringify([input.event])}::jsonb`,
          ),
        );
  if (endpoints.length === 0) return { eventId, deliveryIds: [] };

  const timestamp = new Date();
  const rows = endpoints.map((endpoint) => {
    const id = newId();
    const full = buildPayload({ deliveryId: id, event: input.event, channel: payloadChannel(input.event), timestamp, data: input.data });
    const payload = endpoint.payloadMode === "custom" ? shapePayload(full, endpoint.customFields) : full;
    return {
      id,
      organizationId: input.organizationId,
      endpointId: endpoint.id,
      eventId,
      event: input.event,
      subjectId: input.subjectId ?? null,
      payload,
    };
  });
  await deps.db.insert(webhookDeliveries).values(rows);
  const ids = rows.map((r) => r.id);
  await dispatch(deps, ids, input.onlyEndpointId ? "test" : "emit");
  return { eventId, deliveryIds: ids };
}

/**
 * Hands deliveries to QStash, or attempts them directly. Direct attempts of `test` and
 * `resend` are awaited (the caller shows the result); those of `emit` run after the response.
 */
export async function dispatch(deps: WebhookDeps, deliveryIds: string[], trigger: Trigger): Promise<void> {
  const { config } = deps;
  if (qstashMode(config)) {
    const client = new Client({ token: config.QSTASH_TOKEN as string, baseUrl: config.QSTASH_URL });
    const base = (config.PUBLIC_BASE_URL as string).replace(/\/$/, "");
    await Promise.all(
      deliveryIds.map((deliveryId) =>
        client.publishJSON({
          url: `${base}${QSTASH_DELIVER_PATH}`,
          body: { deliveryId, trigger },
          // Same delivery, same id: a duplicate publish is dropped. A resend is a new message.
          deduplicationId: trigger === "resend" ? `${deliveryId}-resend-${newId()}` : deliveryId,
          retries: config.WEBHOOK_MAX_RETRIES,
          failureCallback: `${base}${QSTASH_FAILED_PATH}`,
          timeout: Math.ceil(config.WEBHOOK_TIMEOUT_MS / 1000) + 5,
        }),
      ),
    );
    return;
  }
  // Six at a time: a Worker keeps at most six outgoing connections open at once anyway.
  const run = () =>
    mapLimit(deliveryIds, 6, async (id) => {
      const result = await attemptDelivery(deps, id, trigger);
      if (!result.ok) await recordFinalFailure(deps, id);
    });
  if (trigger === "emit") deps.waitUntil(run());
  else await run();
}

export interface AttemptResult {
  ok: boolean;
  /** false when retrying cannot help (endpoint gone or off, URL refused); a failed DNS lookup is retried. */
  retryable: boolean;
  statusCode: number | null;
  error: string | null;
  attempt: number | null;
}

export type TargetKind = "production" | "test" | "test_receiver";
type Target = { kind: TargetKind; url: string };

type TargetFields = Pick<WebhookEndpoint, "url" | "useTestReceiver" | "testMode" | "testUrl" | "captureToken">;

/** Where an endpoint's deliveries go: the built-in test receiver, else the Test URL in Test Mode, else the Production URL. */
export function targetKind(endpoint: Omit<TargetFields, "captureToken">): TargetKind | null {
  if (endpoint.useTestReceiver) return "test_receiver";
  if (endpoint.testMode && endpoint.testUrl) return "test";
  return endpoint.url ? "production" : null;
}

function targetOf(endpoint: TargetFields, config: AppConfig, origin: string | undefined): Target | null {
  switch (targetKind(endpoint)) {
    case "test_receiver":
      return { kind: "test_receiver", url: captureUrl(publicOrigin(config, origin), endpoint.captureToken) };
    case "test":
      return { kind: "test", url: endpoint.testUrl as string };
    case "production":
      return { kind: "production", url: endpoint.url as string };
    default:
      return null;
  }
}

async function readCapped(res: Response, cap: number): Promise<string> {
  if (!res.body) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (size < cap) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.length;
  }
  await reader.cancel().catch(() => undefined);
  const all = new Uint8Array(Math.min(size, cap));
  let offset = 0;
  for (const c of chunks) {
    const part = c.subarray(0, Math.max(0, all.length - offset));
    all.set(part, offset);
    offset += part.length;
  }
  return new TextDecoder().decode(all);
}

/** One attempt of one delivery: resolve the target, check it, sign, POST, record. */
export async function attemptDelivery(deps: WebhookDeps, deliveryId: string, trigger: Trigger): Promise<AttemptResult> {
  const { db, config } = deps;
  // One round trip: number the attempt and load what it needs, only if the endpoint may receive.
  const [row] = await db
    .update(webhookDeliveries)
    .set({ attemptCount: sql`${webhookDeliveries.attemptCount} + 1` })
    .from(webhookEndpoints)
    .where(
      and(
        eq(webhookDeliveries.id, deliveryId),
        eq(webhookEndpoints.id, webhookDeliveries.endpointId),
        ...(trigger === "test" ? [] : [eq(webhookEndpoints.active, true), isNull(webhookEndpoints.disabledReason)]),
      ),
    )
    .returning({
      attempt: webhookDeliveries.attemptCount,
      organizationId: webhookDeliveries.organizationId,
      event: webhookDeliveries.event,
      payload: webhookDeliveries.payload,
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
  if (!row) {
    const [exists] = await db.select({ id: webhookDeliveries.id }).from(webhookDeliveries).where(eq(webhookDeliveries.id, deliveryId));
    const error = exists ? "endpoint is inactive" : "delivery or endpoint no longer exists";
    return { ok: false, retryable: false, statusCode: null, error, attempt: null };
  }
  const { endpoint, attempt } = row;
  const delivery = { id: deliveryId, organizationId: row.organizationId, event: row.event, payload: row.payload };
  const target = targetOf(endpoint, config, deps.origin);

  const raw = JSON.stringify(delivery.payload);
  const signedAt = Math.floor(Date.now() / 1000);
  const headers = new Headers({
    "content-type": "application/json",
    "user-agent": USER_AGENT,
    "x-service-event": delivery.event,
    "x-service-delivery-id": delivery.id,
    "x-service-signature": await signPayload(endpoint.secret, raw, signedAt),
  });

  const started = Date.now();
  let statusCode: number | null = null;
  let error: string | null = null;
  let responseBody: string | null = null;
  let retryable = true;

  if (!target) {
    error = "endpoint has no URL to deliver to";
    retryable = false;
  } else if (target.kind === "test_receiver") {
    await captureRequest(redisFor(config), endpoint.captureToken, { method: "POST", headers, body: raw });
    statusCode = 200;
  } else {
    const verdict = await checkUrlResolved(target.url, config.WEBHOOKS_ALLOW_PRIVATE_URLS, dohResolver(config.DNS_RESOLVER_URL));
    if (!verdict.ok && verdict.transient) {
      // The resolver failed, not the URL: a later attempt may get through.
      error = `DNS lookup failed: the URL ${verdict.reason}`;
    } else if (!verdict.ok) {
      error = `refused: the URL ${verdict.reason}`;
      retryable = false;
    } else {
      try {
        const res = await fetch(verdict.url.toString(), {
          method: "POST",
          headers,
          body: raw,
          redirect: "manual",
          signal: AbortSignal.timeout(config.WEBHOOK_TIMEOUT_MS),
        });
        statusCode = res.status;
        responseBody = await readCapped(res, RESPONSE_BODY_CAP);
        if (res.status >= 300 && res.status < 400) error = "redirects are not followed";
      } catch (err) {
        const e = err as Error;
        error = e.name === "TimeoutError" ? `timed out after ${config.WEBHOOK_TIMEOUT_MS} ms` : `network error: ${e.message}`;
      }
    }
  }
  const ok = statusCode !== null && statusCode >= 200 && statusCode < 300;
  const durationMs = Date.now() - started;

  // One round trip: the attempt row and the delivery's new state, in one statement (a
  // data-modifying CTE), so the log never shows a state without its attempt.
  const recorded = db.$with("recorded").as(
    db
      .insert(webhookAttempts)
      .values({
        id: newId(),
        deliveryId,
        organizationId: delivery.organizationId,
        endpointId: endpoint.id,
        attempt,
        target: target?.kind ?? "production",
        url: target?.url ?? "",
        statusCode,
        error,
        durationMs,
        responseBody,
        signedAt,
        trigger,
      })
      .returning({ id: webhookAttempts.id }),
  );
  await db
    .with(recorded)
    .update(webhookDeliveries)
    .set({ status: ok ? "succeeded" : "failed", lastStatusCode: statusCode })
    .where(eq(webhookDeliveries.id, deliveryId));

  if (ok && endpoint.consecutiveFailures > 0) {
    await db.update(webhookEndpoints).set({ consecutiveFailures: 0 }).where(eq(webhookEndpoints.id, endpoint.id));
  }
  if (statusCode === 410 && target?.kind === "production") {
    // The receiver says it is gone for good: stop sending (Stripe and Svix do the same).
    await db
      .update(webhookEndpoints)
      .set({ active: false, disabledReason: "The receiver answered 410 Gone." })
      .where(eq(webhookEndpoints.id, endpoint.id));
    retryable = false;
  }
  return { ok, retryable: !ok && retryable, statusCode, error, attempt };
}

/** A delivery that will not be retried any more failed: count it against the endpoint. */
export async function recordFinalFailure(deps: WebhookDeps, deliveryId: string): Promise<void> {
  const { db } = deps;
  const [delivery] = await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, deliveryId));
  if (!delivery || delivery.status === "succeeded") return;
  const [endpoint] = await db
    .update(webhookEndpoints)
    .set({ consecutiveFailures: sql`${webhookEndpoints.consecutiveFailures} + 1` })
    .where(eq(webhookEndpoints.id, delivery.endpointId))
    .returning();
  if (endpoint && endpoint.consecutiveFailures >= DISABLE_AFTER_FAILURES && !endpoint.disabledReason) {
    await db
      .update(webhookEndpoints)
      .set({ active: false, disabledReason: `Turned off after ${DISABLE_AFTER_FAILURES} failed deliveries in a row.` })
      .where(eq(webhookEndpoints.id, endpoint.id));
  }
}
