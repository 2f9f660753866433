/** @jsxImportSource hono/jsx */
// Webhooks (admins only: settings:read to look, settings:write to change; spec: Authentication 7):
// the endpoint list, create and edit (webhooks-form.tsx), the active toggle, Send Test, the
// signing secret shown once at creation and rotation, the built-in test receiver's captures,
// the delivery log with every attempt, and resend. Every operation is the API's own function
// (src/webhooks/*) validated by the API's own schemas (routes/v1/webhook-endpoints/schema.ts).
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { FC } from "hono/jsx";
import type { AppEnv } from "../../context";
import type { WebhookEndpoint } from "../../db/schema";
import { ApiError } from "../../lib/errors";
import { isUuid } from "../../lib/ids";
import { pageQuery } from "../../lib/pagination";
import { redisFor } from "../../lib/redis";
import { createEndpointSchema, updateEndpointSchema } from "../../routes/v1/webhook-endpoints/schema";
import { type CapturedRequest, type Captures, endpointCaptures } from "../../webhooks/capture";
import { type TargetKind, targetKind } from "../../webhooks/deliver";
import {
  createEndpoint,
  deleteEndpoint,
  type EndpointView,
  endpointNotFound,
  getEndpoint,
  listEndpoints,
  maskSecret,
  rotateSecret,
  type SavedEndpoint,
  type SaveWarning,
  toEndpointView,
  updateEndpoint,
} from "../../webhooks/endpoints";
import { type AttemptView, type DeliveryView, getDelivery, listDeliveries, resendDelivery } from "../../webhooks/log";
import { openEndpoint } from "../../webhooks/secret-store";
import { sendTestEvent } from "../../webhooks/test-event";
import { apiErrorFields, one, validate } from "./forms";
import { requireAdminPage } from "./session";
import { Csrf, type FieldErrors, Flash, Layout, Secret, shellOf, When } from "./ui";
import { EndpointForm, FORM_CSS, inputOf, onFields, typedValues, type Values, valuesOf } from "./webhooks-form";

const BASE = "/dashboard/webhooks";
const LIST_LIMIT = 50;
const LOG_LIMIT = 20;

const PAGE_CSS = `${FORM_CSS}
main{min-width:0}
@media (max-width:600px){
table.endpoints thead{display:none}
table.endpoints tr{display:block;border-bottom:1px solid var(--line);padding:8px 0}
table.endpoints td{display:block;border:0;padding:3px 0}
table.endpoints td[data-label]::before{content:attr(data-label);display:block;font-size:11px;color:var(--muted);text-transform:uppercase;letter-spacing:.03em}
}
.wrap{word-break:break-all}
.facts{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:6px 14px;margin:0 0 14px;font-size:14px}
.facts dt{color:var(--muted)}.facts dd{margin:0;min-width:0}
.delivery,.capture{border:1px solid var(--line);border-radius:8px;padding:12px;margin:10px 0}
.delivery header,.capture header{display:flex;flex-wrap:wrap;gap:6px 12px;align-items:center;justify-content:space-between}
.attempts{list-style:none;margin:8px 0 0;padding:0}
.attempts li{border-top:1px solid var(--line);padding:8px 0 0;margin-top:8px}
.attempts li:first-child{border-top:0;margin-top:0}
pre.excerpt{max-height:180px;white-space:pre-wrap;word-break:break-all;margin:6px 0 0}
.subnav{display:flex;flex-wrap:wrap;gap:6px 16px;margin:-8px 0 16px;font-size:14px}
td.target{max-width:360px}
`;

type Notice = { kind: "ok" | "error" | "warn"; text: string };

/** 404 for a malformed id, as for a missing one or another workspace's. */
function endpointId(c: Context<AppEnv>): string {
  const id = c.req.param("id") ?? "";
  if (!isUuid(id)) throw endpointNotFound();
  return id;
}

const TARGET_LABELS: Record<TargetKind, string> = {
  production: "Production URL",
  test: "Test URL (Test Mode)",
  test_receiver: "Built-in test receiver",
};

/** Where deliveries go now, as the engine decides (targetKind). */
const targetOf = (e: EndpointView) => {
  const kind = targetKind(e);
  if (!kind) return { label: "Nowhere: no URL", url: "" };
  return {
    label: TARGET_LABELS[kind],
    url: kind === "test_receiver" ? e.testReceiverUrl : kind === "test" ? (e.testUrl ?? "") : (e.url ?? ""),
  };
};

const StateBadge: FC<{ e: Pick<EndpointView, "active" | "disabledReason"> }> = ({ e }) =>
  e.active ? (
    <span class="badge good">active</span>
  ) : e.disabledReason ? (
    <span class="badge bad">turned off by the service</span>
  ) : (
    <span class="badge off">inactive</span>
  );

const DeliveryBadge: FC<{ status: DeliveryView["status"] }> = ({ status }) => (
  <span class={`badge ${status === "succeeded" ? "good" : status === "failed" ? "bad" : "off"}`}>{status}</span>
);

const ToggleForm: FC<{ csrf: string; e: EndpointView; from?: "list" }> = ({ csrf, e, from }) => (
  <form method="post" action={`${BASE}/${e.id}/toggle`}>
    <Csrf token={csrf} />
    <input type="hidden" name="active" value={e.active ? "false" : "true"} />
    {from ? <input type="hidden" name="from" value={from} /> : null}
    <button type="submit" class="secondary" aria-label={`${e.active ? "Turn off" : "Turn on"} ${e.name}`}>
      {e.active ? "Turn off" : "Turn on"}
    </button>
  </form>
);

const LIST_NOTICES: Record<string, string> = { deleted: "Endpoint deleted.", on: "Endpoint turned on.", off: "Endpoint turned off." };

async function renderList(c: Context<AppEnv>) {
  const shell = await shellOf(c, "Webhooks", "webhooks");
  const cursor = c.req.query("cursor");
  const page = await listEndpoints(
    c.var.db,
    c.var.auth.organizationId,
    pageQuery({ limit: LIST_LIMIT, cursor }),
    c.var.services.publicOrigin,
    c.var.config,
  );
  const notice = LIST_NOTICES[c.req.query("notice") ?? ""];
  return c.html(
    <Layout
      shell={shell}
      css={PAGE_CSS}
      actions={
        <a class="button" href={`${BASE}/new`}>
          New endpoint
        </a>
      }
    >
      {notice ? <Flash>{notice}</Flash> : null}
      <p class="muted small mt0">
        Signed HTTP POSTs to your receivers when calls, widget chats and messaging sessions start, end, fail or are analyzed. See{" "}
        <a href="/docs">the API reference</a> for verifying signatures.
      </p>
      <div class="card table-wrap" tabindex={0}>
        {page.data.length === 0 ? (
          <p class="m0">
            No webhook endpoints yet. <a href={`${BASE}/new`}>Create the first one</a>.
          </p>
        ) : (
          <table class="endpoints">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Delivers to</th>
                <th scope="col">Events</th>
                <th scope="col">State</th>
                <th scope="col">
                  <span class="muted">Action</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {page.data.map((e) => {
                const target = targetOf(e);
                return (
                  <tr>
                    <td>
                      <a href={`${BASE}/${e.id}`}>{e.name}</a>
                      {e.description ? <div class="muted small">{e.description}</div> : null}
                    </td>
                    <td class="target" data-label="Delivers to">
                      <div class="small">{target.label}</div>
                      <code class="wrap">{target.url}</code>
                    </td>
                    <td class="small" data-label="Events">
                      {e.events.length === 0 ? <span class="muted">none</span> : `${e.events.length} of ${e.channels.join(", ")}`}
                      {e.payloadMode === "custom" ? <div class="muted">custom fields ({e.customFields.length})</div> : null}
                    </td>
                    <td data-label="State">
                      <StateBadge e={e} />
                    </td>
                    <td>
                      <ToggleForm csrf={shell.csrf} e={e} from="list" />
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
      </div>
      {page.hasMore && page.nextCursor ? (
        <p>
          <a href={`${BASE}?cursor=${encodeURIComponent(page.nextCursor)}`}>Older endpoints</a>
        </p>
      ) : null}
    </Layout>,
  );
}

async function renderNew(c: Context<AppEnv>, values: Values, errors: FieldErrors = {}, status: 200 | 400 = 200) {
  const shell = await shellOf(c, "New webhook endpoint", "webhooks");
  return c.html(
    <Layout shell={shell} css={PAGE_CSS}>
      <p class="muted small mt0">
        <a href={BASE}>← Webhooks</a>
      </p>
      <EndpointForm csrf={shell.csrf} nonce={shell.nonce} action={BASE} submit="Create endpoint" values={values} errors={errors} />
    </Layout>,
    status,
  );
}

/** An attempt's outcome in words: HTTP status, or the network / refusal error. */
const outcome = (a: Pick<AttemptView, "statusCode" | "error">) =>
  [a.statusCode !== null ? `HTTP ${a.statusCode}` : "", a.error ?? ""].filter(Boolean).join(" · ") || "no answer";

const Attempt: FC<{ a: AttemptView }> = ({ a }) => (
  <li>
    <div class="row small">
      <strong>Attempt {a.attempt}</strong>
      <span class={`badge ${a.statusCode !== null && a.statusCode >= 200 && a.statusCode < 300 ? "good" : "bad"}`}>{outcome(a)}</span>
      <span class="muted">
        {a.trigger} · {a.target.replace("_", " ")} · {a.durationMs} ms · <When at={a.createdAt} />
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

const DeliveryLog: FC<{ csrf: string; endpoint: EndpointView; deliveries: DeliveryView[]; next: string | null }> = ({
  csrf,
  endpoint,
  deliveries,
  next,
}) => (
  <section class="card" id="deliveries" aria-labelledby="deliveries-h">
    <h2 class="mt0" id="deliveries-h">
      Delivery log
    </h2>
    <p class="hint mt0">
      Newest first. Each delivery keeps its id (<code>X-Service-Delivery-Id</code>) across attempts; its status is that of the latest
      attempt.
      {endpoint.active ? "" : " Resend needs the endpoint turned on."}
    </p>
    {deliveries.length === 0 ? <p class="muted">No deliveries yet. Send Test makes one.</p> : null}
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
        </div>
        <ol class="attempts" aria-label={`Attempts of delivery ${d.id}`}>
          {d.attempts.map((a) => (
            <Attempt a={a} />
          ))}
        </ol>
      </article>
    ))}
    {next ? (
      <p>
        <a href={`${BASE}/${endpoint.id}?cursor=${encodeURIComponent(next)}#deliveries`}>Older deliveries</a>
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

const TestReceiver: FC<{ endpoint: EndpointView; captures: Captures }> = ({ endpoint, captures }) => (
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

interface DetailExtra {
  values?: Values;
  errors?: FieldErrors;
  /** The full secret, in the create and rotate responses only. */
  secret?: { value: string; warning: string };
  notice?: Notice;
}

async function renderEndpoint(c: Context<AppEnv>, stored: WebhookEndpoint, extra: DetailExtra = {}, status: 200 | 201 | 400 | 409 = 200) {
  const { db, auth } = c.var;
  const row = await openEndpoint(c.var.config, stored);
  const origin = c.var.services.publicOrigin;
  const endpoint = toEndpointView(row, origin);
  const shell = await shellOf(c, `Webhook: ${row.name}`, "webhooks");
  const [log, captures] = await Promise.all([
    listDeliveries(db, auth.organizationId, row.id, pageQuery({ limit: LOG_LIMIT, cursor: c.req.query("cursor") }), {}),
    endpointCaptures(db, redisFor(c.var.config), auth.organizationId, row.id, origin),
  ]);
  const target = targetOf(endpoint);
  return c.html(
    <Layout shell={shell} css={PAGE_CSS}>
      <nav class="subnav" aria-label="On this page">
        <a href={BASE}>← Webhooks</a>
        <a href="#settings">Settings</a>
        <a href="#deliveries">Delivery log</a>
        <a href="#test-receiver">Test receiver</a>
      </nav>
      {extra.secret ? <Secret id="endpoint-secret" value={extra.secret.value} warning={extra.secret.warning} /> : null}
      {extra.notice ? <Flash kind={extra.notice.kind}>{extra.notice.text}</Flash> : null}
      <section class="card" aria-labelledby="status-h">
        <h2 class="mt0" id="status-h">
          Status
        </h2>
        <dl class="facts">
          <dt>State</dt>
          <dd>
            <StateBadge e={endpoint} />
            {endpoint.disabledReason ? <div class="small">{endpoint.disabledReason} Turn it on to resume.</div> : null}
          </dd>
          <dt>Delivers to</dt>
          <dd>
            {target.label}
            {target.url ? (
              <div>
                <code class="wrap">{target.url}</code>
              </div>
            ) : null}
          </dd>
          <dt>Signing secret</dt>
          <dd>
            <code id="masked-secret">{maskSecret(row.secret)}</code>
            {row.secretRotatedAt ? (
              <span class="muted small">
                {" "}
                · rotated <When at={row.secretRotatedAt} />
              </span>
            ) : null}
          </dd>
          <dt>Created</dt>
          <dd>
            <When at={row.createdAt} />
          </dd>
        </dl>
        <div class="row">
          <form method="post" action={`${BASE}/${row.id}/test`}>
            <Csrf token={shell.csrf} />
            <button type="submit">Send Test</button>
          </form>
          <ToggleForm csrf={shell.csrf} e={endpoint} />
          <form
            method="post"
            action={`${BASE}/${row.id}/rotate-secret`}
            data-confirm="Rotate the signing secret? The current secret stops validating at once, also for deliveries already queued."
          >
            <Csrf token={shell.csrf} />
            <button type="submit" class="secondary">
              Rotate secret
            </button>
          </form>
          <form method="post" action={`${BASE}/${row.id}/delete`} data-confirm={`Delete the endpoint "${row.name}" and its delivery log?`}>
            <Csrf token={shell.csrf} />
            <button type="submit" class="danger">
              Delete
            </button>
          </form>
        </div>
        <p class="hint">
          Send Test posts a synthetic <code>call.completed</code> to where deliveries go now, whether the endpoint is active or not.
        </p>
      </section>
      <div id="settings">
        <EndpointForm
          csrf={shell.csrf}
          nonce={shell.nonce}
          action={`${BASE}/${row.id}`}
          submit="Save endpoint"
          values={extra.values ?? valuesOf(row)}
          errors={extra.errors ?? {}}
        />
      </div>
      <DeliveryLog csrf={shell.csrf} endpoint={endpoint} deliveries={log.data} next={log.hasMore ? log.nextCursor : null} />
      <TestReceiver endpoint={endpoint} captures={captures} />
    </Layout>,
    status,
  );
}

/** A delivery's outcome for the flash after Send Test or Resend. */
function deliveryNotice(verb: string, d: DeliveryView): Notice {
  const last = d.attempts[d.attempts.length - 1];
  if (d.status === "pending" || !last) return { kind: "ok", text: `${verb}: delivery ${d.id} is queued.` };
  const ok = d.status === "succeeded";
  return { kind: ok ? "ok" : "error", text: `${verb}: ${d.event} delivery ${d.id} ${d.status} (${outcome(last)}).` };
}

const DETAIL_NOTICES: Record<string, Notice> = {
  saved: { kind: "ok", text: "Endpoint saved." },
  on: { kind: "ok", text: "Endpoint turned on." },
  off: { kind: "ok", text: "Endpoint turned off." },
};

async function noticeOf(c: Context<AppEnv>, endpointId: string): Promise<Notice | undefined> {
  const code = c.req.query("notice") ?? "";
  const deliveryId = c.req.query("delivery") ?? "";
  if ((code === "tested" || code === "resent") && isUuid(deliveryId)) {
    try {
      const d = await getDelivery(c.var.db, c.var.auth.organizationId, endpointId, deliveryId);
      return deliveryNotice(code === "tested" ? "Send Test" : "Resend", d);
    } catch (err) {
      if (err instanceof ApiError && err.code === "not_found") return undefined;
      throw err;
    }
  }
  return DETAIL_NOTICES[code];
}

/** A save whose URL could not be fully checked (SaveWarning): saved, and said so. */
const saveWarningNotice = (warnings: SaveWarning[]): Notice => ({
  kind: "warn",
  text: warnings.map((w) => `${w.path === "url" ? "Production URL" : "Test URL"}: ${w.message}`).join(" "),
});

const CREATED_WARNING =
  "Endpoint created. Copy the signing secret now: this is the only time it is shown in full. Your receiver verifies X-Service-Signature with it.";
const ROTATED_WARNING =
  "Secret rotated: the old secret stopped validating. Copy the new one now: this is the only time it is shown in full.";

export function registerWebhookPages(app: OpenAPIHono<AppEnv>): void {
  app.get(BASE, (c) => {
    requireAdminPage(c, false);
    return renderList(c);
  });

  app.get(`${BASE}/new`, (c) => {
    requireAdminPage(c, false);
    return renderNew(c, valuesOf(null));
  });

  app.post(BASE, async (c) => {
    requireAdminPage(c, true);
    const values = typedValues(c.var.form);
    const checked = validate(createEndpointSchema, inputOf(values));
    if (!checked.ok) return renderNew(c, values, onFields(checked.errors, values), 400);
    let row: SavedEndpoint;
    try {
      row = await createEndpoint(c.var.db, c.var.auth.organizationId, checked.data, c.var.config);
    } catch (err) {
      if (err instanceof ApiError && err.code === "validation_failed")
        return renderNew(c, values, onFields(apiErrorFields(err), values), 400);
      throw err;
    }
    // The secret is in this response only: never in a URL, a cookie or a cache.
    c.header("Cache-Control", "no-store");
    const notice = row.warnings.length ? saveWarningNotice(row.warnings) : undefined;
    return renderEndpoint(c, row, { secret: { value: row.secret, warning: CREATED_WARNING }, notice }, 201);
  });

  app.get(`${BASE}/:id`, async (c) => {
    requireAdminPage(c, false);
    const id = endpointId(c);
    const row = await getEndpoint(c.var.db, c.var.auth.organizationId, id);
    return renderEndpoint(c, row, { notice: await noticeOf(c, id) });
  });

  app.post(`${BASE}/:id`, async (c) => {
    requireAdminPage(c, true);
    const row = await getEndpoint(c.var.db, c.var.auth.organizationId, endpointId(c));
    const values = typedValues(c.var.form);
    const { active, ...rest } = inputOf(values);
    // `active` only when it changes: turning on again also clears the service's failure count.
    const checked = validate(updateEndpointSchema, active === row.active ? rest : { ...rest, active });
    if (!checked.ok) return renderEndpoint(c, row, { values, errors: onFields(checked.errors, values) }, 400);
    let saved: SavedEndpoint;
    try {
      saved = await updateEndpoint(c.var.db, c.var.auth.organizationId, row.id, checked.data, c.var.config);
    } catch (err) {
      if (err instanceof ApiError && err.code === "validation_failed")
        return renderEndpoint(c, row, { values, errors: onFields(apiErrorFields(err), values) }, 400);
      throw err;
    }
    if (saved.warnings.length) return renderEndpoint(c, saved, { notice: saveWarningNotice(saved.warnings) });
    return c.redirect(`${BASE}/${row.id}?notice=saved`, 303);
  });

  app.post(`${BASE}/:id/toggle`, async (c) => {
    requireAdminPage(c, true);
    const id = endpointId(c);
    const wanted = one(c.var.form, "active");
    const checked = validate(updateEndpointSchema, { active: wanted === "true" ? true : wanted === "false" ? false : wanted });
    if (!checked.ok) throw new ApiError("bad_request", "The toggle form must send active=true or active=false.");
    const row = await updateEndpoint(c.var.db, c.var.auth.organizationId, id, checked.data, c.var.config);
    const notice = row.active ? "on" : "off";
    return c.redirect(one(c.var.form, "from") === "list" ? `${BASE}?notice=${notice}` : `${BASE}/${row.id}?notice=${notice}`, 303);
  });

  app.post(`${BASE}/:id/test`, async (c) => {
    requireAdminPage(c, true);
    const delivery = await sendTestEvent(c.var.services.webhooks, c.var.auth.organizationId, endpointId(c));
    return c.redirect(`${BASE}/${delivery.endpointId}?notice=tested&delivery=${delivery.id}#deliveries`, 303);
  });

  app.post(`${BASE}/:id/rotate-secret`, async (c) => {
    requireAdminPage(c, true);
    const row = await rotateSecret(c.var.db, c.var.auth.organizationId, endpointId(c), c.var.config);
    c.header("Cache-Control", "no-store");
    return renderEndpoint(c, row, { secret: { value: row.secret, warning: ROTATED_WARNING } });
  });

  app.post(`${BASE}/:id/delete`, async (c) => {
    requireAdminPage(c, true);
    await deleteEndpoint(c.var.db, c.var.auth.organizationId, endpointId(c));
    return c.redirect(`${BASE}?notice=deleted`, 303);
  });

  app.post(`${BASE}/:id/deliveries/:deliveryId/resend`, async (c) => {
    requireAdminPage(c, true);
    const id = endpointId(c);
    const deliveryId = c.req.param("deliveryId");
    const { organizationId } = c.var.auth;
    const row = await getEndpoint(c.var.db, organizationId, id);
    if (!isUuid(deliveryId)) throw new ApiError("not_found", "No delivery with that id for this endpoint.");
    try {
      const delivery = await resendDelivery(c.var.services.webhooks, organizationId, id, deliveryId);
      return c.redirect(`${BASE}/${id}?notice=resent&delivery=${delivery.id}#delivery-${delivery.id}`, 303);
    } catch (err) {
      if (err instanceof ApiError && err.code === "conflict")
        return renderEndpoint(c, row, { notice: { kind: "error", text: err.message } }, 409);
      throw err;
    }
  });
}
