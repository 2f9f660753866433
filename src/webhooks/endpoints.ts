// Webhook endpoint management, shared by /v1/webhook-endpoints (API key) and the dashboard.
import { and, desc, eq } from "drizzle-orm";
import type { Db } from "../db/client";
import { type WebhookEndpoint, webhookEndpoints } from "../db/schema";
import type { AppConfig } from "../env";
import { randomBase62 } from "../lib/crypto";
import { ApiError } from "../lib/errors";
import { newId } from "../lib/ids";
import { type Page, type PageQuery, pageOf } from "../lib/pagination";
import { type Channel, eventsFor } from "./events";
import { checkUrl } from "./ssrf";

export const SECRET_PREFIX = "whs_";
export const newSigningSecret = () => SECRET_PREFIX + randomBase62(40);
export const maskSecret = (secret: string) => `${SECRET_PREFIX}...${secret.slice(-6)}`;

export interface EndpointInput {
  name: string;
  description: string | null;
  url: string | null;
  active: boolean;
  useTestReceiver: boolean;
  testUrl: string | null;
  testMode: boolean;
  channels: Channel[];
  /** "all" selects every event of the chosen channels; [] deselects all. */
  events: string[] | "all";
  payloadMode: "all" | "custom";
  customFields: string[];
}

export interface EndpointView extends Omit<EndpointInput, "events"> {
  id: string;
  events: string[];
  /** Masked (`whs_...XXXXXX`) except in the create and rotate responses. */
  secret: string;
  testReceiverUrl: string;
  disabledReason: string | null;
  createdAt: string;
  updatedAt: string;
}

export const endpointNotFound = () => new ApiError("not_found", "No webhook endpoint with that id in this workspace.");

/** The service's public origin: PUBLIC_BASE_URL, else the origin the request came to. */
export const publicOrigin = (config: Pick<AppConfig, "PUBLIC_BASE_URL">, requestOrigin: string | undefined): string =>
  config.PUBLIC_BASE_URL ?? requestOrigin ?? "";

export const captureUrl = (origin: string, token: string) => `${origin.replace(/\/$/, "")}/webhooks/test-receiver/${token}`;

export function toEndpointView(row: WebhookEndpoint, origin: string, revealSecret = false): EndpointView {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    url: row.url,
    active: row.active,
    useTestReceiver: row.useTestReceiver,
    testUrl: row.testUrl,
    testMode: row.testMode,
    channels: row.channels as Channel[],
    events: row.events,
    payloadMode: row.payloadMode,
    customFields: row.customFields,
    secret: revealSecret ? row.secret : maskSecret(row.secret),
    testReceiverUrl: captureUrl(origin, row.captureToken),
    disabledReason: row.disabledReason,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/**
 * Rules across fields, and the receiver URL guard (again at every delivery, after DNS).
 * Channels, events and custom fields are stored without duplicates, in the order given.
 */
function normalize(input: EndpointInput, allowPrivate: boolean): Omit<EndpointInput, "events"> & { events: string[] } {
  const issues: Array<{ path: string; message: string }> = [];
  const channels = [...new Set(input.channels)];
  const selectable = [...new Set(eventsFor(channels))];
  const events = input.events === "all" ? selectable : [...new Set(input.events)];
  for (const e of events) {
    if (!selectable.includes(e)) issues.push({ path: "events", message: `${e} is not an event of the channels ${channels.join(", ")}` });
  }
  if (!input.url && !input.useTestReceiver)
    issues.push({ path: "url", message: "a production URL is required unless the built-in test receiver is used" });
  if (input.testMode && !input.testUrl) issues.push({ path: "testUrl", message: "test mode needs a test URL" });
  for (const field of ["url", "testUrl"] as const) {
    const value = input[field];
    if (!value) continue;
    const verdict = checkUrl(value, allowPrivate);
    if (!verdict.ok) issues.push({ path: field, message: `the URL ${verdict.reason}` });
  }
  if (input.payloadMode === "custom" && input.customFields.length === 0) {
    issues.push({ path: "customFields", message: "custom payload mode needs at least one leaf path" });
  }
  const first = issues[0];
  if (first) throw new ApiError("validation_failed", `Invalid body: ${first.path}: ${first.message}`, { issues });
  return { ...input, channels, events, customFields: input.payloadMode === "custom" ? [...new Set(input.customFields)] : [] };
}

export async function createEndpoint(
  db: Db,
  organizationId: string,
  input: EndpointInput,
  allowPrivate: boolean,
): Promise<WebhookEndpoint> {
  const values = normalize(input, allowPrivate);
  const [row] = await db
    .insert(webhookEndpoints)
    .values({ id: newId(), organizationId, ...values, secret: newSigningSecret(), captureToken: randomBase62(32) })
    .returning();
  if (!row) throw new Error("insert returned no row");
  return row;
}

export async function getEndpoint(db: Db, organizationId: string, id: string): Promise<WebhookEndpoint> {
  const [row] = await db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.organizationId, organizationId)));
  if (!row) throw endpointNotFound();
  return row;
}

/**
 * PATCH: read the row FOR UPDATE, merge, check, write, in one transaction, so a concurrent
 * PATCH or a service-side change (410 auto-disable, failure count) waits instead of being lost.
 */
export async function updateEndpoint(
  db: Db,
  organizationId: string,
  id: string,
  patch: Partial<EndpointInput>,
  allowPrivate: boolean,
): Promise<WebhookEndpoint> {
  return db.transaction(async (tx) => {
    const [current] = await tx
      .select()
      .from(webhookEndpoints)
      .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.organizationId, organizationId)))
      .for("update");
    if (!current) throw endpointNotFound();
    const merged: EndpointInput = {
      name: patch.name ?? current.name,
      description: patch.description !== undefined ? patch.description : current.description,
      url: patch.url !== undefined ? patch.url : current.url,
      active: patch.active ?? current.active,
      useTestReceiver: patch.useTestReceiver ?? current.useTestReceiver,
      testUrl: patch.testUrl !== undefined ? patch.testUrl : current.testUrl,
      testMode: patch.testMode ?? current.testMode,
      channels: patch.channels ?? (current.channels as Channel[]),
      // Changing channels without naming events keeps the events still selectable.
      events: patch.events ?? current.events.filter((e) => eventsFor(patch.channels ?? (current.channels as Channel[])).includes(e)),
      payloadMode: patch.payloadMode ?? current.payloadMode,
      customFields: patch.customFields ?? current.customFields,
    };
    const values = normalize(merged, allowPrivate);
    // Turning an endpoint back on clears what turned it off.
    const reenable = patch.active === true ? { disabledReason: null, consecutiveFailures: 0 } : {};
    const [row] = await tx
      .update(webhookEndpoints)
      .set({ ...values, ...reenable })
      .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.organizationId, organizationId)))
      .returning();
    if (!row) throw endpointNotFound();
    return row;
  });
}

export async function rotateSecret(db: Db, organizationId: string, id: string): Promise<WebhookEndpoint> {
  const [row] = await db
    .update(webhookEndpoints)
    .set({ secret: newSigningSecret(), secretRotatedAt: new Date() })
    .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.organizationId, organizationId)))
    .returning();
  if (!row) throw endpointNotFound();
  return row;
}

export async function deleteEndpoint(db: Db, organizationId: string, id: string): Promise<void> {
  const deleted = await db
    .delete(webhookEndpoints)
    .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.organizationId, organizationId)))
    .returning({ id: webhookEndpoints.id });
  if (deleted.length === 0) throw endpointNotFound();
}

export async function listEndpoints(db: Db, organizationId: string, page: PageQuery, origin: string): Promise<Page<EndpointView>> {
  const rows = await db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.organizationId, organizationId), ...page.where(webhookEndpoints)))
    .orderBy(desc(webhookEndpoints.id))
    .limit(page.limit + 1);
  return pageOf(rows, page.limit, (r) => toEndpointView(r, origin));
}
