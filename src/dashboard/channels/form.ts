// The channel forms' fields ↔ the API's JSON shapes (createChannelSchema, updateChannelSchema):
// the credentials are flat fields of the connect form, nested under `credentials` for the schema;
// the idle timeout is seconds, "" for the default. Credentials are write-only: what the user typed
// in them is never sent back into a page, even to a form with errors.
import type { ChannelType, MessagingChannel } from "../../db/schema";
import { agentVersionOf, type Form, num, one, opt } from "../forms";
import type { FieldErrors } from "../ui";

/** The connect form's credential fields, by channel type (all type="password" but the number's id). */
export const CREDENTIAL_FIELDS = {
  telegram: ["botToken"],
  whatsapp: ["phoneNumberId", "accessToken", "appSecret", "verifyToken"],
} as const satisfies Record<ChannelType, readonly string[]>;

/** What the form shows again: the channel's values, or what the user typed (never a credential). */
export interface Values {
  name: string;
  agentId: string;
  agentVersion: string;
  idleTimeoutSeconds: string;
  /** WhatsApp's phone number id: an id, not a secret, so a form with errors keeps it. */
  phoneNumberId: string;
}

export const typeOf = (value: string | undefined): ChannelType => (value === "whatsapp" ? "whatsapp" : "telegram");

export const valuesOf = (channel: MessagingChannel | null, firstAgent = ""): Values => ({
  name: channel?.name ?? "",
  agentId: channel?.agentId ?? firstAgent,
  agentVersion: channel?.agentVersion?.toString() ?? "",
  idleTimeoutSeconds: channel ? String(channel.idleTimeoutSeconds) : "",
  phoneNumberId: "",
});

export const typed = (form: Form): Values => ({
  name: one(form, "name"),
  agentId: one(form, "agentId"),
  agentVersion: one(form, "agentVersion"),
  idleTimeoutSeconds: one(form, "idleTimeoutSeconds"),
  phoneNumberId: one(form, "phoneNumberId"),
});

/** The connect form as createChannelSchema's input. */
export const createInputOf = (form: Form, type: ChannelType) => ({
  type,
  name: one(form, "name"),
  agentId: one(form, "agentId"),
  agentVersion: agentVersionOf(form),
  idleTimeoutSeconds: num(form, "idleTimeoutSeconds"),
  credentials: Object.fromEntries(CREDENTIAL_FIELDS[type].map((field) => [field, one(form, field).trim()])),
});

/** The settings form as updateChannelSchema's input: an empty field is left as it is (the agent version's: the live one). */
export const updateInputOf = (form: Form) => ({
  name: opt(form, "name"),
  agentId: opt(form, "agentId"),
  agentVersion: agentVersionOf(form),
  idleTimeoutSeconds: num(form, "idleTimeoutSeconds"),
});

/** credentials.botToken → botToken: each error on the field that shows it. */
export const onFields = (errors: FieldErrors): FieldErrors => {
  const out: FieldErrors = {};
  for (const [path, message] of Object.entries(errors)) out[path.startsWith("credentials.") ? path.slice(12) : path] ??= message;
  return out;
};
