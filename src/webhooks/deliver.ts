// Emitting events and delivering them (spec: Events; DESIGN: Webhooks).
// emit() writes one delivery per subscribed endpoint and dispatches it: through QStash when
// QSTASH_TOKEN is set (QStash calls /internal/qstash/deliver, retries non-2xx, and calls
// /internal/qstash/failed when it gives up), otherwise directly with a single attempt.
// An attempt is signed when it is made, with a fresh timestamp and the endpoint's current
// secret, so a rotated-out secret never signs again, even for retries already queued.
// The statements are in queries/deliveries.ts.
import { Client } from "@upstash/qstash";
import type { Db } from "../db/client";
import type { AppConfig } from "../env";
import { newId } from "../lib/ids";
import { deliverPrepared, type EndpointFields, type Prepared, prepareDispatch, type Trigger, type WebhookDeps } from "./attempt";

export type { Trigger, WebhookDeps };

import { NEVER_DISPATCHED, payloadChannel } from "./events";
import { type BodyTemplate, bodyTemplate, bodyWithId, buildPayload, type EventData, shapePayload } from "./payload";
import { type DeliveryFields, insertDeliveries, type SubscribedEndpoint, writeSubscribedDeliveries } from "./queries/deliveries";
import { findEndpoint } from "./queries/endpoints";

export const QSTASH_DELIVER_PATH = "/internal/qstash/deliver";
export const QSTASH_FAILED_PATH = "/internal/qstash/failed";

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
  const trigger: Trigger = input.onlyEndpointId ? "test" : "emit";
  // A direct emit attempts what it just loaded: each delivery is written as attempt 1 and goes
  // straight to the HTTP call, with no second read of the endpoint (prepareDispatch's work).
  const direct = trigger === "emit" && !qstashMode(deps.config);
  const fields: DeliveryFields = {
    organizationId: input.organizationId,
    eventId,
    event: input.event,
    subjectId: input.subjectId ?? null,
    attemptCount: direct ? 1 : 0,
  };
  // Every delivery's payload is this one with its own deliveryId (or its endpoint's custom shape of
  // it), serialized once: what a delivery's row keeps is the text every attempt sends and signs.
  const full = buildPayload({
    deliveryId: "",
    event: input.event,
    channel: payloadChannel(input.event),
    timestamp: new Date(),
    data: input.data,
  });

  const { written, unwritten } = input.onlyEndpointId
    ? { written: [], unwritten: await testedEndpoint(deps.db, input.organizationId, input.onlyEndpointId) }
    : await writeForSubscribers(deps.db, fields, bodyTemplate(full));
  if (unwritten.length > 0) {
    const rows = unwritten.map((endpoint) => {
      const id = newId();
      const payload = { ...full, deliveryId: id };
      const body = JSON.stringify(endpoint.payloadMode === "custom" ? shapePayload(payload, endpoint.customFields) : payload);
      return { id, body, endpoint };
    });
    try {
      await insertDeliveries(
        deps.db,
        rows.map(({ id, body, endpoint }) => ({ ...fields, id, payload: body, endpointId: endpoint.id })),
      );
    } catch (error) {
      // What the first statement wrote still goes out; the emit fails for the rest.
      await send(deps, written, fields, direct, trigger);
      throw error;
    }
    written.push(...rows);
  }
  return { eventId, deliveryIds: await send(deps, written, fields, direct, trigger) };
}

/** Written deliveries on their way: attempted after the response (direct) or handed to QStash. */
async function send(
  deps: WebhookDeps,
  written: Array<{ id: string; body: string; endpoint: EndpointFields }>,
  fields: DeliveryFields,
  direct: boolean,
  trigger: Trigger,
): Promise<string[]> {
  const ids = written.map((r) => r.id);
  if (ids.length === 0) return ids;
  if (direct) {
    const prepared = written.map(({ id, body, endpoint }) => ({
      deliveryId: id,
      attempt: 1,
      organizationId: fields.organizationId,
      event: fields.event,
      body,
      endpoint,
    }));
    deps.waitUntil(deliverPrepared(deps, prepared, "emit"));
  } else {
    await dispatch(deps, ids, trigger);
  }
  return ids;
}

/** Send Test's endpoint, whatever it subscribes to: none when the workspace has no endpoint with this id. */
async function testedEndpoint(db: Db, organizationId: string, endpointId: string): Promise<SubscribedEndpoint[]> {
  const endpoint = await findEndpoint(db, organizationId, endpointId);
  return endpoint ? [endpoint] : [];
}

/**
 * The subscribers' deliveries written in one statement (writeSubscribedDeliveries), each with the
 * body it carries (the same text the statement wrote); the endpoints it leaves unwritten come back
 * for the caller to write.
 */
async function writeForSubscribers(
  db: Db,
  fields: DeliveryFields,
  template: BodyTemplate,
): Promise<{ written: Array<{ id: string; body: string; endpoint: SubscribedEndpoint }>; unwritten: SubscribedEndpoint[] }> {
  const written: Array<{ id: string; body: string; endpoint: SubscribedEndpoint }> = [];
  const unwritten: SubscribedEndpoint[] = [];
  for (const { deliveryId, endpoint } of await writeSubscribedDeliveries(db, fields, template)) {
    if (deliveryId) written.push({ id: deliveryId, body: bodyWithId(template, deliveryId), endpoint });
    else unwritten.push(endpoint);
  }
  return { written, unwritten };
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
  const run = async () => {
    const prepared: Prepared[] = [];
    for (const id of deliveryIds) {
      const ready = await prepareDispatch(deps, id, trigger);
      if ("endpoint" in ready) prepared.push(ready);
    }
    await deliverPrepared(deps, prepared, trigger);
  };
  if (trigger === "emit") deps.waitUntil(run());
  else await run();
}
