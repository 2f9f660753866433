/** @jsxImportSource hono/jsx */
// An endpoint's delivery log (every attempt, resend) and its built-in test receiver's captures.
import type { FC } from "hono/jsx";
import { DELIVERY_STATUSES } from "../../db/schema";
import type { CapturedRequest, Captures } from "../../webhooks/capture";
import type { EndpointView } from "../../webhooks/endpoints";
import { PLATFORM_EVENTS } from "../../webhooks/events";
import type { AttemptView, DeliveryView } from "../../webhooks/log";
import { Badge, Csrf, Flash, Select, When } from "../ui";
import { BASE, outcome } from "./parts";

const DeliveryBadge: FC<{ status: DeliveryView["status"] }> = ({ status }) => (
  <Badge tone={status === "succeeded" ? "good" : status === "failed" ? "bad" : "off"}>{status}</Badge>
);

/** What a delivery was about, on the dashboard: a call's events link to the call, a chat's to the chat. */
export const subjectLink = (d: Pick<DeliveryView, "event" | "subjectId">): { href: string; label: string } | null => {
  if (!d.subjectId) return null;
  if (d.event.startsWith("call.")) return { href: `/dashboard/calls/${d.subjectId}`, label: "the call" };
  return { href: `/dashboard/chats/${d.subjectId}`, label: "the chat" };
};

const Attempt: FC<{ a: AttemptView }> = ({ a }) => (
  <li>
    <div class="row small">
      <strong>Attempt {a.attempt}</strong>
      <Badge tone={a.statusCode !== null && a.statusCode >= 200 && a.statusCode < 300 ? "good" : "bad"}>{outcome(a)}</Badge>
      <span class="muted">
        {a.trigger} · {a.target.replace("_", " ")} · {a.durationMs} ms · signed t={a.signedAt} · <When at={a.createdAt} />
      </span>
    </div>
    <div class="small muted wrap">{a.url}</div>
    {a.responseBody ? (
      <>
        <div class="small muted mt4">Response (first 2 KiB):</div>
        <pre class="excerpt" tabindex={0}>
          {a.responseBody}
        </pre>
      </>
    ) : (
      <div class="small muted">No response body.</div>
    )}
  </li>
);

/**
 * A delivery's body as every attempt sent it, not reformatted: what a receiver hashes to check
 * X-Service-Signature (src/webhooks/signature.ts).
 */
const SignedBody: FC<{ d: DeliveryView }> = ({ d }) => (
  <details class="mt6">
    <summary class="small">Payload (exactly as signed)</summary>
    <p class="hint">
      Every attempt sends these bytes. Its <code>X-Service-Signature</code> is <code>t=&lt;t&gt;,v1=&lt;hex&gt;</code>, where hex is the
      HMAC-SHA256, keyed with the signing secret, of <code>&lt;t&gt;.</code> followed by this body, byte for byte (<code>t</code> is the
      attempt's "signed t" below). Verify over the raw body you received, before parsing it.
    </p>
    <pre class="signed-body" tabindex={0} id={`body-${d.id}`}>
      {d.body}
    </pre>
  </details>
);

/** The log's filters as the form sends them ("" is any). */
export interface LogFilterValues {
  status: string;
  event: string;
}

/** The query of a page of the log under these filters (with the cursor of an older page): links keep them. */
export function logQuery(values: LogFilterValues, cursor?: string | null): string {
  const pairs = Object.entries(values).filter(([, v]) => v !== "");
  if (cursor) pairs.push(["cursor", cursor]);
  return pairs.length ? `?${new URLSearchParams(pairs)}` : "";
}

const any = (label: string) => ({ value: "", label });

const LogFilters: FC<{ endpoint: EndpointView; values: LogFilterValues }> = ({ endpoint, values }) => {
  // The events sent here, and one of the catalogue's others when it is the filter.
  const events = PLATFORM_EVENTS.has(values.event) || values.event === "" ? [...PLATFORM_EVENTS] : [...PLATFORM_EVENTS, values.event];
  return (
    <form method="get" action={`${BASE}/${endpoint.id}#deliveries`} class="row" aria-label="Filter deliveries">
      <div class="w140">
        <Select
          name="status"
          label="Status"
          value={values.status}
          options={[any("Any status"), ...DELIVERY_STATUSES.map((s) => ({ value: s, label: s }))]}
        />
      </div>
      <div>
        <Select
          name="event"
          label="Event"
          value={values.event}
          options={[any("Any event"), ...events.map((e) => ({ value: e, label: e }))]}
        />
      </div>
      <button type="submit" class="secondary end">
        Filter
      </button>
    </form>
  );
};

export interface DeliveryLogProps {
  csrf: string;
  endpoint: EndpointView;
  deliveries: DeliveryView[];
  /** The cursor of the next (older) page; null on the last. */
  next: string | null;
  filters: LogFilterValues;
  /** Filter values refused (and so not applied), in words. */
  problems: string[];
}

export const DeliveryLog: FC<DeliveryLogProps> = ({ csrf, endpoint, deliveries, next, filters, problems }) => (
  <section class="card" id="deliveries" aria-labelledby="deliveries-h">
    <h2 class="mt0" id="deliveries-h">
      Delivery log
    </h2>
    <p class="hint mt0">
      Newest first. Each delivery keeps its id (<code>X-Service-Delivery-Id</code>) across attempts; its status is that of the latest
      attempt.
      {endpoint.active ? "" : " Resend needs the endpoint turned on."}
    </p>
    <LogFilters endpoint={endpoint} values={filters} />
    {problems.map((p) => (
      <Flash kind="warn">{p}</Flash>
    ))}
    {deliveries.length === 0 ? (
      filters.status || filters.event ? (
        <p class="muted">
          No deliveries match these filters. <a href={`${BASE}/${endpoint.id}#deliveries`}>Show every delivery</a>
        </p>
      ) : (
        <p class="muted">No deliveries yet. Send Test makes one.</p>
      )
    ) : null}
    {deliveries.map((d) => (
      <article class="delivery" id={`delivery-${d.id}`} aria-label={`Delivery ${d.id}`}>
        <header>
          <div class="row">
            <strong>{d.event}</strong>
            <DeliveryBadge status={d.status} />
            <span class="small">{d.lastStatusCode !== null ? `HTTP ${d.lastStatusCode}` : "no HTTP status"}</span>
            <span class="muted small">
              {d.attemptCount} attempt{d.attemptCount === 1 ? "" : "s"} · <When at={d.createdAt} />
            </span>
          </div>
          <form method="post" action={`${BASE}/${endpoint.id}/deliveries/${d.id}/resend`}>
            <Csrf token={csrf} />
            <button type="submit" class="secondary" aria-label={`Resend delivery ${d.id}`}>
              Resend
            </button>
          </form>
        </header>
        <div class="small muted wrap">
          Delivery id <code>{d.id}</code>
          {subjectLink(d) ? (
            <>
              {" "}
              · about <a href={subjectLink(d)?.href}>{subjectLink(d)?.label}</a>
            </>
          ) : null}
        </div>
        <SignedBody d={d} />
        <ol class="attempts" aria-label={`Attempts of delivery ${d.id}`}>
          {d.attempts.map((a) => (
            <Attempt a={a} />
          ))}
        </ol>
      </article>
    ))}
    {next ? (
      <p>
        <a href={`${BASE}/${endpoint.id}${logQuery(filters, next)}#deliveries`}>Older deliveries</a>
      </p>
    ) : null}
  </section>
);

const prettyBody = (body: string) => {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
};

const Capture: FC<{ r: CapturedRequest }> = ({ r }) => (
  <li class="capture">
    <header>
      <div class="row">
        <strong>{r.headers["x-service-event"] ?? r.method}</strong>
        <span class="muted small">
          <When at={r.receivedAt} />
        </span>
      </div>
      {r.headers["x-service-delivery-id"] ? <code class="small wrap">{r.headers["x-service-delivery-id"]}</code> : null}
    </header>
    <details>
      <summary class="small">Headers</summary>
      <dl class="facts mt6">
        {Object.entries(r.headers).map(([k, v]) => (
          <>
            <dt class="mono">{k}</dt>
            <dd class="mono wrap">{v}</dd>
          </>
        ))}
      </dl>
    </details>
    <pre class="excerpt" tabindex={0}>
      {prettyBody(r.body)}
    </pre>
    {r.truncated ? <p class="hint">Body truncated.</p> : null}
  </li>
);

export const TestReceiver: FC<{ endpoint: EndpointView; captures: Captures }> = ({ endpoint, captures }) => (
  <section class="card" id="test-receiver" aria-labelledby="test-receiver-h">
    <h2 class="mt0" id="test-receiver-h">
      Built-in test receiver
    </h2>
    <p class="small">
      {endpoint.useTestReceiver
        ? "On: this endpoint's deliveries are captured here instead of sent to a URL."
        : "Off: turn on “Use built-in test receiver” in the form to capture this endpoint's deliveries here."}{" "}
      It keeps the {captures.keeps} most recent requests for 24 hours. Anything may also post to its capture URL:
    </p>
    <p>
      <code class="wrap">{captures.url}</code>
    </p>
    <p class="row">
      <a class="button secondary" href={`${BASE}/${endpoint.id}#test-receiver`}>
        Refresh
      </a>
    </p>
    {captures.requests.length === 0 ? (
      <p class="muted">Nothing captured yet.</p>
    ) : (
      <ol class="plain-list" aria-label="Captured requests, newest first">
        {captures.requests.map((r) => (
          <Capture r={r} />
        ))}
      </ol>
    )}
  </section>
);
