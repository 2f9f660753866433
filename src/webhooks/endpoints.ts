// Webhook endpoint management, shared by /v1/webhook-endpoints (API key) and the dashboard.
// The rules are here; the statements are in queries/endpoints.ts. Each operation takes one
// `{ ctx, input }` (src/services.ts): a `Ctx<"db" | "organizationId">`, plus `"config"` where a
// secret is sealed or opened or a URL checked, and `"publicOrigin"` where views are built.
import type { PageQuery } from "../db/pagination";
import type { WebhookEndpoint } from "../db/schema";
import type { AppConfig } from "../env";
import { randomBase62 } from "../lib/crypto";
import { ApiError } from "../lib/errors";
import { newId } from "../lib/ids";
import { type Page, pageOf } from "../lib/pagination";
import { isSealed } from "../lib/secrets";
import { type Op, publicOrigin } from "../services";
import { type Channel, eventsFor } from "./events";
import {
  changeEndpoint,
  deleteOwnedEndpoint,
  endpointPage,
  findEndpoint,
  insertEndpoint,
  replaceEndpointSecret,
} from "./queries/endpoints";
import { openEndpoint, sealEndpointSecret } from "./secret-store";
import { checkUrl, checkUrlAtSave, dohResolver, SAVE_DNS_TIMEOUT_MS } from "./ssrf";

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

/** What the endpoint service needs of the configuration: the URL guard's settings and the keys. */
export type EndpointConfig = Pick<AppConfig, "WEBHOOKS_ALLOW_PRIVATE_URLS" | "DNS_RESOLVER_URL" | "SECRETS_KEK">;

const URL_FIELDS = ["url", "testUrl"] as const;
type UrlField = (typeof URL_FIELDS)[number];

/**
 * A URL saved without the full check: the resolver could not be reached (`dns_unavailable`) or
 * the name has no address yet (`dns_no_address`). Deliveries check it again before each attempt.
 */
export interface SaveWarning {
  path: UrlField;
  code: "dns_unavailable" | "dns_no_address";
  message: string;
}

/** A created or updated endpoint, its secret opened, with what the save could not check. */
export type SavedEndpoint = WebhookEndpoint & { warnings: SaveWarning[] };

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

/** The service's public origin (src/services.ts), named here too for the surfaces that build views. */
export { publicOrigin };

export const captureUrl = (origin: string, token: string) => `${origin.replace(/\/$/, "")}/webhooks/test-receiver/${token}`;

/** The API's view of a row whose secret is opened (openEndpoint, or a service's result). */
export function toEndpointView(row: WebhookEndpoint, origin: string, revealSecret = false): EndpointView {
  if (isSealed(row.secret)) throw new Error("toEndpointView needs the row with its secret opened (openEndpoint)");
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
 * Rules across fields, and the receiver URL guard's checks that need no DNS on the URL fields
 * named in `check` (again at every delivery, after DNS). Channels, events and custom fields are
 * stored without duplicates, in the order given.
 */
function normalize(
  input: EndpointInput,
  allowPrivate: boolean,
  check: readonly UrlField[],
): Omit<EndpointInput, "events"> & { events: string[] } {
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
  for (const field of check) {
    const value = input[field];
    if (!value) continue;
    const verdict = checkUrl(value, allowPrivate);
    if (!verdict.ok) issues.push({ path: field, message: `the URL ${verdict.reason}` });
  }
  if (input.payloadMode === "custom" && input.customFields.length === 0) {
    issues.push({ path: "customFields", message: "custom payload mode needs at least one leaf path" });
  }
  throwIssues(issues);
  return { ...input, channels, events, customFields: input.payloadMode === "custom" ? [...new Set(input.customFields)] : [] };
}

function throwIssues(issues: Array<{ path: string; message: string }>): void {
  const first = issues[0];
  if (first) throw new ApiError("validation_failed", `Invalid body: ${first.path}: ${first.message}`, { issues });
}

/**
 * The guard's check after DNS, on the URLs a request names (they are checked again before
 * every delivery). A name resolving to any non-public address is refused; a resolver that
 * cannot be reached, or a name without addresses, is a warning, and the URL is saved.
 */
async function checkUrlsAtSave(values: Partial<Record<UrlField, string | null>>, config: EndpointConfig): Promise<SaveWarning[]> {
  const resolve = dohResolver(config.DNS_RESOLVER_URL, SAVE_DNS_TIMEOUT_MS);
  const checked = await Promise.all(
    URL_FIELDS.map(async (path) => {
      const value = values[path];
      return { path, verdict: value ? await checkUrlAtSave(value, config.WEBHOOKS_ALLOW_PRIVATE_URLS, resolve) : null };
    }),
  );
  const issues: Array<{ path: string; message: string }> = [];
  const warnings: SaveWarning[] = [];
  for (const { path, verdict } of checked) {
    if (!verdict) continue;
    if (!verdict.ok) issues.push({ path, message: `the URL ${verdict.reason}` });
    else if (verdict.warning?.code === "dns_unavailable") {
      warnings.push({
        path,
        code: "dns_unavailable",
        message: `Saved without the address check: the URL ${verdict.warning.reason}. It is checked again before every delivery.`,
      });
    } else if (verdict.warning) {
      warnings.push({
        path,
        code: "dns_no_address",
        message: `The URL ${verdict.warning.reason} yet: deliveries fail until it resolves to a public address.`,
      });
    }
  }
  throwIssues(issues);
  return warnings;
}

/** Creates an endpoint; its secret is sealed at rest and returned opened, this once. */
export async function createEndpoint({
  ctx: { db, organizationId, config },
  input,
}: Op<EndpointInput, "db" | "organizationId" | "config">): Promise<SavedEndpoint> {
  const values = normalize(input, config.WEBHOOKS_ALLOW_PRIVATE_URLS, URL_FIELDS);
  const warnings = await checkUrlsAtSave(values, config);
  const id = newId();
  const secret = newSigningSecret();
  const row = await insertEndpoint(db, {
    id,
    organizationId,
    ...values,
    secret: await sealEndpointSecret(config, id, secret),
    captureToken: randomBase62(32),
  });
  if (!row) throw new Error("insert returned no row");
  return { ...row, secret, warnings };
}

export async function getEndpoint({ ctx, input: { id } }: Op<{ id: string }>): Promise<WebhookEndpoint> {
  const row = await findEndpoint(ctx.db, ctx.organizationId, id);
  if (!row) throw endpointNotFound();
  return row;
}

/**
 * PATCH: read the row FOR UPDATE, merge, check, write, in one transaction, so a concurrent
 * PATCH or a service-side change (410 auto-disable, failure count) waits instead of being lost.
 * The URL guard checks the URLs the patch names (resolved before the transaction, so no lock
 * waits on DNS); a URL already stored is checked at every delivery, so an endpoint whose URL
 * a newer rule refuses can still be turned off or renamed.
 */
export async function updateEndpoint({
  ctx: { db, organizationId, config },
  input: { id, patch },
}: Op<{ id: string; patch: Partial<EndpointInput> }, "db" | "organizationId" | "config">): Promise<SavedEndpoint> {
  const named = URL_FIELDS.filter((f) => patch[f] !== undefined);
  const warnings = await checkUrlsAtSave({ url: patch.url, testUrl: patch.testUrl }, config);
  const row = await changeEndpoint(db, organizationId, id, (current) => {
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
    const values = normalize(merged, config.WEBHOOKS_ALLOW_PRIVATE_URLS, named);
    // Turning an endpoint back on clears what turned it off.
    const reenable = patch.active === true ? { disabledReason: null, consecutiveFailures: 0 } : {};
    return { ...values, ...reenable };
  });
  if (!row) throw endpointNotFound();
  return { ...(await openEndpoint(config, row)), warnings };
}

/** A new secret, sealed at rest and returned opened, this once; the old one never signs again. */
export async function rotateSecret({
  ctx: { db, organizationId, config },
  input: { id },
}: Op<{ id: string }, "db" | "organizationId" | "config">): Promise<WebhookEndpoint> {
  const secret = newSigningSecret();
  const row = await replaceEndpointSecret(db, organizationId, id, await sealEndpointSecret(config, id, secret));
  if (!row) throw endpointNotFound();
  return { ...row, secret };
}

export async function deleteEndpoint({ ctx, input: { id } }: Op<{ id: string }>): Promise<void> {
  if (!(await deleteOwnedEndpoint(ctx.db, ctx.organizationId, id))) throw endpointNotFound();
}

/** A page of the workspace's endpoints as the API shows them (secrets masked; test receiver URLs at the public origin). */
export async function listEndpoints({
  ctx,
  input: page,
}: Op<PageQuery, "db" | "organizationId" | "config" | "publicOrigin">): Promise<Page<EndpointView>> {
  const rows = await endpointPage(ctx.db, ctx.organizationId, page);
  const opened = await Promise.all(rows.map((r) => openEndpoint(ctx.config, r)));
  return pageOf(opened, page.limit, (r) => toEndpointView(r, ctx.publicOrigin));
}
