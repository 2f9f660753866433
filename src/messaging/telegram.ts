// Telegram's Bot API, the subset a channel uses (core.telegram.org/bots/api): getMe to check a
// token, setWebhook with our secret_token (Telegram then sends it in
// X-Telegram-Bot-Api-Secret-Token with every update), deleteWebhook, getWebhookInfo,
// sendMessage, getFile and the file download. The bot token is in every URL: it never reaches an
// error, a log line or a response of ours.
import { z } from "zod";
import type { InboundMessage } from "../db/schema";
import { callProvider, MessagingApiError, type MessagingCallOptions, redact } from "./http";
import { type InboundDelivery, problemOf, unixSeconds, unreadable } from "./parsed";

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

/** Telegram's User (core.telegram.org/bots/api#user), the part we read. */
const userSchema = z.object({
  id: z.int(),
  is_bot: z.boolean(),
  first_name: z.string(),
  last_name: z.string().optional(),
  username: z.string().optional(),
});
const fileSchema = z.object({ file_id: z.string().min(1), mime_type: z.string().optional() });
/** A chat id: up to 52 significant bits (the Bot API), so a safe integer. */
const chatSchema = z.object({ id: z.int(), type: z.string() });

/**
 * Telegram's Update (core.telegram.org/bots/api#update): `update_id` is an Integer ("start from a
 * certain positive number and increase sequentially"); one that is not a safe non-negative integer
 * cannot be stored (seq is a bigint) nor told from a redelivery, so its update is dropped.
 */
const updateSchema = z.object({ update_id: z.int().min(0), message: z.unknown().optional() });
/** Whose conversation a message belongs to: its chat, and whether a bot sent it (read leniently). */
const addressSchema = z.object({
  chat: chatSchema,
  from: z
    .object({
      is_bot: z.boolean().optional(),
      first_name: z.string().optional(),
      last_name: z.string().optional(),
      username: z.string().optional(),
    })
    .optional()
    .catch(undefined),
});
/** Telegram's Message (core.telegram.org/bots/api#message), the part we read; the other fields name its kind. */
const messageSchema = z.looseObject({
  message_id: z.int(),
  date: unixSeconds,
  chat: chatSchema,
  from: userSchema.optional(),
  text: z.string().optional(),
  voice: fileSchema.optional(),
  audio: fileSchema.optional(),
});

/**
 * An update as a conversation message: a private chat's text, voice note, or another kind of
 * message (kept as unsupported). No message for what we do not answer: updates without a message
 * (edits, callbacks), group chats, and other bots. An update that does not match the Bot API's
 * format is never refused: dropped, or kept as unsupported when its chat can be read.
 */
export function parseTelegramUpdate(body: unknown): InboundDelivery {
  const none = (problem?: string): InboundDelivery => ({ messages: [], problems: problem ? [problem] : [] });
  const update = updateSchema.safeParse(body);
  if (!update.success) return none(problemOf(update.error, ""));
  const raw = update.data.message;
  if (raw === undefined) return none();
  const address = addressSchema.safeParse(raw);
  if (!address.success) return none(problemOf(address.error, "message"));
  const { chat, from } = address.data;
  if (chat.type !== "private" || from?.is_bot) return none();
  const userName = [from?.first_name, from?.last_name].filter(Boolean).join(" ") || from?.username || undefined;
  const base = { externalId: String(update.data.update_id), seq: update.data.update_id, endUserId: String(chat.id) };
  const parsed = messageSchema.safeParse(raw);
  if (!parsed.success) return { messages: [{ ...base, message: unreadable(userName) }], problems: [problemOf(parsed.error, "message")] };
  const m = parsed.data;
  const sentAt = new Date(m.date * 1000).toISOString();
  const voice = m.voice ?? m.audio;
  let message: InboundMessage;
  if (m.text !== undefined) message = { kind: "text", text: m.text, userName, sentAt };
  else if (voice) message = { kind: "voice", mediaId: voice.file_id, mimeType: voice.mime_type, userName, sentAt };
  else message = { kind: "unsupported", type: NAMED_TYPES.find((t) => t in m) ?? "message", userName, sentAt };
  return { messages: [{ ...base, message }], problems: [] };
}
