// The Telegram sandbox: a local HTTP server that speaks the subset of the Telegram Bot API a messaging
// channel uses (getMe, setWebhook, deleteWebhook, getWebhookInfo, sendMessage, sendVoice,
// sendChatAction, getFile and the file download), and plays scripted end users who write to the
// sandbox's bots, so a whole Telegram conversation runs on a laptop and in CI through the platform's
// real adapter. Updates reach the bot's webhook the way Telegram's own Bot API server sends them
// (github.com/tdlib/telegram-bot-api, WebhookActor.cpp): with the secret token header, in order per
// chat, chats in parallel up to max_connections, a failed update retried with Telegram's backoff while
// the chat's later updates wait. A control API under /__sandbox/ drives the users and reads the
// chats. See docs/sandbox.md, "Telegram sandbox".
//
//   npx tsx dev/sandbox/telegram.ts   # PORT (default 8792); PROVIDER_URL + PROVIDER_API_KEY for voice
//                                     # notes (default: a provider sandbox started in-process)
import { randomInt } from "node:crypto";
import { lookup } from "node:dns/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { isIP } from "node:net";
import { listenLocal } from "../listen";
import {
  BodyTooLarge,
  intParam,
  isMain,
  MalformedBody,
  oggDurationSeconds,
  type ProviderRef,
  parseRequestBody,
  postWebhook,
  randomChars,
  readBody,
  runSandboxCli,
  sendJson,
  sniffAudio,
  VoiceNotes,
  Waiters,
  wavDurationSeconds,
} from "./messaging";

export const DEFAULT_TELEGRAM_PORT = 8792;
/** Telegram's defaults and limits (core.telegram.org/bots/api; the Bot API server's Client.h). */
const DEFAULT_MAX_CONNECTIONS = 40;
const MAX_TEXT_LENGTH = 4096;
const MAX_DOWNLOAD_BYTES = 20 * 1024 * 1024;
const MAX_UPLOAD_BYTES = 50 * 1024 * 1024;
const API_BODY_LIMIT = MAX_UPLOAD_BYTES + 1024 * 1024;
/** Updates are kept 24 hours; a failed one is retried until then (in retry units). */
const UPDATE_LIFETIME_UNITS = 24 * 3600;
/** WebhookActor: WEBHOOK_MAX_RESEND_TIMEOUT; the delay between attempts caps at a random value in [60, 120] units. */
const MAX_RESEND_UNITS = 60;
/** WebhookActor clamps a webhook's Retry-After to an hour. */
const MAX_RETRY_AFTER_UNITS = 3600;
const DELIVERY_LOG_LIMIT = 10_000;
const UPDATE_MEMORY = 1_000;
const SECRET_TOKEN = /^[A-Za-z0-9_-]*$/;
const CHAT_ACTIONS = new Set([
  "typing",
  "upload_photo",
  "record_video",
  "upload_video",
  "record_voice",
  "upload_voice",
  "record_audio",
  "upload_audio",
  "upload_document",
  "choose_sticker",
  "find_location",
  "pick_up_location",
  "record_video_note",
  "upload_video_note",
  "cancel",
]);
/** Real Bot API methods the sandbox does not implement: 501, not Telegram's 404 for an unknown method. */
const NOT_IMPLEMENTED = [
  "getUpdates",
  "logOut",
  "close",
  "forwardMessage",
  "copyMessage",
  "sendPhoto",
  "sendAudio",
  "sendDocument",
  "sendVideo",
  "sendAnimation",
  "sendVideoNote",
  "sendMediaGroup",
  "sendLocation",
  "sendSticker",
  "sendContact",
  "sendPoll",
  "editMessageText",
  "deleteMessage",
  "setMessageReaction",
  "answerCallbackQuery",
  "setMyCommands",
  "getMyCommands",
  "getChat",
  "getUserProfilePhotos",
];
/** A 1×1 WebP standing in for a sticker's image. */
const STICKER_BYTES = Buffer.from("UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==", "base64");
const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

// ---------------------------------------------------------------------------------------------
// Telegram's objects (the parts the sandbox fills)

export interface TelegramUser {
  id: number;
  is_bot: boolean;
  first_name: string;
  last_name?: string;
  username?: string;
  language_code?: string;
}

export interface TelegramChat {
  id: number;
  type: "private";
  first_name: string;
  last_name?: string;
  username?: string;
}

export interface TelegramFileRef {
  file_id: string;
  file_unique_id: string;
  file_size: number;
}

export interface TelegramMessage {
  message_id: number;
  from: TelegramUser;
  chat: TelegramChat;
  date: number;
  text?: string;
  entities?: Array<{ type: string; offset: number; length: number }>;
  voice?: TelegramFileRef & { duration: number; mime_type: string };
  document?: TelegramFileRef & { file_name: string; mime_type: string };
  sticker?: TelegramFileRef & {
    width: number;
    height: number;
    emoji: string;
    set_name: string;
    is_animated: boolean;
    is_video: boolean;
    type: "regular";
  };
  location?: { latitude: number; longitude: number };
  caption?: string;
}

export interface TelegramUpdate {
  update_id: number;
  message: TelegramMessage;
}

/** What a scripted user can send. `voice` is the words of a voice note. */
export type UserContent =
  | { text: string }
  | { voice: string }
  | { sticker: true | { emoji?: string } }
  | { location: { latitude: number; longitude: number } };

/** The user's profile; defaults: first_name "User <id>", language_code "en". */
export type UserProfile = Partial<Pick<TelegramUser, "first_name" | "last_name" | "username" | "language_code">>;

/** One line of a chat's log, as the user saw it. */
export interface ChatEntry {
  from: "user" | "bot";
  /** Absent for chat actions. */
  message_id?: number;
  /** The update that carried a user's message. */
  update_id?: number;
  /** ISO 8601 time, and the same in epoch milliseconds. */
  at: string;
  atMs: number;
  kind: "text" | "voice" | "sticker" | "location" | "document" | "chat_action";
  /** A text's text; for a voice note the user sent, the words it says. */
  text?: string;
  parse_mode?: string;
  /** The chat action (`typing`…). */
  action?: string;
  file_id?: string;
  mime_type?: string;
  duration?: number;
  caption?: string;
  /** The Message object itself. */
  message?: TelegramMessage;
}

export interface WebhookAttempt {
  update_id: number;
  chat_id: number;
  /** 1 for the first attempt of an update, 2 for its first retry… (redeliveries count on). */
  attempt: number;
  at: string;
  url: string;
  status?: number;
  error?: string;
  ms: number;
  /** Sent by redeliver(): a duplicate of an update, outside the queue. */
  redelivery: boolean;
  /** delivered; retry (it failed and waits); dropped (it failed past the update's 24 hours); duplicate (a redelivery). */
  outcome: "delivered" | "retry" | "dropped" | "duplicate";
  /** For a retry: ms until the next attempt. */
  retryInMs?: number;
}

export interface BotInfo {
  id: number;
  token: string;
  username: string;
  first_name: string;
  revoked: boolean;
  webhook: {
    url: string;
    secret_token?: string;
    max_connections?: number;
    allowed_updates?: string[];
    pending_update_count: number;
    last_error_date?: number;
    last_error_message?: string;
  };
}

export interface BotFault {
  /** A Bot API method (case-insensitive); omitted: any method. */
  method?: string;
  /** How many calls fail (default 1). */
  count?: number;
  /** Telegram's error_code: 429 (with retry_after), 400, 403, 500… */
  error_code: number;
  description?: string;
  /** Seconds, for 429 (default 1). */
  retry_after?: number;
}

export interface TelegramSandbox {
  /** http://127.0.0.1:PORT: what https://api.telegram.org is to the worker. */
  url: string;
  createBot(opts?: { username?: string; first_name?: string }): BotInfo;
  bot(botId: number): BotInfo;
  /** The user writes to the bot: the Update is built, logged and queued for the webhook. */
  send(botId: number, userId: number, content: UserContent, profile?: UserProfile): Promise<TelegramUpdate>;
  /** Sends update `updateId` to the webhook again, once, verbatim: a duplicate. */
  redeliver(botId: number, updateId: number): Promise<WebhookAttempt>;
  chat(botId: number, chatId: number): ChatEntry[];
  /** The bot's first message in the chat after message `after` (default: the user's last message). */
  nextBotMessage(botId: number, chatId: number, opts?: { after?: number; timeoutMs?: number }): Promise<ChatEntry>;
  deliveries(botId: number): WebhookAttempt[];
  /** The user blocks (or unblocks) the bot: the bot's sends to them answer 403. */
  block(botId: number, userId: number, blocked?: boolean): void;
  /** The next calls fail as given. */
  fault(botId: number, fault: BotFault): void;
  /** The token stops working (as when BotFather revokes it); the webhook stops. */
  revoke(botId: number): void;
  stop(): Promise<void>;
}

export interface TelegramSandboxOptions {
  port?: number;
  /** Where voice notes are spoken (the provider sandbox: `url` ending in /v1, `apiKey`). Without it, voice notes are refused. */
  provider?: ProviderRef;
  /** The users' voice at the provider (default "alloy"). */
  voice?: string;
  /** One of Telegram's retry seconds, in ms (default 1000). Tests shrink it to see a retry schedule quickly. */
  retryUnitMs?: number;
  /** How long the sandbox waits for the webhook's answer (default 60,000 ms, the Bot API server's). */
  webhookTimeoutMs?: number;
  /** Added before every Bot API answer, to model the network (default 0). */
  apiLatencyMs?: number;
}

// ---------------------------------------------------------------------------------------------

class TelegramError extends Error {
  constructor(
    readonly code: number,
    readonly description: string,
    readonly retryAfter?: number,
  ) {
    super(description);
  }

  body() {
    return {
      ok: false,
      error_code: this.code,
      description: this.description,
      ...(this.retryAfter !== undefined && { parameters: { retry_after: this.retryAfter } }),
    };
  }
}

const badRequest = (what: string) => new TelegramError(400, `Bad Request: ${what}`);
const tooManyRequests = (seconds: number) => new TelegramError(429, `Too Many Requests: retry after ${seconds}`, seconds);

/** The control API's refusals: `{error}` with a status. */
class ControlError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

interface StoredFile {
  file_id: string;
  file_unique_id: string;
  data: Buffer;
  mime: string;
  path: string;
}

interface Pending {
  update: TelegramUpdate;
  body: string;
  chatId: number;
  expiresAt: number;
  /** WebhookActor's Update.delay_: starts at 1, doubles from the second failure. */
  delayUnits: number;
  failCount: number;
  wakeAt: number;
  attempts: number;
}

interface Chat {
  id: number;
  user: TelegramUser;
  nextMessageId: number;
  log: ChatEntry[];
  blocked: boolean;
  /** The user's messages are composed one after another (a voice note takes a moment to speak). */
  composing: Promise<unknown>;
}

interface Bot {
  info: TelegramUser & { username: string };
  token: string;
  revoked: boolean;
  webhook?: { url: string; secret: string; maxConnections: number };
  allowedUpdates?: string[];
  lastError?: { date: number; message: string };
  nextSetWebhookAt: number;
  nextUpdateId: number;
  updates: Map<number, { update: TelegramUpdate; body: string; chatId: number; attempts: number }>;
  queues: Map<number, Pending[]>;
  inflight: Set<number>;
  timer?: NodeJS.Timeout;
  chats: Map<number, Chat>;
  files: Map<string, StoredFile>;
  paths: Map<string, StoredFile>;
  nextFile: number;
  deliveries: WebhookAttempt[];
  faults: Array<Required<Pick<BotFault, "error_code">> & BotFault & { remaining: number }>;
}

const now = () => Date.now();
const unixNow = () => Math.floor(Date.now() / 1000);
const toBool = (v: string) => ["true", "yes", "1"].includes(v.trim().toLowerCase());

export async function startTelegramSandbox(opts: TelegramSandboxOptions = {}): Promise<TelegramSandbox> {
  const unit = opts.retryUnitMs ?? 1000;
  const webhookTimeoutMs = opts.webhookTimeoutMs ?? 60_000;
  const voices = new VoiceNotes(opts.provider, opts.voice ?? "alloy");
  const bots = new Map<number, Bot>();
  const byToken = new Map<string, Bot>();
  const stopping = new AbortController();
  const waiters = new Waiters();
  const inflight = new Set<Promise<unknown>>();
  let baseUrl = "";

  const track = <T>(p: Promise<T>): Promise<T> => {
    inflight.add(p);
    void p.finally(() => inflight.delete(p)).catch(() => undefined);
    return p;
  };

  // --- bots, chats and files -----------------------------------------------------------------

  const getBot = (botId: number): Bot => {
    const bot = bots.get(botId);
    if (!bot || bot.revoked) throw new ControlError(404, `No sandbox bot ${botId}.`);
    return bot;
  };

  const createBot = (o: { username?: string; first_name?: string } = {}): BotInfo => {
    let id: number;
    do id = randomInt(6_000_000_000, 8_000_000_000);
    while (bots.has(id));
    const username = o.username ?? `sandbox_${id.toString(36)}_bot`;
    if (!/^[A-Za-z][A-Za-z0-9_]{3,31}$/.test(username) || !/bot$/i.test(username))
      throw new ControlError(400, "username must be 5 to 32 letters, digits or underscores, start with a letter and end in 'bot'.");
    const bot: Bot = {
      info: { id, is_bot: true, first_name: o.first_name ?? "Sandbox Bot", username },
      token: `${id}:AA${randomChars(33, BASE64URL)}`,
      revoked: false,
      nextSetWebhookAt: 0,
      nextUpdateId: randomInt(100_000_000, 900_000_000),
      updates: new Map(),
      queues: new Map(),
      inflight: new Set(),
      chats: new Map(),
      files: new Map(),
      paths: new Map(),
      nextFile: 0,
      deliveries: [],
      faults: [],
    };
    bots.set(id, bot);
    byToken.set(bot.token, bot);
    return botInfo(bot);
  };

  const pendingCount = (bot: Bot) => [...bot.queues.values()].reduce((n, q) => n + q.length, 0);

  const botInfo = (bot: Bot): BotInfo => ({
    id: bot.info.id,
    token: bot.token,
    username: bot.info.username,
    first_name: bot.info.first_name,
    revoked: bot.revoked,
    webhook: {
      url: bot.webhook?.url ?? "",
      ...(bot.webhook && {
        secret_token: bot.webhook.secret || undefined,
        max_connections: bot.webhook.maxConnections,
      }),
      ...(bot.allowedUpdates && { allowed_updates: bot.allowedUpdates }),
      pending_update_count: pendingCount(bot),
      ...(bot.lastError && { last_error_date: bot.lastError.date, last_error_message: bot.lastError.message }),
    },
  });

  const chatOf = (bot: Bot, userId: number, profile: UserProfile = {}): Chat => {
    let chat = bot.chats.get(userId);
    if (!chat) {
      chat = {
        id: userId,
        user: { id: userId, is_bot: false, first_name: `User ${userId}`, language_code: "en" },
        nextMessageId: 1,
        log: [],
        blocked: false,
        composing: Promise.resolve(),
      };
      bot.chats.set(userId, chat);
    }
    for (const key of ["first_name", "last_name", "username", "language_code"] as const) {
      const v = profile[key];
      if (typeof v === "string" && v) chat.user[key] = v;
    }
    return chat;
  };

  const chatObject = (chat: Chat): TelegramChat => ({
    id: chat.id,
    type: "private",
    first_name: chat.user.first_name,
    ...(chat.user.last_name && { last_name: chat.user.last_name }),
    ...(chat.user.username && { username: chat.user.username }),
  });

  const storeFile = (bot: Bot, data: Buffer, mime: string, folder: string, ext: string): StoredFile => {
    const file: StoredFile = {
      file_id: `AwACAgIAAxkBAA${randomChars(58, BASE64URL)}`,
      file_unique_id: `AgAD${randomChars(12, BASE64URL)}`,
      data,
      mime,
      path: `${folder}/file_${bot.nextFile++}.${ext}`,
    };
    bot.files.set(file.file_id, file);
    bot.paths.set(file.path, file);
    return file;
  };

  const log = (chat: Chat, entry: Omit<ChatEntry, "at" | "atMs">) => {
    const t = now();
    chat.log.push({ ...entry, at: new Date(t).toISOString(), atMs: t });
    waiters.wake();
  };

  // --- webhook delivery (WebhookActor's model) ---------------------------------------------------

  const pump = (bot: Bot) => {
    if (bot.timer) clearTimeout(bot.timer);
    bot.timer = undefined;
    const hook = bot.webhook;
    if (!hook || bot.revoked || stopping.signal.aborted) return;
    const heads: Pending[] = [];
    for (const [chatId, q] of bot.queues) if (q.length > 0 && !bot.inflight.has(chatId)) heads.push(q[0] as Pending);
    heads.sort((a, b) => a.wakeAt - b.wakeAt || a.update.update_id - b.update.update_id);
    const t = now();
    for (const head of heads) {
      if (bot.inflight.size >= hook.maxConnections) return;
      if (head.wakeAt > t) {
        bot.timer = setTimeout(() => pump(bot), head.wakeAt - t);
        return;
      }
      bot.inflight.add(head.chatId);
      void track(attempt(bot, head, hook));
    }
  };

  const headers = (hook: { secret: string }) => ({
    ...(hook.secret && { "x-telegram-bot-api-secret-token": hook.secret }),
    "accept-encoding": "gzip, deflate",
  });

  const record = (bot: Bot, a: WebhookAttempt) => {
    bot.deliveries.push(a);
    if (bot.deliveries.length > DELIVERY_LOG_LIMIT) bot.deliveries.splice(0, bot.deliveries.length - DELIVERY_LOG_LIMIT);
    waiters.wake();
  };

  const attempt = async (bot: Bot, p: Pending, hook: NonNullable<Bot["webhook"]>) => {
    const started = now();
    const res = await postWebhook(hook.url, p.body, headers(hook), webhookTimeoutMs, stopping.signal);
    bot.inflight.delete(p.chatId);
    if (stopping.signal.aborted) return;
    const stored = bot.updates.get(p.update.update_id);
    if (stored) stored.attempts++;
    p.attempts++;
    const a: WebhookAttempt = {
      update_id: p.update.update_id,
      chat_id: p.chatId,
      attempt: stored?.attempts ?? p.attempts,
      at: new Date(started).toISOString(),
      url: hook.url,
      ...(res.status !== undefined && { status: res.status }),
      ...(res.error && { error: res.error }),
      ms: Math.round(res.ms),
      redelivery: false,
      outcome: "delivered",
    };
    const queue = bot.queues.get(p.chatId) ?? [];
    if (!res.error) {
      if (queue[0] === p) queue.shift();
    } else {
      bot.lastError = { date: unixNow(), message: res.error };
      // WebhookActor::on_update_error: the answer's Retry-After (clamped to an hour) is honoured; without
      // one, the first failure retries at once and each later one doubles the delay from 2, capped at a
      // random value between 60 and 120 (seconds at Telegram; retry units here).
      const retryAfter = Math.min(MAX_RETRY_AFTER_UNITS, Math.max(0, Math.floor(res.retryAfter ?? 0)));
      let effective = retryAfter;
      if (retryAfter === 0 && p.failCount > 0) {
        p.delayUnits = Math.min(randomInt(MAX_RESEND_UNITS, MAX_RESEND_UNITS * 2 + 1), p.delayUnits * 2);
        effective = p.delayUnits;
      }
      const wakeAt = now() + effective * unit;
      if (wakeAt > p.expiresAt) {
        if (queue[0] === p) queue.shift();
        a.outcome = "dropped";
      } else {
        p.failCount++;
        p.wakeAt = wakeAt;
        a.outcome = "retry";
        a.retryInMs = effective * unit;
      }
    }
    record(bot, a);
    pump(bot);
  };

  const enqueue = (bot: Bot, chat: Chat, update: TelegramUpdate) => {
    const body = JSON.stringify(update);
    bot.updates.set(update.update_id, { update, body, chatId: chat.id, attempts: 0 });
    if (bot.updates.size > UPDATE_MEMORY) bot.updates.delete(bot.updates.keys().next().value as number);
    if (bot.allowedUpdates && bot.allowedUpdates.length > 0 && !bot.allowedUpdates.includes("message")) return; // not subscribed
    const q = bot.queues.get(chat.id) ?? [];
    q.push({
      update,
      body,
      chatId: chat.id,
      expiresAt: now() + UPDATE_LIFETIME_UNITS * unit,
      delayUnits: 1,
      failCount: 0,
      wakeAt: now(),
      attempts: 0,
    });
    bot.queues.set(chat.id, q);
    pump(bot);
  };

  const dropPending = (bot: Bot) => {
    for (const [chatId, q] of bot.queues) {
      // an update in flight finishes its attempt; the rest go
      bot.queues.set(chatId, bot.inflight.has(chatId) ? q.slice(0, 1) : []);
    }
  };

  // --- the scripted user -----------------------------------------------------------------------

  const send = async (botId: number, userId: number, content: UserContent, profile: UserProfile = {}): Promise<TelegramUpdate> => {
    const bot = getBot(botId);
    if (!Number.isSafeInteger(userId) || userId <= 0 || userId >= 2 ** 52)
      throw new ControlError(400, "A user id is a positive integer below 2^52.");
    const chat = chatOf(bot, userId, profile);
    const c = content as Record<string, unknown>;
    const kinds = ["text", "voice", "sticker", "location"].filter((k) => c[k] !== undefined && c[k] !== false);
    if (kinds.length !== 1) throw new ControlError(400, "Send exactly one of text, voice, sticker or location.");
    const compose = async (): Promise<Omit<TelegramMessage, "message_id" | "from" | "chat" | "date">> => {
      if (typeof c.text === "string") {
        if (c.text.length === 0 || c.text.length > MAX_TEXT_LENGTH) throw new ControlError(400, "text must be 1 to 4096 characters.");
        const command = /^\/[A-Za-z0-9_]+(@[A-Za-z0-9_]+)?/.exec(c.text);
        return { text: c.text, ...(command && { entities: [{ type: "bot_command", offset: 0, length: command[0].length }] }) };
      }
      if (c.voice !== undefined) {
        if (typeof c.voice !== "string" || !c.voice.trim()) throw new ControlError(400, "voice is the words the voice note says.");
        if (!voices.available) throw new ControlError(409, "Voice notes need a provider: start the sandbox with `provider`.");
        const wav = await voices.wav(c.voice);
        const file = storeFile(bot, wav, "audio/wav", "voice", "wav");
        return {
          voice: {
            duration: Math.max(1, Math.round(wavDurationSeconds(wav) ?? 1)),
            mime_type: "audio/wav", // Telegram's are audio/ogg (Opus); the sandbox cannot encode Opus (docs/sandbox.md)
            file_id: file.file_id,
            file_unique_id: file.file_unique_id,
            file_size: wav.length,
          },
        };
      }
      if (c.sticker !== undefined) {
        const asked = typeof c.sticker === "object" && c.sticker ? (c.sticker as { emoji?: unknown }).emoji : undefined;
        const file = storeFile(bot, STICKER_BYTES, "image/webp", "stickers", "webp");
        return {
          sticker: {
            width: 512,
            height: 512,
            emoji: typeof asked === "string" && asked ? asked : "👍",
            set_name: "SandboxStickers",
            is_animated: false,
            is_video: false,
            type: "regular",
            file_id: file.file_id,
            file_unique_id: file.file_unique_id,
            file_size: STICKER_BYTES.length,
          },
        };
      }
      const loc = c.location as { latitude?: unknown; longitude?: unknown } | undefined;
      const lat = Number(loc?.latitude);
      const lon = Number(loc?.longitude);
      if (!loc || !Number.isFinite(lat) || !Number.isFinite(lon) || Math.abs(lat) > 90 || Math.abs(lon) > 180)
        throw new ControlError(400, "location is {latitude, longitude} in degrees.");
      return { location: { latitude: lat, longitude: lon } };
    };
    // Messages from one user are numbered and queued in the order they were asked for.
    const turn = chat.composing.then(async () => {
      const body = await compose();
      const message: TelegramMessage = {
        message_id: chat.nextMessageId++,
        from: { ...chat.user },
        chat: chatObject(chat),
        date: unixNow(),
        ...body,
      };
      const update: TelegramUpdate = { update_id: bot.nextUpdateId++, message };
      const kind = message.text !== undefined ? "text" : message.voice ? "voice" : message.sticker ? "sticker" : "location";
      log(chat, {
        from: "user",
        message_id: message.message_id,
        update_id: update.update_id,
        kind,
        ...(kind === "text" && { text: message.text }),
        ...(kind === "voice" && {
          text: c.voice as string,
          file_id: message.voice?.file_id,
          mime_type: message.voice?.mime_type,
          duration: message.voice?.duration,
        }),
        ...(kind === "sticker" && { file_id: message.sticker?.file_id, mime_type: "image/webp" }),
        message,
      });
      enqueue(bot, chat, update);
      return update;
    });
    chat.composing = turn.catch(() => undefined);
    return turn;
  };

  const redeliver = async (botId: number, updateId: number): Promise<WebhookAttempt> => {
    const bot = getBot(botId);
    const stored = bot.updates.get(updateId);
    if (!stored) throw new ControlError(404, `Bot ${botId} has no update ${updateId}.`);
    const hook = bot.webhook;
    if (!hook) throw new ControlError(409, `Bot ${botId} has no webhook: call setWebhook first.`);
    const started = now();
    const res = await track(postWebhook(hook.url, stored.body, headers(hook), webhookTimeoutMs, stopping.signal));
    stored.attempts++;
    const a: WebhookAttempt = {
      update_id: updateId,
      chat_id: stored.chatId,
      attempt: stored.attempts,
      at: new Date(started).toISOString(),
      url: hook.url,
      ...(res.status !== undefined && { status: res.status }),
      ...(res.error && { error: res.error }),
      ms: Math.round(res.ms),
      redelivery: true,
      outcome: "duplicate",
    };
    record(bot, a);
    return a;
  };

  const nextBotMessage = async (botId: number, chatId: number, o: { after?: number; timeoutMs?: number } = {}): Promise<ChatEntry> => {
    const bot = getBot(botId);
    const chat = bot.chats.get(chatId);
    const after =
      o.after ??
      chat?.log
        .filter((e) => e.from === "user")
        .map((e) => e.message_id ?? 0)
        .at(-1) ??
      0;
    const timeoutMs = o.timeoutMs ?? 10_000;
    const found = await waiters.until(
      () => bot.chats.get(chatId)?.log.find((e) => e.from === "bot" && e.kind !== "chat_action" && (e.message_id ?? 0) > after),
      timeoutMs,
      stopping.signal,
    );
    if (!found) throw new ControlError(408, `The bot sent nothing in chat ${chatId} after message ${after} within ${timeoutMs} ms.`);
    return found;
  };

  // --- the Bot API -----------------------------------------------------------------------------

  type Args = { str(name: string): string; file(name: string): { data: Buffer; type: string; name: string } | undefined };

  const intArg = (args: Args, name: string, fallback: number, min: number, max: number) => {
    const raw = args.str(name).trim();
    const n = raw === "" ? fallback : Number.parseInt(raw, 10);
    return Math.min(max, Math.max(min, Number.isFinite(n) ? n : 0));
  };

  /** check_chat: the chat must be one of the bot's private chats, and the user must not have blocked it. */
  const checkChat = (bot: Bot, args: Args): Chat => {
    const raw = args.str("chat_id").trim();
    if (!raw) throw badRequest("chat_id is empty");
    const id = /^-?\d+$/.test(raw) ? Number(raw) : Number.NaN;
    const chat = bot.chats.get(id);
    if (!chat) throw badRequest("chat not found");
    if (chat.blocked) throw new TelegramError(403, "Forbidden: bot was blocked by the user");
    return chat;
  };

  const botSends = (bot: Bot, chat: Chat, body: Partial<TelegramMessage>, entry: Omit<ChatEntry, "at" | "atMs" | "from">) => {
    const message: TelegramMessage = {
      message_id: chat.nextMessageId++,
      from: { ...bot.info },
      chat: chatObject(chat),
      date: unixNow(),
      ...body,
    };
    log(chat, { from: "bot", ...entry, message_id: message.message_id, message });
    return message;
  };

  const allowedUpdatesArg = (args: Args): string[] | undefined => {
    const raw = args.str("allowed_updates").trim();
    if (!raw) return undefined;
    try {
      const parsed = JSON.parse(raw) as unknown;
      if (Array.isArray(parsed) && parsed.every((v) => typeof v === "string")) return parsed as string[];
    } catch {
      // Telegram ignores an allowed_updates it cannot read
    }
    return undefined;
  };

  const setWebhook = async (bot: Bot, args: Args, method: string) => {
    const url = method === "setwebhook" ? args.str("url").trim() : "";
    const t = now();
    if (url) {
      if (t < bot.nextSetWebhookAt) throw tooManyRequests(1); // the Bot API server allows one change a second
      bot.nextSetWebhookAt = t + 1000;
    }
    const maxConnections = url ? intArg(args, "max_connections", DEFAULT_MAX_CONNECTIONS, 1, 100) : 0;
    const secret = url ? args.str("secret_token") : "";
    const drop = toBool(args.str("drop_pending_updates"));
    const allowed = allowedUpdatesArg(args);
    const current = bot.webhook;
    if ((current?.url ?? "") === url && (current?.maxConnections ?? 0) === maxConnections && (current?.secret ?? "") === secret && !drop) {
      if (allowed) bot.allowedUpdates = allowed;
      return { result: true, description: url ? "Webhook is already set" : "Webhook is already deleted" };
    }
    if (!url) {
      bot.webhook = undefined;
      bot.lastError = undefined;
      if (drop) dropPending(bot);
      pump(bot);
      return { result: true, description: current ? "Webhook was deleted" : "Webhook is already deleted" };
    }
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw badRequest("invalid webhook URL specified");
    }
    if (parsed.protocol !== "https:" && parsed.protocol !== "http:") throw badRequest("invalid webhook URL specified");
    if (secret.length > 256) throw badRequest("secret token is too long");
    if (!SECRET_TOKEN.test(secret)) throw badRequest("secret token contains unallowed characters");
    const host = parsed.hostname.replace(/^\[|\]$/g, "");
    if (!isIP(host)) {
      try {
        await lookup(host);
      } catch {
        throw badRequest("bad webhook: Failed to resolve host: Name or service not known");
      }
    }
    if (drop) dropPending(bot);
    bot.webhook = { url, secret, maxConnections };
    if (allowed) bot.allowedUpdates = allowed;
    bot.lastError = undefined;
    pump(bot);
    return { result: true, description: "Webhook was set" };
  };

  const sendVoice = async (bot: Bot, args: Args) => {
    // process_send_voice_query: the voice first, then the chat
    const upload = args.file("voice") ?? (args.str("voice").startsWith("attach://") ? args.file(args.str("voice").slice(9)) : undefined);
    const ref = args.str("voice").trim();
    if (!upload && !ref) throw badRequest("there is no voice in the request");
    const chat = checkChat(bot, args);
    let data: Buffer;
    let declared = "";
    let reused: StoredFile | undefined;
    if (upload) {
      if (upload.data.length > MAX_UPLOAD_BYTES) throw new TelegramError(413, "Request Entity Too Large");
      data = upload.data;
      declared = upload.type;
    } else if (/^https?:\/\//i.test(ref)) {
      try {
        const res = await fetch(ref, { signal: AbortSignal.timeout(10_000), redirect: "follow" });
        if (!res.ok) throw new Error(String(res.status));
        data = Buffer.from(await res.arrayBuffer());
        declared = res.headers.get("content-type") ?? "";
      } catch {
        throw badRequest("failed to get HTTP URL content");
      }
    } else {
      reused = bot.files.get(ref);
      if (!reused) throw badRequest("wrong file identifier/HTTP URL specified");
      data = reused.data;
      declared = reused.mime;
    }
    const kind = sniffAudio(data);
    const caption = args.str("caption") || undefined;
    // Telegram shows OGG/Opus, MP3 and M4A as a voice message; anything else is sent as a document.
    if (kind && (kind.ext === "oga" || kind.ext === "mp3" || kind.ext === "m4a")) {
      const file = reused ?? storeFile(bot, data, kind.mime, "voice", kind.ext);
      const measured = kind.ext === "oga" ? oggDurationSeconds(data) : undefined;
      const duration = intArg(args, "duration", Math.round(measured ?? 0), 0, 1_000_000);
      const voice = { duration, mime_type: kind.mime, file_id: file.file_id, file_unique_id: file.file_unique_id, file_size: data.length };
      return botSends(
        bot,
        chat,
        { voice, ...(caption && { caption }) },
        { kind: "voice", file_id: file.file_id, mime_type: kind.mime, duration, ...(caption && { caption }) },
      );
    }
    const mime = kind?.mime ?? (declared.split(";")[0]?.trim() || "application/octet-stream");
    const file = reused ?? storeFile(bot, data, mime, "documents", kind?.ext ?? "bin");
    const fileName = upload?.name && upload.name !== "voice" ? upload.name : `file_${file.path.split("_").at(-1)}`;
    const document = {
      file_name: fileName,
      mime_type: mime,
      file_id: file.file_id,
      file_unique_id: file.file_unique_id,
      file_size: data.length,
    };
    return botSends(
      bot,
      chat,
      { document, ...(caption && { caption }) },
      { kind: "document", file_id: file.file_id, mime_type: mime, ...(caption && { caption }) },
    );
  };

  const callMethod = async (bot: Bot, method: string, args: Args): Promise<{ result: unknown; description?: string }> => {
    const fault = bot.faults.find((f) => !f.method || f.method.toLowerCase() === method);
    if (fault) {
      if (--fault.remaining <= 0) bot.faults.splice(bot.faults.indexOf(fault), 1);
      if (fault.error_code === 429) throw tooManyRequests(fault.retry_after ?? 1);
      const prefix = { 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 500: "Internal Server Error" }[
        fault.error_code
      ];
      throw new TelegramError(fault.error_code, fault.description ?? prefix ?? "Internal Server Error");
    }
    switch (method) {
      case "getme":
        return {
          result: {
            ...bot.info,
            can_join_groups: true,
            can_read_all_group_messages: false,
            supports_inline_queries: false,
            can_connect_to_business: false,
            has_main_web_app: false,
          },
        };
      case "setwebhook":
      case "deletewebhook":
        return setWebhook(bot, args, method);
      case "getwebhookinfo": {
        const w = botInfo(bot).webhook;
        return {
          result: {
            url: w.url,
            has_custom_certificate: false,
            pending_update_count: w.pending_update_count,
            ...(w.url && { ip_address: "127.0.0.1" }),
            ...(w.last_error_date !== undefined && { last_error_date: w.last_error_date, last_error_message: w.last_error_message }),
            ...(w.url && { max_connections: w.max_connections }),
            ...(w.allowed_updates && { allowed_updates: w.allowed_updates }),
          },
        };
      }
      case "sendmessage": {
        // process_send_message_query: the text first, then the chat
        const text = args.str("text");
        if (!text) throw badRequest("message text is empty");
        const parseMode = args.str("parse_mode").trim();
        if (parseMode && !["markdown", "markdownv2", "html", "none"].includes(parseMode.toLowerCase()))
          throw badRequest("unsupported parse_mode");
        if ([...text].length > MAX_TEXT_LENGTH) throw badRequest("message is too long");
        const chat = checkChat(bot, args);
        let entities: TelegramMessage["entities"];
        try {
          const raw = args.str("entities");
          if (raw) entities = JSON.parse(raw) as TelegramMessage["entities"];
        } catch {
          throw badRequest("can't parse entities JSON object");
        }
        return {
          result: botSends(
            bot,
            chat,
            { text, ...(entities && { entities }) },
            { kind: "text", text, ...(parseMode && { parse_mode: parseMode }) },
          ),
        };
      }
      case "sendvoice":
        return { result: await sendVoice(bot, args) };
      case "sendchataction": {
        const action = args.str("action").toLowerCase();
        if (!CHAT_ACTIONS.has(action)) throw badRequest("wrong parameter action in request");
        const chat = checkChat(bot, args);
        log(chat, { from: "bot", kind: "chat_action", action });
        return { result: true };
      }
      case "getfile": {
        const fileId = args.str("file_id");
        if (!fileId) throw badRequest("file_id not specified");
        const file = bot.files.get(fileId);
        if (!file) throw badRequest("invalid file_id");
        if (file.data.length > MAX_DOWNLOAD_BYTES) throw badRequest("file is too big");
        return {
          result: { file_id: file.file_id, file_unique_id: file.file_unique_id, file_size: file.data.length, file_path: file.path },
        };
      }
      default: {
        const known = NOT_IMPLEMENTED.find((m) => m.toLowerCase() === method);
        if (known)
          throw new TelegramError(
            501,
            `Not Implemented: the Telegram sandbox does not implement ${known}; it implements getMe, setWebhook, deleteWebhook, getWebhookInfo, sendMessage, sendVoice, sendChatAction and getFile`,
          );
        throw new TelegramError(404, "Not Found: method not found");
      }
    }
  };

  // --- HTTP ------------------------------------------------------------------------------------

  const tokenBot = (token: string): Bot => {
    const colon = token.indexOf(":");
    const id = Number(token.slice(0, colon));
    if (token.startsWith("0") || token.length > 80 || colon < 0 || !Number.isSafeInteger(id) || id <= 0)
      throw new TelegramError(401, "Unauthorized: invalid token specified");
    const bot = byToken.get(token);
    if (!bot || bot.revoked) throw new TelegramError(401, "Unauthorized");
    return bot;
  };

  const handleBotApi = async (req: IncomingMessage, res: ServerResponse, token: string, rawMethod: string, query: URLSearchParams) => {
    const bot = tokenBot(decodeURIComponent(token));
    const raw = await readBody(req, API_BODY_LIMIT);
    let body: Awaited<ReturnType<typeof parseRequestBody>>;
    try {
      body = await parseRequestBody(req.headers["content-type"] ?? "", raw, query);
    } catch (err) {
      if (err instanceof MalformedBody)
        throw badRequest(err.message === "the body is not valid JSON" ? "can't parse JSON object" : err.message);
      throw err;
    }
    const args: Args = {
      str(name) {
        const v = body.fields[name];
        if (v === undefined || v === null) return "";
        return typeof v === "string" ? v : typeof v === "object" ? JSON.stringify(v) : String(v);
      },
      file(name) {
        return body.files[name];
      },
    };
    const out = await callMethod(bot, rawMethod.toLowerCase(), args);
    if (opts.apiLatencyMs) await new Promise((r) => setTimeout(r, opts.apiLatencyMs));
    sendJson(res, 200, { ok: true, result: out.result, ...(out.description && { description: out.description }) });
  };

  const handleFile = (res: ServerResponse, token: string, path: string) => {
    const bot = tokenBot(decodeURIComponent(token));
    const file = bot.paths.get(decodeURIComponent(path));
    if (!file) throw new TelegramError(404, "Not Found");
    if (res.headersSent || res.destroyed) return;
    res.writeHead(200, { "content-type": file.mime, "content-length": String(file.data.length) }).end(file.data);
  };

  const CONTROL = /^\/__sandbox\/bots(?:\/(\d+)(?:\/(.+))?)?\/?$/;

  const handleControl = async (req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams) => {
    const m = CONTROL.exec(path);
    if (!m) throw new ControlError(404, `No control route ${path}.`);
    const method = req.method ?? "GET";
    const readJson = async (): Promise<Record<string, unknown>> => {
      const raw = await readBody(req, 1024 * 1024);
      if (raw.length === 0) return {};
      try {
        const v = JSON.parse(raw.toString("utf8")) as unknown;
        if (v && typeof v === "object" && !Array.isArray(v)) return v as Record<string, unknown>;
      } catch {}
      throw new ControlError(400, "The body must be a JSON object.");
    };
    const [, botIdRaw, rest] = m;
    if (!botIdRaw) {
      if (method === "POST") {
        const b = await readJson();
        return sendJson(
          res,
          201,
          createBot({
            username: typeof b.username === "string" ? b.username : undefined,
            first_name: typeof b.first_name === "string" ? b.first_name : undefined,
          }),
        );
      }
      if (method === "GET") return sendJson(res, 200, [...bots.values()].filter((b) => !b.revoked).map(botInfo));
      throw new ControlError(405, "Use GET or POST.");
    }
    const botId = Number(botIdRaw);
    if (!rest) {
      if (method === "GET") return sendJson(res, 200, botInfo(getBot(botId)));
      if (method === "DELETE") {
        revoke(botId);
        return sendJson(res, 200, { revoked: true });
      }
      throw new ControlError(405, "Use GET or DELETE.");
    }
    let r: RegExpExecArray | null;
    r = method === "POST" ? /^users\/(\d+)\/messages$/.exec(rest) : null;
    if (r) {
      const b = await readJson();
      const { from, ...content } = b;
      const update = await send(botId, Number(r[1]), content as UserContent, (from ?? {}) as UserProfile);
      return sendJson(res, 202, update);
    }
    r = method === "POST" ? /^users\/(\d+)\/block$/.exec(rest) : null;
    if (r) {
      const b = await readJson();
      block(botId, Number(r[1]), b.blocked !== false);
      return sendJson(res, 200, { blocked: b.blocked !== false });
    }
    r = method === "POST" ? /^updates\/(\d+)\/redeliver$/.exec(rest) : null;
    if (r) return sendJson(res, 200, await redeliver(botId, Number(r[1])));
    r = method === "GET" ? /^chats\/(\d+)$/.exec(rest) : null;
    if (r) {
      const chatId = Number(r[1]);
      return sendJson(res, 200, { chat_id: chatId, messages: chat(botId, chatId) });
    }
    r = method === "GET" ? /^chats\/(\d+)\/next$/.exec(rest) : null;
    if (r) {
      const after = query.get("after");
      const entry = await nextBotMessage(botId, Number(r[1]), {
        ...(after !== null && after !== "" && { after: Number(after) }),
        timeoutMs: intParam(query.get("timeout_ms"), 10_000, 0, 120_000),
      });
      return sendJson(res, 200, entry);
    }
    if (rest === "deliveries" && method === "GET") return sendJson(res, 200, getBot(botId).deliveries);
    if (rest === "faults" && method === "POST") {
      const b = await readJson();
      fault(botId, b as unknown as BotFault);
      return sendJson(res, 200, { queued: true });
    }
    throw new ControlError(404, `No control route ${method} ${path}.`);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const [path = "/", qs = ""] = (req.url ?? "/").split("?", 2) as [string, string?];
    const query = new URLSearchParams(qs);
    try {
      if (path.startsWith("/__sandbox/")) return await handleControl(req, res, path, query);
      const api = /^\/bot([^/]*)\/([^/]*)$/.exec(path);
      if (api) return await handleBotApi(req, res, api[1] as string, api[2] as string, query);
      const file = /^\/file\/bot([^/]*)\/(.+)$/.exec(path);
      if (file && (req.method === "GET" || req.method === "HEAD")) return handleFile(res, file[1] as string, file[2] as string);
      throw new TelegramError(404, "Not Found");
    } catch (err) {
      if (err instanceof TelegramError)
        return sendJson(res, err.code, err.body(), err.retryAfter !== undefined ? { "retry-after": String(err.retryAfter) } : {});
      if (err instanceof ControlError) return sendJson(res, err.status, { error: err.message });
      if (err instanceof BodyTooLarge) return sendJson(res, 413, { ok: false, error_code: 413, description: "Request Entity Too Large" });
      const message = err instanceof Error ? err.message : String(err);
      return sendJson(res, 500, {
        ok: false,
        error_code: 500,
        description: `Internal Server Error: the Telegram sandbox failed: ${message}`,
      });
    }
  };

  // --- the in-process API ------------------------------------------------------------------------

  const chat = (botId: number, chatId: number): ChatEntry[] => [...(getBot(botId).chats.get(chatId)?.log ?? [])];

  const block = (botId: number, userId: number, blocked = true) => {
    const c = getBot(botId).chats.get(userId);
    if (!c) throw new ControlError(404, `User ${userId} has not written to bot ${botId}.`);
    c.blocked = blocked;
  };

  const fault = (botId: number, f: BotFault) => {
    const bot = getBot(botId);
    if (!Number.isInteger(f?.error_code) || f.error_code < 400 || f.error_code > 599)
      throw new ControlError(400, "error_code is an HTTP error status (429, 400, 403, 500…).");
    bot.faults.push({ ...f, remaining: Math.max(1, Math.trunc(f.count ?? 1)) });
  };

  const revoke = (botId: number) => {
    const bot = getBot(botId);
    bot.revoked = true;
    if (bot.timer) clearTimeout(bot.timer);
    bot.webhook = undefined;
  };

  const server: Server = createServer((req, res) => {
    void handle(req, res);
  });
  server.keepAliveTimeout = 5_000;
  const port = await listenLocal(server, opts.port ?? 0, "Telegram sandbox");
  baseUrl = `http://127.0.0.1:${port}`;

  return {
    url: baseUrl,
    createBot,
    bot: (botId) => botInfo(getBot(botId)),
    send,
    redeliver,
    chat,
    nextBotMessage,
    deliveries: (botId) => [...getBot(botId).deliveries],
    block,
    fault,
    revoke,
    async stop() {
      stopping.abort();
      for (const bot of bots.values()) if (bot.timer) clearTimeout(bot.timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.allSettled([...inflight]);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// CLI: `tsx dev/sandbox/telegram.ts`

if (isMain(import.meta.url)) {
  await runSandboxCli(
    (provider) => startTelegramSandbox({ port: Number(process.env.PORT ?? DEFAULT_TELEGRAM_PORT), provider }),
    (sandbox, voiceFrom) => {
      const bot = sandbox.createBot({ username: "sandbox_demo_bot" });
      return [
        "Telegram sandbox (Bot API stand-in, scripted users) listening.",
        `  API base:   ${sandbox.url}   (what https://api.telegram.org is; TELEGRAM_API_BASE_URL for the worker)`,
        `  A bot:      @${bot.username}, token ${bot.token}`,
        `  More bots:  curl -X POST ${sandbox.url}/__sandbox/bots`,
        `  A user:     curl -X POST ${sandbox.url}/__sandbox/bots/${bot.id}/users/1001/messages -H 'content-type: application/json' -d '{"text":"Hello"}'`,
        `  Voice from: ${voiceFrom}`,
      ];
    },
  );
}
