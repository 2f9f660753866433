/** @jsxImportSource hono/jsx */
// The webhook endpoint form and its payload builder. Progressive enhancement: the channels show
// and hide their events, select all / deselect all, and the live preview (ui/assets/webhook-form.ts,
// which bundles the server's own `shapePayload`); without JavaScript the form works the same and
// the server renders the preview.
import type { FC } from "hono/jsx";
import { CHANNELS, type Channel, EVENTS_BY_CHANNEL, PLATFORM_EVENTS } from "../../webhooks/events";
import { LEAF_PATHS } from "../../webhooks/payload";
import { DEFAULT_TEST_EVENT } from "../../webhooks/test-payloads";
import { Checkbox, Csrf, ErrorSummary, type FieldErrors, GroupError, InlineScript, scriptJson, TextArea, TextField } from "../ui";
import { WEBHOOK_FORM_JS } from "../ui/assets/built";
import { previewOf, samplePayload, type Values } from "./values";

const CHANNEL_LABELS: Record<Channel, string> = { voice: "Voice", chat: "Chat (messaging)", widget: "Widget" };

/** Leaf paths grouped by their root key, for the builder's columns. */
const LEAF_GROUPS = LEAF_PATHS.reduce<Array<{ root: string; paths: string[] }>>((groups, path) => {
  const root = path.split(".")[0] as string;
  const group = groups.find((g) => g.root === root);
  if (group) group.paths.push(path);
  else groups.push({ root, paths: [path] });
  return groups;
}, []);

const describedBy = (errors: FieldErrors, name: string) => (errors[name] ? `f-${name}-error` : undefined);

const Delivery: FC<{ v: Values; errors: FieldErrors }> = ({ v, errors }) => (
  <fieldset>
    <legend>Delivery</legend>
    <Checkbox name="active" label="Active: send events to this endpoint" checked={v.active} />
    <Checkbox
      name="useTestReceiver"
      label="Use built-in test receiver: deliveries are captured by this service (see below) instead of sent to a URL"
      checked={v.useTestReceiver}
    />
    <div class="grid2">
      <TextField
        name="testUrl"
        label="Test URL"
        type="url"
        value={v.testUrl}
        errors={errors}
        hint="Receives deliveries instead of the production URL while Test Mode is on."
      />
      <div class="end">
        <Checkbox name="testMode" label="Test Mode: send live deliveries to the Test URL" checked={v.testMode} />
      </div>
    </div>
  </fieldset>
);

const Events: FC<{ v: Values; errors: FieldErrors }> = ({ v, errors }) => (
  <>
    <fieldset id="f-channels" aria-describedby={describedBy(errors, "channels")}>
      <legend>Channels</legend>
      <div class="checks">
        {CHANNELS.map((ch) => (
          <Checkbox name="channels" value={ch} label={CHANNEL_LABELS[ch]} checked={v.channels.includes(ch)} />
        ))}
      </div>
      <GroupError name="channels" errors={errors} />
    </fieldset>

    <fieldset id="f-events" aria-describedby={describedBy(errors, "events")}>
      <legend>Events</legend>
      <p class="hint mt0">
        Only events of the chosen channels, and only those this platform sends, can be selected. With none selected, the endpoint receives
        only Send Test.
      </p>
      <div class="row events-actions">
        <button type="button" class="secondary" data-events="all" hidden>
          Select all
        </button>
        <button type="button" class="secondary" data-events="none" hidden>
          Deselect all
        </button>
      </div>
      {CHANNELS.map((ch) => (
        <fieldset class="group" data-channel={ch}>
          <legend>{CHANNEL_LABELS[ch]}</legend>
          <div class="checks">
            {EVENTS_BY_CHANNEL[ch]
              .filter((e) => PLATFORM_EVENTS.has(e) || v.events.includes(e))
              .map((e) => (
                <Checkbox
                  name="events"
                  value={e}
                  label={PLATFORM_EVENTS.has(e) ? e : `${e} (never sent here)`}
                  checked={v.events.includes(e)}
                />
              ))}
          </div>
        </fieldset>
      ))}
      <GroupError name="events" errors={errors} />
    </fieldset>
  </>
);

const PayloadBuilder: FC<{ v: Values; errors: FieldErrors; preview: string }> = ({ v, errors, preview }) => (
  <fieldset id="f-payloadMode">
    <legend>Payload</legend>
    <label class="check" for="f-payloadMode-all">
      <input type="radio" id="f-payloadMode-all" name="payloadMode" value="all" checked={v.payloadMode !== "custom"} />
      Send all fields (default)
    </label>
    <label class="check" for="f-payloadMode-custom">
      <input type="radio" id="f-payloadMode-custom" name="payloadMode" value="custom" checked={v.payloadMode === "custom"} />
      Custom fields: only the leaf paths chosen below
    </label>
    <GroupError name="payloadMode" errors={errors} />
    <div class="builder custom" id="payload-builder">
      <fieldset id="f-customFields" class="group" aria-describedby={describedBy(errors, "customFields")}>
        <legend>Leaf paths (custom fields)</legend>
        <p class="hint mt4">
          <code>deliveryId</code>, <code>event</code> and <code>timestamp</code> are always sent.
        </p>
        <div class="leaf-groups">
          {LEAF_GROUPS.map((g) => (
            <div>
              {g.paths.map((p) => (
                <Checkbox name="customFields" value={p} label={p} checked={v.customFields.includes(p)} />
              ))}
            </div>
          ))}
        </div>
        <GroupError name="customFields" errors={errors} />
      </fieldset>
      <section aria-labelledby="payload-preview-label">
        <h3 class="preview-title" id="payload-preview-label">
          Preview
        </h3>
        <p class="hint mb6" id="payload-preview-hint">
          Send Test's <code>{DEFAULT_TEST_EVENT}</code> payload as this endpoint would receive it. Paths this event does not carry (
          <code>chat.*</code>; <code>analysis</code> and <code>report</code> before <code>call.analyzed</code>) are left out.
        </p>
        <pre id="payload-preview" tabindex={0} aria-describedby="payload-preview-hint">
          {preview}
        </pre>
      </section>
    </div>
  </fieldset>
);

export const EndpointForm: FC<{ csrf: string; nonce: string; action: string; submit: string; values: Values; errors: FieldErrors }> = ({
  csrf,
  nonce,
  action,
  submit,
  values: v,
  errors,
}) => {
  const sample = samplePayload();
  return (
    <>
      <ErrorSummary errors={errors} />
      <form method="post" action={action} class="card" id="endpoint-form" novalidate>
        <Csrf token={csrf} />
        <h2 class="mt0">Endpoint</h2>
        <div class="grid2">
          <TextField name="name" label="Name" value={v.name} errors={errors} required />
          <TextField
            name="url"
            label="Production URL"
            type="url"
            value={v.url}
            errors={errors}
            placeholder="https://hooks.example.com/voice"
            hint="Public https:// URL that receives deliveries. Optional with the built-in test receiver."
          />
        </div>
        <TextArea name="description" label="Description (optional)" value={v.description} errors={errors} rows={2} />
        <Delivery v={v} errors={errors} />
        <Events v={v} errors={errors} />
        <PayloadBuilder v={v} errors={errors} preview={previewOf(sample, v)} />
        <InlineScript nonce={nonce} type="application/json" id="payload-sample" js={scriptJson(sample)} />
        <p class="row mt18">
          <button type="submit">{submit}</button>
          <a class="button secondary" href="/dashboard/webhooks">
            Cancel
          </a>
        </p>
      </form>
      <InlineScript nonce={nonce} js={WEBHOOK_FORM_JS} />
    </>
  );
};
