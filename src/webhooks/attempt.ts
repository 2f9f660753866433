// A delivery attempt in named stages (src/webhooks/deliver.ts writes and dispatches the
// deliveries; this file makes their attempts): where an endpoint's deliveries go, numbering and
// loading an attempt, the signed HTTP call, recording the attempts and the endpoints' outcomes.
// The statements are in queries/attempts.ts.
import type { Db } from "../db/client";
import type { WebhookEndpoint } from "../db/schema";
import type { AppConfig } from "../env";
import { mapLimit } from "../lib/concurrency";
import { redisFor } from "../lib/redis";
import { readCapped } from "../lib/response-body";
import type { DomainContext } from "../services";
import { captureRequest } from "./capture";
import { captureUrl, publicOrigin } from "./endpoints";
import {
  addEndpointFailure,
  applyEndpointChanges,
  deliveryById,
  deliveryExists,
  type EndpointChange,
  insertAttempts,
  numberAttempt,
  turnOffEndpoint,
} from "./queries/attempts";
import { endpointSigningKey } from "./secret-store";
import { signPayload } from "./signature";
import { checkUrlResolved, dohResolver } from "./ssrf";

/** What the webhook engine runs with: the domain context without the providers (src/services.ts). */
export type WebhookDeps = Pick<DomainContext, "db" | "config" | "waitUntil" | "origin">;

export type Trigger = "emit" | "retry" | "resend" | "test";

export const USER_AGENT = "Service-Webhooks/1.0";
export const RESPONSE_BODY_CAP = 2048;

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

// ---------------------------------------------------------------------------------------------
// A delivery attempt in named stages, as svix's worker runs it: prepareDispatch (number the
// attempt and load what it needs), makeHttpCall (resolve, check, sign, POST; no database),
// recordAttempts (attempt rows and delivery states, many in one statement), and
// processEndpointOutcomes (reset, count and turn off endpoints). A single attempt (QStash,
// resend, test) runs them for one delivery; a direct emit runs them for all of its deliveries,
// recording in batches while later calls are still in flight.

export type EndpointFields = Pick<
  WebhookEndpoint,
  "id" | "url" | "useTestReceiver" | "testMode" | "testUrl" | "captureToken" | "secret" | "consecutiveFailures"
>;

/** What an attempt needs: the delivery, its attempt number and its endpoint as they are now. */
export interface Prepared {
  deliveryId: string;
  attempt: number;
  organizationId: string;
  event: string;
  /** The delivery's body as written: the exact text every attempt sends and signs. */
  body: string;
  endpoint: EndpointFields;
}

/** What one HTTP attempt did, before it is recorded. */
interface Outcome {
  prepared: Prepared;
  target: Target | null;
  statusCode: number | null;
  error: string | null;
  responseBody: string | null;
  durationMs: number;
  signedAt: number;
  ok: boolean;
  retryable: boolean;
}

/**
 * While a direct fan-out goes on, its outcomes are recorded once the oldest unrecorded one has
 * waited this long, or this many are waiting, and at the end: a fan-out to receivers that answer
 * at once writes one statement after its calls (each statement in flight holds one of the
 * Worker's six connections), a slow one still has what it did on record every second.
 */
const RECORD_AFTER_MS = 1000;
const RECORD_BATCH = 100;
/** A Worker keeps at most six outgoing connections open at once anyway. */
const CALLS_IN_FLIGHT = 6;

/** One round trip: number the attempt and load what it needs, only if the endpoint may receive. */
export async function prepareDispatch(deps: WebhookDeps, deliveryId: string, trigger: Trigger): Promise<Prepared | AttemptResult> {
  const { db } = deps;
  // A test goes to its endpoint even when the endpoint is off.
  const row = await numberAttempt(db, deliveryId, trigger === "test");
  if (row) return { deliveryId, ...row };
  const error = (await deliveryExists(db, deliveryId)) ? "endpoint is inactive" : "delivery or endpoint no longer exists";
  return { ok: false, retryable: false, statusCode: null, error, attempt: null };
}

/** Resolve the target, check it, sign with the endpoint's current secret, POST. No database. */
async function makeHttpCall(deps: WebhookDeps, prepared: Prepared): Promise<Outcome> {
  const { config } = deps;
  const { endpoint } = prepared;
  const target = targetOf(endpoint, config, deps.origin);
  const raw = prepared.body;
  const signedAt = Math.floor(Date.now() / 1000);
  const started = Date.now();
  let statusCode: number | null = null;
  let error: string | null = null;
  let responseBody: string | null = null;
  let retryable = true;
  let signature: string | null = null;
  try {
    signature = await signPayload(await endpointSigningKey(config, endpoint), raw, signedAt);
  } catch (err) {
    // The secret does not open (a key missing from SECRETS_KEK): nothing is sent unsigned, the
    // attempt is recorded, and a retry after the operator fixes the key goes through.
    error = `not sent: ${(err as Error).message}`;
  }
  const headers = new Headers({
    "content-type": "application/json",
    "user-agent": USER_AGENT,
    "x-service-event": prepared.event,
    "x-service-delivery-id": prepared.deliveryId,
    "x-service-signature": signature ?? "",
  });

  if (signature === null) {
    retryable = true; // recorded with the error above; a retry once the key is back goes through
  } else if (!target) {
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
        responseBody = (await readCapped(res, RESPONSE_BODY_CAP)).text;
        if (res.status >= 300 && res.status < 400) error = "redirects are not followed";
      } catch (err) {
        const e = err as Error;
        error = e.name === "TimeoutError" ? `timed out after ${config.WEBHOOK_TIMEOUT_MS} ms` : `network error: ${e.message}`;
      }
    }
  }
  const ok = statusCode !== null && statusCode >= 200 && statusCode < 300;
  // The receiver says it is gone for good: no retry (processEndpointOutcomes turns it off).
  if (statusCode === 410 && target?.kind === "production") retryable = false;
  return { prepared, target, statusCode, error, responseBody, durationMs: Date.now() - started, signedAt, ok, retryable: !ok && retryable };
}

/**
 * One statement for any number of attempts: their rows and their deliveries' new states (a
 * data-modifying CTE), so the log never shows a state without its attempt.
 */
async function recordAttempts(db: Db, outcomes: Outcome[], trigger: Trigger): Promise<void> {
  await insertAttempts(
    db,
    outcomes.map((o) => ({
      deliveryId: o.prepared.deliveryId,
      organizationId: o.prepared.organizationId,
      endpointId: o.prepared.endpoint.id,
      attempt: o.prepared.attempt,
      // The log's target is never empty: an attempt with no URL to deliver to is the Production URL's, with none.
      target: o.target?.kind ?? "production",
      url: o.target?.url ?? "",
      statusCode: o.statusCode,
      error: o.error,
      durationMs: o.durationMs,
      responseBody: o.responseBody,
      signedAt: o.signedAt,
      ok: o.ok,
    })),
    trigger,
  );
}

/** Why the service turned an endpoint off (webhook_endpoints.disabled_reason, shown on the endpoint). */
const GONE_REASON = "The receiver answered 410 Gone.";
const tooManyFailures = (disableAfter: number) => `Turned off after ${disableAfter} failed deliveries in a row.`;

/**
 * The endpoints' side of a set of outcomes, in one statement (none when nothing changes): a
 * success resets the count of failures in a row; a final failure adds one and turns the
 * endpoint off at WEBHOOK_DISABLE_AFTER_FAILURES; a 410 from the Production URL turns it off at once.
 * `final` says whether a failure here will not be retried (direct mode).
 */
async function processEndpointOutcomes(deps: WebhookDeps, outcomes: Outcome[], final: boolean): Promise<void> {
  const { db } = deps;
  const disableAfter = deps.config.WEBHOOK_DISABLE_AFTER_FAILURES;
  const changes = new Map<string, EndpointChange>();
  for (const o of outcomes) {
    const gone = o.statusCode === 410 && o.target?.kind === "production";
    const failed = !o.ok && final ? 1 : 0;
    const resets = o.ok && o.prepared.endpoint.consecutiveFailures > 0;
    if (!gone && !failed && !resets) continue;
    const c = changes.get(o.prepared.endpoint.id) ?? { ok: false, failed: 0, gone: false };
    changes.set(o.prepared.endpoint.id, { ok: c.ok || (o.ok && !failed), failed: c.failed + failed, gone: c.gone || gone });
  }
  if (changes.size === 0) return;
  await applyEndpointChanges(db, changes, disableAfter, { gone: GONE_REASON, tooMany: tooManyFailures(disableAfter) });
}

/** Direct mode: every prepared delivery attempted once, six calls in flight, recorded in batches. */
export async function deliverPrepared(deps: WebhookDeps, prepared: Prepared[], trigger: Trigger): Promise<void> {
  const pending: Outcome[] = [];
  const writes: Promise<void>[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    const batch = pending.splice(0);
    if (batch.length === 0) return;
    writes.push(
      (async () => {
        await recordAttempts(deps.db, batch, trigger);
        await processEndpointOutcomes(deps, batch, true);
      })(),
    );
  };
  await mapLimit(prepared, CALLS_IN_FLIGHT, async (p) => {
    pending.push(await makeHttpCall(deps, p));
    if (pending.length >= RECORD_BATCH) flush();
    else timer ??= setTimeout(flush, RECORD_AFTER_MS);
  });
  flush();
  // Every batch is written (or fails on its own) before the work counts as done.
  const results = await Promise.allSettled(writes);
  const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed) throw failed.reason;
}

/** One attempt of one delivery (QStash, resend, test): all four stages. A failure is not final here. */
export async function attemptDelivery(deps: WebhookDeps, deliveryId: string, trigger: Trigger): Promise<AttemptResult> {
  const prepared = await prepareDispatch(deps, deliveryId, trigger);
  if (!("endpoint" in prepared)) return prepared;
  const outcome = await makeHttpCall(deps, prepared);
  await recordAttempts(deps.db, [outcome], trigger);
  await processEndpointOutcomes(deps, [outcome], false);
  return { ok: outcome.ok, retryable: outcome.retryable, statusCode: outcome.statusCode, error: outcome.error, attempt: prepared.attempt };
}

/** A delivery that will not be retried any more failed (QStash gave up): count it against the endpoint. */
export async function recordFinalFailure(deps: WebhookDeps, deliveryId: string): Promise<void> {
  const { db } = deps;
  const disableAfter = deps.config.WEBHOOK_DISABLE_AFTER_FAILURES;
  const delivery = await deliveryById(db, deliveryId);
  if (!delivery || delivery.status === "succeeded") return;
  const endpoint = await addEndpointFailure(db, delivery.endpointId);
  if (endpoint && endpoint.consecutiveFailures >= disableAfter && !endpoint.disabledReason) {
    await turnOffEndpoint(db, endpoint.id, tooManyFailures(disableAfter));
  }
}
