// WhatsApp's Cloud API, the subset a channel uses (developers.facebook.com/docs/whatsapp/cloud-api):
// the business number's details to check the access token, POST /{phone-number-id}/messages for
// text replies, the media URL of a voice note and its download, and the webhook's checks: the
// verification handshake (hub.verify_token) and X-Hub-Signature-256 over the raw body, keyed
// with the app secret. The access token never reaches an error, a log line or a response.
import { z } from "zod";
import type { InboundMessage } from "../db/schema";
import { hmacSha256Hex, safeEqual, sha256Hex } from "../lib/crypto";
import { callProvider, MessagingApiError, type MessagingCallOptions, redact } from "./http";
import { type InboundDelivery, type ParsedInbound, problemOf, unixSeconds, unreadable } from "./parsed";

const PROVIDER = "WhatsApp";
/** The Cloud API's limit for a text message's body. */
export const WHATSAPP_MAX_TEXT = 4096;
/** Outside the 24-hour customer-service window only templates may be sent (error 131047). */
export const OUTSIDE_WINDOW = 131047;

interface GraphError {
  error?: { message?: string; type?: string; code?: number; error_subcode?: number };
}

export class WhatsAppNumber {
  private readonly root: string;
  constructor(
    baseUrl: string,
    version: string,
    private readonly phoneNumberId: string,
    private readonly accessToken: string,
    private readonly opts: MessagingCallOptions,
  ) {
    this.root = `${baseUrl.replace(/\/$/, "")}/${version}`;
  }

  private async call<T>(url: string, init: RequestInit = {}): Promise<T> {
    const answer = await callProvider(
      PROVIDER,
      url,
      { ...init, headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${this.accessToken}` } },
      this.opts,
    );
    if (answer.status >= 200 && answer.status < 300) return answer.body as T;
    const error = (answer.body as GraphError | null)?.error;
    throw new MessagingApiError(PROVIDER, answer.status, error?.code ?? null, redact(error?.message ?? `answered ${answer.status}`));
  }

  /** The number's details: proves the access token reaches this phone number id. */
  details = () =>
    this.call<{ id: string; display_phone_number?: string; verified_name?: string }>(
      `${this.root}/${encodeURIComponent(this.phoneNumberId)}?fields=display_phone_number,verified_name`,
    );

  sendText = (to: string, text: string) =>
    this.call<{ messages?: Array<{ id: string }> }>(`${this.root}/${encodeURIComponent(this.phoneNumberId)}/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        messaging_product: "whatsapp",
        recipient_type: "individual",
        to,
        type: "text",
        text: { preview_url: false, body: text.slice(0, WHATSAPP_MAX_TEXT) },
      }),
    });

  /** A voice note's bytes: its media URL (valid for minutes), then the download with the same token. */
  async download(mediaId: string): Promise<{ bytes: ArrayBuffer; mimeType: string }> {
    const media = await this.call<{ url?: string; mime_type?: string }>(`${this.root}/${encodeURIComponent(mediaId)}`);
    if (!media.url) throw new MessagingApiError(PROVIDER, null, null, "the media has no URL");
    const answer = await callProvider(PROVIDER, media.url, { headers: { authorization: `Bearer ${this.accessToken}` } }, this.opts);
    if (answer.status !== 200 || !(answer.body instanceof ArrayBuffer))
      throw new MessagingApiError(PROVIDER, answer.status, null, `the media download answered ${answer.status}`);
    return { bytes: answer.body, mimeType: media.mime_type ?? answer.headers.get("content-type") ?? "application/octet-stream" };
  }
}

/** `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body, keyed with the app secret>`, compared in constant time. */
export async function verifyWhatsAppSignature(appSecret: string, rawBody: Uint8Array, header: string | undefined): Promise<boolean> {
  if (!header?.startsWith("sha256=")) return false;
  return safeEqual(header.slice("sha256=".length).toLowerCase(), await hmacSha256Hex(appSecret, rawBody));
}

/** A user's WhatsApp id (`wa_id`, their number); bounded, as it is indexed. */
const waIdSchema = z.string().min(1).max(256);
/** A message's id (`wamid.…`); bounded, as it is indexed. */
const messageIdSchema = z.string().min(1).max(512);

/**
 * The Cloud API's webhook notification (developers.facebook.com/docs/whatsapp/cloud-api/webhooks):
 * `entry[].changes[]`, each `{field, value}`; the `messages` field's value has the number's
 * `metadata`, the senders' `contacts` and the `messages`. Read level by level, so one malformed
 * part does not cost the others.
 */
const notificationSchema = z.object({ object: z.literal("whatsapp_business_account"), entry: z.array(z.unknown()) });
const entrySchema = z.object({ changes: z.array(z.unknown()) });
const changeSchema = z.object({ field: z.string(), value: z.unknown() });
const valueSchema = z.object({
  metadata: z.object({ phone_number_id: z.string() }),
  contacts: z.array(z.unknown()).optional(),
  messages: z.array(z.unknown()).optional(),
});
const contactSchema = z.object({ wa_id: waIdSchema, profile: z.object({ name: z.string() }).optional() });
/** Whose conversation a message belongs to: the sender (read leniently). */
const addressSchema = z.object({ from: waIdSchema });
/** One message: `timestamp` is Unix seconds as a string of digits; `type` names its kind. */
const messageSchema = z.object({
  id: messageIdSchema,
  from: waIdSchema,
  timestamp: z
    .string()
    .regex(/^\d{1,15}$/)
    .transform(Number)
    .pipe(unixSeconds),
  type: z.string().min(1).max(64),
  text: z.object({ body: z.string() }).optional(),
  audio: z.object({ id: z.string().min(1), mime_type: z.string().optional() }).optional(),
});

/**
 * The messages of a notification addressed to `phoneNumberId`, as conversation messages; status
 * updates (sent, delivered, read), other fields and other numbers' messages are not ours to answer.
 * A part that does not match the format is never refused: dropped, or, a message whose sender can
 * be read, kept as unsupported (without an id, it is named by a hash of itself, so a redelivery is
 * still dropped).
 */
export async function parseWhatsAppNotification(body: unknown, phoneNumberId: string): Promise<InboundDelivery> {
  const out: InboundDelivery = { messages: [], problems: [] };
  if ((body as { object?: unknown } | null)?.object !== "whatsapp_business_account") return out;
  const n = notificationSchema.safeParse(body);
  if (!n.success) return { ...out, problems: [problemOf(n.error, "")] };
  for (const [i, rawEntry] of n.data.entry.entries()) {
    const entry = entrySchema.safeParse(rawEntry);
    if (!entry.success) {
      out.problems.push(problemOf(entry.error, `entry.${i}`));
      continue;
    }
    for (const [j, rawChange] of entry.data.changes.entries()) {
      const at = `entry.${i}.changes.${j}`;
      const change = changeSchema.safeParse(rawChange);
      if (!change.success) out.problems.push(problemOf(change.error, at));
      if (!change.success || change.data.field !== "messages") continue;
      const value = valueSchema.safeParse(change.data.value);
      if (!value.success) out.problems.push(problemOf(value.error, `${at}.value`));
      if (!value.success || value.data.metadata.phone_number_id !== phoneNumberId) continue;
      const names = new Map<string, string | undefined>();
      for (const c of value.data.contacts ?? []) {
        const contact = contactSchema.safeParse(c);
        if (contact.success) names.set(contact.data.wa_id, contact.data.profile?.name);
      }
      for (const [k, raw] of (value.data.messages ?? []).entries()) {
        const parsed = await parseMessage(raw, names, `${at}.value.messages.${k}`);
        if (parsed.problem) out.problems.push(parsed.problem);
        if (parsed.message) out.messages.push(parsed.message);
      }
    }
  }
  return out;
}

async function parseMessage(
  raw: unknown,
  names: Map<string, string | undefined>,
  at: string,
): Promise<{ message?: ParsedInbound; problem?: string }> {
  const address = addressSchema.safeParse(raw);
  if (!address.success) return { problem: problemOf(address.error, at) };
  const endUserId = address.data.from;
  const userName = names.get(endUserId) ?? undefined;
  const m = messageSchema.safeParse(raw);
  if (!m.success) {
    const id = messageIdSchema.safeParse((raw as { id?: unknown }).id);
    const externalId = id.success ? id.data : `unreadable:${await sha256Hex(JSON.stringify(raw))}`;
    return { message: { externalId, seq: Date.now(), endUserId, message: unreadable(userName) }, problem: problemOf(m.error, at) };
  }
  const seq = m.data.timestamp * 1000;
  const common = { userName, sentAt: new Date(seq).toISOString() };
  let message: InboundMessage;
  if (m.data.type === "text" && m.data.text) message = { kind: "text", text: m.data.text.body, ...common };
  else if (m.data.type === "audio" && m.data.audio)
    message = { kind: "voice", mediaId: m.data.audio.id, mimeType: m.data.audio.mime_type, ...common };
  else message = { kind: "unsupported", type: m.data.type, ...common };
  return { message: { externalId: m.data.id, seq, endUserId, message } };
}
