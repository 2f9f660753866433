// Telegram's Bot API, the subset a channel uses (core.telegram.org/bots/api): getMe to check a
// token, setWebhook with our secret_token (Telegram then sends it in
// X-Telegram-Bot-Api-Secret-Token with every update), deleteWebhook, getWebhookInfo,
// sendMessage, getFile and the file download. The bot token is in every URL: it never reaches an
// error, a log line or a response of ours.
import type { InboundMessage } from "../db/schema";
import { callProvider, MessagingApiError, type MessagingCallOptions, redact } from "./http";

const PROVIDER = "Telegram";
/** Telegram's limit for one message's text. */
export const TELEGRAM_MAX_TEXT = 4096;

interface TelegramAnswer<T> {
  ok: boolean;
  result?: T;
  error_code?: number;
  description?: string;
  parameters?: { retry_after?: number };
}

export interface TelegramUpdate {
  update_id: number;
  message?: TelegramMessage;
}

interface TelegramMessage {
  message_id: number;
  date: number;
  chat: { id: number; type: string; first_name?: string; username?: string };
  from?: { id: number; first_name?: string; last_name?: string; username?: string; is_bot?: boolean };
  text?: string;
  voice?: { file_id: string; mime_type?: string; duration?: number };
  audio?: { file_id: string; mime_type?: string };
  [other: string]: unknown;
}

export interface WebhookInfo {
  url: string;
  pending_update_count: number;
  last_error_date?: number;
  last_error_message?: string;
}

/** The message types Telegram names by a field of the message, for the transcript's `[sticker]`. */
const NAMED_TYPES = [
  "sticker",
  "photo",
  "video",
  "video_note",
  "animation",
  "document",
  "location",
  "venue",
  "contact",
  "poll",
  "dice",
  "game",
];

export class TelegramBot {
  constructor(
    private readonly baseUrl: string,
    private readonly token: string,
    private readonly opts: MessagingCallOptions,
  ) {}

  private async call<T>(method: string, params: Record<string, unknown> = {}): Promise<T> {
    const answer = await callProvider(
      PROVIDER,
      `${this.baseUrl.replace(/\/$/, "")}/bot${this.token}/${method}`,
      { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(params) },
      this.opts,
      (body) => (body as TelegramAnswer<unknown> | null)?.parameters?.retry_after ?? null,
    );
    const body = answer.body as TelegramAnswer<T> | null;
    if (body?.ok && body.result !== undefined) return body.result;
    throw new MessagingApiError(
      PROVIDER,
      answer.status,
      body?.error_code ?? answer.status,
      redact(body?.description ?? `answered ${answer.status}`),
    );
  }

  getMe = () => this.call<{ id: number; is_bot: boolean; username?: string; first_name: string }>("getMe");

  setWebhook = (url: string, secretToken: string) =>
    this.call<boolean>("setWebhook", { url, secret_token: secretToken, allowed_updates: ["message"], max_connections: 40 });

  deleteWebhook = () => this.call<boolean>("deleteWebhook", { drop_pending_updates: false });

  getWebhookInfo = () => this.call<WebhookInfo>("getWebhookInfo");

  sendMessage = (chatId: string, text: string) =>
    this.call<{ message_id: number }>("sendMessage", { chat_id: chatId, text: text.slice(0, TELEGRAM_MAX_TEXT) });

  /** A file the user sent (a voice note), by its file_id: getFile, then the download. */
  async download(fileId: string): Promise<{ bytes: ArrayBuffer; filePath: string }> {
    const file = await this.call<{ file_path?: string; file_size?: number }>("getFile", { file_id: fileId });
    if (!file.file_path) throw new MessagingApiError(PROVIDER, null, null, "getFile gave no file_path (the file is over 20 MB)");
    const answer = await callProvider(
      PROVIDER,
      `${this.baseUrl.replace(/\/$/, "")}/file/bot${this.token}/${file.file_path}`,
      { method: "GET" },
      this.opts,
    );
    if (answer.status !== 200 || !(answer.body instanceof ArrayBuffer))
      throw new MessagingApiError(PROVIDER, answer.status, null, `the file download answered ${answer.status}`);
    return { bytes: answer.body, filePath: file.file_path };
  }
}

export interface ParsedInbound {
  externalId: string;
  seq: number;
  endUserId: string;
  message: InboundMessage;
}

/**
 * An update as a conversation message: a private chat's text, voice note, or another kind of
 * message (kept as unsupported). Null for what we do not answer: updates without a message
 * (edits, callbacks), group chats, and other bots.
 */
export function parseTelegramUpdate(update: TelegramUpdate): ParsedInbound | null {
  const m = update.message;
  if (m?.chat.type !== "private" || m.from?.is_bot) return null;
  const userName = [m.from?.first_name, m.from?.last_name].filter(Boolean).join(" ") || m.from?.username || undefined;
  const base = { externalId: String(update.update_id), seq: update.update_id, endUserId: String(m.chat.id) };
  const sentAt = new Date(m.date * 1000).toISOString();
  if (typeof m.text === "string") return { ...base, message: { kind: "text", text: m.text, userName, sentAt } };
  const voice = m.voice ?? m.audio;
  if (voice) return { ...base, message: { kind: "voice", mediaId: voice.file_id, mimeType: voice.mime_type, userName, sentAt } };
  const type = NAMED_TYPES.find((t) => t in m) ?? "message";
  return { ...base, message: { kind: "unsupported", type, userName, sentAt } };
}
