// WhatsApp's Cloud API, the subset a channel uses (developers.facebook.com/docs/whatsapp/cloud-api):
// the business number's details to check the access token, POST /{phone-number-id}/messages for
// text replies, the media URL of a voice note and its download, and the webhook's checks: the
// verification handshake (hub.verify_token) and X-Hub-Signature-256 over the raw body, keyed
// with the app secret. The access token never reaches an error, a log line or a response.
import type { InboundMessage } from "../db/schema";
import { hmacSha256Hex, safeEqual } from "../lib/crypto";
import { callProvider, MessagingApiError, type MessagingCallOptions, redact } from "./http";
import type { ParsedInbound } from "./telegram";

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

interface Notification {
  object?: string;
  entry?: Array<{
    changes?: Array<{
      field?: string;
      value?: {
        metadata?: { phone_number_id?: string };
        contacts?: Array<{ wa_id?: string; profile?: { name?: string } }>;
        messages?: Array<{
          id: string;
          from: string;
          timestamp: string;
          type: string;
          text?: { body?: string };
          audio?: { id: string; mime_type?: string; voice?: boolean };
        }>;
      };
    }>;
  }>;
}

/**
 * The messages of a notification addressed to `phoneNumberId`, as conversation messages; status
 * updates (sent, delivered, read) and other numbers' messages are not ours to answer.
 */
export function parseWhatsAppNotification(body: unknown, phoneNumberId: string): ParsedInbound[] {
  const n = body as Notification;
  if (n?.object !== "whatsapp_business_account") return [];
  const out: ParsedInbound[] = [];
  for (const entry of n.entry ?? [])
    for (const change of entry.changes ?? []) {
      const value = change.value;
      if (change.field !== "messages" || value?.metadata?.phone_number_id !== phoneNumberId) continue;
      const names = new Map((value.contacts ?? []).map((c) => [c.wa_id, c.profile?.name]));
      for (const m of value.messages ?? []) {
        const sentMs = Number(m.timestamp) * 1000;
        const base = { externalId: m.id, seq: Number.isFinite(sentMs) ? sentMs : Date.now(), endUserId: m.from };
        const common = { userName: names.get(m.from) ?? undefined, sentAt: new Date(base.seq).toISOString() };
        let message: InboundMessage;
        if (m.type === "text") message = { kind: "text", text: m.text?.body ?? "", ...common };
        else if (m.type === "audio" && m.audio) message = { kind: "voice", mediaId: m.audio.id, mimeType: m.audio.mime_type, ...common };
        else message = { kind: "unsupported", type: m.type, ...common };
        out.push({ ...base, message });
      }
    }
  return out;
}
