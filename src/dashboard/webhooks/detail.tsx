/** @jsxImportSource hono/jsx */
// An endpoint's page: the secret shown once (create, rotate), its status with Send Test, the
// toggle, rotate and delete; the settings form; the delivery log; the test receiver. And the
// new-endpoint page.
import type { FC } from "hono/jsx";
import type { WebhookEndpoint } from "../../db/schema";
import type { Captures } from "../../webhooks/capture";
import { type EndpointView, maskSecret } from "../../webhooks/endpoints";
import { TEST_EVENTS } from "../../webhooks/test-payloads";
import { Csrf, type FieldErrors, Flash, Layout, Secret, type Shell, When } from "../ui";
import { WEBHOOKS_CSS } from "../ui/assets/built";
import { EndpointForm } from "./form";
import { DeliveryLog, type DeliveryLogProps, TestReceiver } from "./log";
import { BASE, StateBadge, ToggleForm, targetOf } from "./parts";
import { type Values, valuesOf } from "./values";

export type Notice = { kind: "ok" | "error" | "warn"; text: string };

export const NewEndpoint: FC<{ shell: Shell; values: Values; errors: FieldErrors }> = ({ shell, values, errors }) => (
  <Layout shell={shell} css={WEBHOOKS_CSS}>
    <p class="muted small mt0">
      <a href={BASE}>← Webhooks</a>
    </p>
    <EndpointForm csrf={shell.csrf} nonce={shell.nonce} action={BASE} submit="Create endpoint" values={values} errors={errors} />
  </Layout>
);

/**
 * The event Send Test offers first: the one just sent, else call.completed when the endpoint takes
 * it or takes none of the events the platform sends, else the first of those it takes.
 */
export const testEventFor = (events: readonly string[], last?: string): string => {
  if (last && TEST_EVENTS.includes(last)) return last;
  const taken = TEST_EVENTS.filter((e) => events.includes(e));
  return taken.length === 0 || taken.includes("call.completed") ? "call.completed" : (taken[0] as string);
};

const SendTest: FC<{ csrf: string; endpoint: EndpointView; last?: string }> = ({ csrf, endpoint, last }) => {
  const chosen = testEventFor(endpoint.events, last);
  return (
    <form method="post" action={`${BASE}/${endpoint.id}/test`} class="row">
      <Csrf token={csrf} />
      <select name="event" class="w-auto" aria-label="Event to send as a test">
        {TEST_EVENTS.map((e) => (
          <option value={e} selected={e === chosen}>
            {e}
          </option>
        ))}
      </select>
      <button type="submit">Send Test</button>
    </form>
  );
};

const Status: FC<{ csrf: string; row: WebhookEndpoint; endpoint: EndpointView; testEvent?: string }> = ({
  csrf,
  row,
  endpoint,
  testEvent,
}) => {
  const target = targetOf(endpoint);
  return (
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
        <SendTest csrf={csrf} endpoint={endpoint} last={testEvent} />
        <ToggleForm csrf={csrf} e={endpoint} />
        <form
          method="post"
          action={`${BASE}/${row.id}/rotate-secret`}
          data-confirm="Rotate the signing secret? The current secret stops validating at once, also for deliveries already queued."
        >
          <Csrf token={csrf} />
          <button type="submit" class="secondary">
            Rotate secret
          </button>
        </form>
        <form method="post" action={`${BASE}/${row.id}/delete`} data-confirm={`Delete the endpoint "${row.name}" and its delivery log?`}>
          <Csrf token={csrf} />
          <button type="submit" class="danger">
            Delete
          </button>
        </form>
      </div>
      <p class="hint">
        Send Test posts a synthetic payload of the chosen event (a made-up call or chat, in the shape real ones have) to where deliveries go
        now, whether the endpoint is active or not, and whatever events it takes.
      </p>
    </section>
  );
};

export interface EndpointPageProps {
  shell: Shell;
  /** The stored row, its secret opened. */
  row: WebhookEndpoint;
  endpoint: EndpointView;
  log: Pick<DeliveryLogProps, "deliveries" | "next" | "filters" | "problems">;
  captures: Captures;
  /** What the form shows instead of the stored values (after a refused save), and its problems. */
  values?: Values;
  errors?: FieldErrors;
  /** The full secret, in the create and rotate responses only. */
  secret?: { value: string; warning: string };
  notice?: Notice;
  /** The event Send Test just sent: offered again. */
  testEvent?: string;
}

export const EndpointPage: FC<EndpointPageProps> = ({ shell, row, endpoint, log, captures, values, errors, secret, notice, testEvent }) => (
  <Layout shell={shell} css={WEBHOOKS_CSS}>
    <nav class="subnav" aria-label="On this page">
      <a href={BASE}>← Webhooks</a>
      <a href="#settings">Settings</a>
      <a href="#deliveries">Delivery log</a>
      <a href="#test-receiver">Test receiver</a>
    </nav>
    {secret ? <Secret id="endpoint-secret" value={secret.value} warning={secret.warning} /> : null}
    {notice ? <Flash kind={notice.kind}>{notice.text}</Flash> : null}
    <Status csrf={shell.csrf} row={row} endpoint={endpoint} testEvent={testEvent} />
    <div id="settings">
      <EndpointForm
        csrf={shell.csrf}
        nonce={shell.nonce}
        action={`${BASE}/${row.id}`}
        submit="Save endpoint"
        values={values ?? valuesOf(row)}
        errors={errors ?? {}}
      />
    </div>
    <DeliveryLog csrf={shell.csrf} endpoint={endpoint} {...log} />
    <TestReceiver endpoint={endpoint} captures={captures} />
  </Layout>
);
