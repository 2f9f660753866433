/** @jsxImportSource hono/jsx */
// The webhook endpoint form: every field of the spec's table (docs/webhooks.md), from the form's
// strings to the API's JSON shape (then the API's own zod schemas decide), and the payload
// builder. Progressive enhancement, inline: the channels show and hide their events, select
// all / deselect all, and the live preview. The preview picks the chosen leaf paths out of the
// Send Test sample payload, rendered into the page by the server, with the same path picking as
// `shapePayload`; without JavaScript the form works the same and the server renders the preview.
import type { FC } from "hono/jsx";
import type { WebhookEndpoint } from "../../db/schema";
import { newId } from "../../lib/ids";
import { CHANNELS, type Channel, EVENTS_BY_CHANNEL, eventsFor, NEVER_DISPATCHED, payloadChannel } from "../../webhooks/events";
import { buildPayload, ENVELOPE_PATHS, LEAF_PATHS, type Payload, shapePayload } from "../../webhooks/payload";
import { syntheticCallCompleted, TEST_EVENT } from "../../webhooks/test-event";
import { type Form, many, one } from "./forms";
import { Checkbox, Csrf, ErrorSummary, type FieldErrors, InlineScript, TextArea, TextField } from "./ui";

/** What the form shows: an endpoint's values, or what the user typed. */
export interface Values {
  name: string;
  description: string;
  url: string;
  active: boolean;
  useTestReceiver: boolean;
  testUrl: string;
  testMode: boolean;
  channels: string[];
  events: string[];
  payloadMode: string;
  customFields: string[];
}

export function valuesOf(row: WebhookEndpoint | null): Values {
  if (!row) {
    return {
      name: "",
      description: "",
      url: "",
      active: true,
      useTestReceiver: false,
      testUrl: "",
      testMode: false,
      channels: ["voice"],
      // The API's default is "all" (every event of the chosen channels).
      events: eventsFor(["voice"]),
      payloadMode: "all",
      customFields: [],
    };
  }
  return {
    name: row.name,
    description: row.description ?? "",
    url: row.url ?? "",
    active: row.active,
    useTestReceiver: row.useTestReceiver,
    testUrl: row.testUrl ?? "",
    testMode: row.testMode,
    channels: row.channels,
    events: row.events,
    payloadMode: row.payloadMode,
    customFields: row.customFields,
  };
}

const checked = (form: Form, name: string) => one(form, name) === "on";

export const typedValues = (form: Form): Values => ({
  name: one(form, "name"),
  description: one(form, "description"),
  url: one(form, "url"),
  active: checked(form, "active"),
  useTestReceiver: checked(form, "useTestReceiver"),
  testUrl: one(form, "testUrl"),
  testMode: checked(form, "testMode"),
  channels: many(form, "channels"),
  events: many(form, "events"),
  // A form without the radio means the API's default.
  payloadMode: one(form, "payloadMode") || "all",
  customFields: many(form, "customFields"),
});

const orNull = (s: string) => (s.trim() === "" ? null : s);

/** Form values → the API's JSON body (createEndpointSchema; every field, so also a full updateEndpointSchema patch). */
export const inputOf = (v: Values) => ({
  name: v.name,
  description: orNull(v.description),
  url: orNull(v.url),
  active: v.active,
  useTestReceiver: v.useTestReceiver,
  testUrl: orNull(v.testUrl),
  testMode: v.testMode,
  channels: v.channels,
  events: v.events,
  payloadMode: v.payloadMode,
  customFields: v.customFields,
});

/** Issue paths (`events.2`, `customFields.0`) shown on the field that holds them. */
export function onFields(errors: FieldErrors, v: Values): FieldErrors {
  const out: FieldErrors = {};
  for (const [path, message] of Object.entries(errors)) {
    const [field = "form", index] = path.split(".");
    const list = field === "events" || field === "customFields" || field === "channels" ? v[field] : undefined;
    const item = index !== undefined && list ? list[Number(index)] : undefined;
    out[field] ??= item !== undefined ? `${item}: ${message}` : message;
  }
  if (out.channels && v.channels.length === 0) out.channels = "choose at least one channel";
  return out;
}

const CHANNEL_LABELS: Record<Channel, string> = { voice: "Voice", chat: "Chat (messaging)", widget: "Widget" };

/** The Send Test payload ("Send all fields"): what the preview shapes. */
export const samplePayload = (): Payload =>
  buildPayload({
    deliveryId: newId(),
    event: TEST_EVENT,
    channel: payloadChannel(TEST_EVENT),
    timestamp: new Date(),
    data: syntheticCallCompleted(),
  });

export const previewOf = (sample: Payload, v: Pick<Values, "payloadMode" | "customFields">) =>
  JSON.stringify(v.payloadMode === "custom" ? shapePayload(sample, v.customFields) : sample, null, 2);

/** JSON inside a <script> element: `<` escaped so the text can never close the element. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, "\\u003c");

/** Leaf paths grouped by their root key, for the builder's columns. */
const LEAF_GROUPS = LEAF_PATHS.reduce<Array<{ root: string; paths: string[] }>>((groups, path) => {
  const root = path.split(".")[0] as string;
  const group = groups.find((g) => g.root === root);
  if (group) group.paths.push(path);
  else groups.push({ root, paths: [path] });
  return groups;
}, []);

export const FORM_CSS = `
[hidden]{display:none!important}
fieldset{border:1px solid var(--line);border-radius:8px;padding:4px 14px 12px;margin:16px 0 0;min-width:0}
legend{font-weight:600;font-size:14px;padding:0 6px}
fieldset.group{border:0;padding:0;margin:6px 0 0}
fieldset.group legend{font-size:12px;color:var(--muted);text-transform:uppercase;letter-spacing:.03em;padding:0}
.checks{display:grid;grid-template-columns:repeat(auto-fill,minmax(190px,1fr));gap:0 16px}
.checks .check{margin:4px 0}
.leaf-groups{columns:190px;column-gap:16px}
.leaf-groups>div{break-inside:avoid;padding-bottom:8px}
.leaf-groups .check{font-family:ui-monospace,Menlo,monospace;font-size:13px;margin:3px 0}
.builder{display:grid;grid-template-columns:minmax(0,1fr);gap:0 20px;align-items:start}
.builder.custom{grid-template-columns:minmax(0,1fr) minmax(0,1fr)}
.builder pre{margin:0;max-height:560px;white-space:pre-wrap;overflow-wrap:anywhere}
.field-error.group-error{margin:6px 0 0}
.events-actions{margin:8px 0 2px}.preview-title{font-size:14px;margin:12px 0 4px}.mb6{margin:0 0 6px}
@media (max-width:900px){.builder.custom{grid-template-columns:minmax(0,1fr)}}
`;

/** The builder's script. `shape` is `shapePayload` (src/webhooks/payload.ts) line for line. */
const FORM_SCRIPT = `
(function(){
var form=document.getElementById('endpoint-form');if(!form)return;
var sample=JSON.parse(document.getElementById('payload-sample').textContent);
var ENVELOPE=${JSON.stringify(ENVELOPE_PATHS)};
function shape(full,paths){
  var out={};ENVELOPE.forEach(function(k){out[k]=full[k]});
  paths.forEach(function(path){
    var keys=path.split('.');var src=full;
    keys.forEach(function(k){src=src&&typeof src==='object'?src[k]:undefined});
    if(src===undefined)return;
    var dst=out;
    keys.slice(0,-1).forEach(function(k){if(typeof dst[k]!=='object'||dst[k]===null)dst[k]={};dst=dst[k]});
    dst[keys[keys.length-1]]=src;
  });
  return out;
}
function values(name){return Array.prototype.filter.call(form.querySelectorAll('input[name="'+name+'"]'),function(i){return i.checked&&!i.disabled}).map(function(i){return i.value})}
function channels(){var on=values('channels');form.querySelectorAll('fieldset[data-channel]').forEach(function(g){var show=on.indexOf(g.getAttribute('data-channel'))>=0;g.hidden=!show;g.disabled=!show})}
function preview(){
  var m=form.querySelector('input[name="payloadMode"]:checked');var custom=!!m&&m.value==='custom';
  document.getElementById('f-customFields').hidden=!custom;
  document.getElementById('payload-builder').classList.toggle('custom',custom);
  document.getElementById('payload-preview').textContent=JSON.stringify(custom?shape(sample,values('customFields')):sample,null,2);
}
form.querySelectorAll('[data-events]').forEach(function(b){
  b.hidden=false;
  b.addEventListener('click',function(){var on=b.getAttribute('data-events')==='all';form.querySelectorAll('fieldset[data-channel]:not([disabled]) input[name="events"]').forEach(function(i){i.checked=on})});
});
form.addEventListener('change',function(e){var n=e.target.name;if(n==='channels')channels();if(n==='payloadMode'||n==='customFields')preview()});
channels();preview();
})();
`;

const GroupError: FC<{ name: string; errors: FieldErrors }> = ({ name, errors }) =>
  errors[name] ? (
    <p class="field-error group-error" id={`f-${name}-error`}>
      {errors[name]}
    </p>
  ) : null;

export const EndpointForm: FC<{ csrf: string; nonce: string; action: string; submit: string; values: Values; errors: FieldErrors }> = ({
  csrf,
  nonce,
  action,
  submit,
  values: v,
  errors,
}) => {
  const sample = samplePayload();
  const describedBy = (name: string) => (errors[name] ? `f-${name}-error` : undefined);
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

        <fieldset id="f-channels" aria-describedby={describedBy("channels")}>
          <legend>Channels</legend>
          <div class="checks">
            {CHANNELS.map((ch) => (
              <Checkbox name="channels" value={ch} label={CHANNEL_LABELS[ch]} checked={v.channels.includes(ch)} />
            ))}
          </div>
          <GroupError name="channels" errors={errors} />
        </fieldset>

        <fieldset id="f-events" aria-describedby={describedBy("events")}>
          <legend>Events</legend>
          <p class="hint mt0">
            Only events of the chosen channels can be selected. With none selected, the endpoint receives only Send Test.
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
                {EVENTS_BY_CHANNEL[ch].map((e) => (
                  <Checkbox
                    name="events"
                    value={e}
                    label={NEVER_DISPATCHED.has(e) ? `${e} (never sent)` : e}
                    checked={v.events.includes(e)}
                  />
                ))}
              </div>
            </fieldset>
          ))}
          <GroupError name="events" errors={errors} />
        </fieldset>

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
            <fieldset id="f-customFields" class="group" aria-describedby={describedBy("customFields")}>
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
                Send Test's <code>{TEST_EVENT}</code> payload as this endpoint would receive it. Paths this event does not carry (
                <code>chat.*</code>; <code>analysis</code> and <code>report</code> before <code>call.analyzed</code>) are left out.
              </p>
              <pre id="payload-preview" tabindex={0} aria-describedby="payload-preview-hint">
                {previewOf(sample, v)}
              </pre>
            </section>
          </div>
        </fieldset>
        <InlineScript nonce={nonce} type="application/json" id="payload-sample" js={scriptJson(sample)} />
        <p class="row mt18">
          <button type="submit">{submit}</button>
          <a class="button secondary" href="/dashboard/webhooks">
            Cancel
          </a>
        </p>
      </form>
      <InlineScript nonce={nonce} js={FORM_SCRIPT} />
    </>
  );
};
