// The endpoint form's values: every field of the spec's table (docs/webhooks.md), from the form's
// strings to the API's JSON shape (then the API's own zod schemas decide), and the payload
// preview the server renders (the form's script redraws it in the browser with the same
// `shapePayload`).
import type { WebhookEndpoint } from "../../db/schema";
import { newId } from "../../lib/ids";
import { eventsFor, payloadChannel } from "../../webhooks/events";
import { buildPayload, type Payload, shapePayload } from "../../webhooks/payload";
import { DEFAULT_TEST_EVENT, testEventData } from "../../webhooks/test-payloads";
import { type Form, many, one } from "../forms";
import type { FieldErrors } from "../ui";

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

/** Send Test's default payload ("Send all fields"): what the preview shapes. */
export const samplePayload = (): Payload =>
  buildPayload({
    deliveryId: newId(),
    event: DEFAULT_TEST_EVENT,
    channel: payloadChannel(DEFAULT_TEST_EVENT),
    timestamp: new Date(),
    data: testEventData(DEFAULT_TEST_EVENT),
  });

/** The preview as the server renders it (without JavaScript, and before the script runs). */
export const previewOf = (sample: Payload, v: Pick<Values, "payloadMode" | "customFields">) =>
  JSON.stringify(v.payloadMode === "custom" ? shapePayload(sample, v.customFields) : sample, null, 2);
