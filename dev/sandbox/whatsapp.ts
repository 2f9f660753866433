// The WhatsApp sandbox: a local HTTP server that speaks the subset of Meta's WhatsApp Cloud API (the
// Graph API) a messaging channel uses (POST /{version}/{phone-number-id}/messages for text, audio,
// templates and read receipts; media upload, GET /{version}/{media-id} and the media download; GET
// /{version}/{phone-number-id}), and plays scripted WhatsApp users who write to the sandbox's business
// numbers. Notifications reach the app's callback URL signed as Meta signs them (X-Hub-Signature-256
// over the raw body, with Meta's escaped JSON), with message statuses (sent, delivered, read) for what
// the business sent and the 24-hour customer-service window enforced (error 131047). A control API
// under /__sandbox/ creates apps and numbers, configures the webhook with Meta's hub.challenge
// handshake, drives the users and reads the conversations. See docs/sandbox.md, "WhatsApp sandbox".
//
//   npx tsx dev/sandbox/whatsapp.ts   # PORT (default 8793); PROVIDER_URL + PROVIDER_API_KEY for voice
//                                     # notes (default: a provider sandbox started in-process)
import { createHash, createHmac, randomBytes, randomInt, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { listenLocal } from "../listen";
import {
  BodyTooLarge,
  intParam,
  isMain,
  MalformedBody,
  type ProviderRef,
  parseRequestBody,
  postWebhook,
  randomChars,
  randomDigits,
  readBody,
  runSandboxCli,
  sendJson,
  sniffAudio,
  VoiceNotes,
  Waiters,
} from "./messaging";

export const DEFAULT_WHATSAPP_PORT = 8793;
/** The customer-service window: free-form messages only within 24 hours of the user's last message. */
export const SERVICE_WINDOW_MS = 24 * 3600 * 1000;
const MAX_TEXT_LENGTH = 4096;
/** Meta's audio limit, and the types it accepts (audio/ogg with the Opus codec only). */
const MAX_AUDIO_BYTES = 16 * 1024 * 1024;
const AUDIO_TYPES = ["audio/aac", "audio/amr", "audio/mp4", "audio/mpeg", "audio/ogg"];
const API_BODY_LIMIT = MAX_AUDIO_BYTES + 1024 * 1024;
/** Media URLs from GET /{media-id} work for 5 minutes. */
const MEDIA_URL_TTL_MS = 5 * 60 * 1000;
/** Failed notifications are retried with growing delays (1, 2, 4… units, at most an hour) for up to 7 days. */
const RETRY_MAX_UNITS = 3600;
const RETRY_FOR_UNITS = 7 * 24 * 3600;
const ATTEMPT_LOG_LIMIT = 10_000;
const MESSAGE_TYPES = [
  "audio",
  "button",
  "contacts",
  "document",
  "image",
  "interactive",
  "location",
  "reaction",
  "sticker",
  "template",
  "text",
  "video",
];
/** A 1×1 WebP standing in for a sticker. */
const STICKER_BYTES = Buffer.from("UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==", "base64");

// ---------------------------------------------------------------------------------------------

export interface WhatsAppNumber {
  phone_number_id: string;
  display_phone_number: string;
  verified_name: string;
  waba_id: string;
  access_token: string;
  app_id: string;
  app_secret: string;
}

export interface WhatsAppApp {
  app_id: string;
  app_secret: string;
  webhook?: { callback_url: string; verify_token: string; fields: string[] };
}

/** What a scripted user can send. `voice` and `audio` are the words of a voice note / an audio file. */
export type WhatsAppUserContent =
  | { text: string }
  | { voice: string }
  | { audio: string }
  | { sticker: true }
  | { location: { latitude: number; longitude: number; name?: string; address?: string } }
  | { unsupported: true };

export type StatusName = "sent" | "delivered" | "read" | "played" | "failed";

/** One message of a conversation. */
export interface ConversationEntry {
  direction: "inbound" | "outbound";
  /** The wamid. */
  id: string;
  at: string;
  atMs: number;
  type: "text" | "audio" | "sticker" | "location" | "unsupported" | "template";
  /** A text's body; for a voice note or audio the user sent, the words it says. */
  text?: string;
  voice?: boolean;
  media_id?: string;
  mime_type?: string;
  link?: string;
  template?: { name: string; language: string };
  /** Outbound: the statuses Meta reported, in order. */
  statuses: Array<{ status: StatusName; at: string }>;
  /** Outbound: why it failed (131047 outside the window, 131053 a media link that would not download…). */
  error?: { code: number; title: string; details: string };
  /** Inbound: the business marked it read / showed a typing indicator. */
  read_by_business?: boolean;
  typing_indicator?: boolean;
  /** Inbound: the notification that carried it. */
  notification_id?: string;
  /** Inbound: the message object as notified; outbound: the request body. */
  message: Record<string, unknown>;
}

export interface NotificationAttempt {
  attempt: number;
  at: string;
  url: string;
  status?: number;
  error?: string;
  ms: number;
  redelivery: boolean;
  retryInMs?: number;
}

export interface Notification {
  id: string;
  app_id: string;
  phone_number_id: string;
  wa_id: string;
  /** What it notifies: a user's message, or a status of the business's message. */
  kind: "message" | "status";
  /** The message's wamid. */
  ref: string;
  status?: StatusName;
  /** The exact body POSTed (Meta's escaped JSON) and its signature. */
  body: string;
  signature: string;
  created_at: string;
  /** pending (first attempt not done), delivered, retrying, failed (gave up after 7 days), dropped (no webhook configured). */
  state: "pending" | "delivered" | "retrying" | "failed" | "dropped";
  attempts: NotificationAttempt[];
}

export interface NumberFault {
  /** How many sends fail (default 1). */
  count?: number;
  /** Meta's error code: 130429 (rate limit, HTTP 429), 131056 (pair rate limit), 131000 (500), 2 (503)… */
  code: number;
}

export interface WhatsAppSandbox {
  /** http://127.0.0.1:PORT: what https://graph.facebook.com is to the worker. */
  url: string;
  createApp(opts?: { app_secret?: string }): WhatsAppApp;
  /** A business number under an app (a new app when `app_id` is omitted). */
  createNumber(opts?: { app_id?: string; display_phone_number?: string; verified_name?: string }): WhatsAppNumber;
  /** Configures the app's webhook as Meta's dashboard does: the GET handshake must echo hub.challenge. */
  configureWebhook(appId: string, webhook: { callback_url: string; verify_token: string; fields?: string[] }): Promise<void>;
  /** The user writes to the number: the message is logged and notified. */
  send(
    phoneNumberId: string,
    waId: string,
    content: WhatsAppUserContent,
    opts?: { profile_name?: string },
  ): Promise<{ id: string; notification_id: string; message: Record<string, unknown> }>;
  conversation(phoneNumberId: string, waId: string): ConversationEntry[];
  /** The business's first message to the user after message `after` (a wamid; default the user's last). */
  nextBusinessMessage(phoneNumberId: string, waId: string, opts?: { after?: string; timeoutMs?: number }): Promise<ConversationEntry>;
  /** Moves the user's last message `hours` back in time (the window closes after 24). */
  age(phoneNumberId: string, waId: string, hours: number): { last_inbound_at: string; window_open: boolean };
  /** Whether the user sends read receipts (default true). */
  settings(phoneNumberId: string, waId: string, s: { read_receipts?: boolean }): void;
  notifications(appId: string): Notification[];
  /** Sends notification `id` again, once, verbatim: a duplicate. */
  redeliver(notificationId: string): Promise<NotificationAttempt>;
  fault(phoneNumberId: string, fault: NumberFault): void;
  stop(): Promise<void>;
}

export interface WhatsAppSandboxOptions {
  port?: number;
  /** Where voice notes are spoken (the provider sandbox: `url` ending in /v1, `apiKey`). Without it, voice notes are refused. */
  provider?: ProviderRef;
  /** The users' voice at the provider (default "alloy"). */
  voice?: string;
  /** One retry unit (a second at Meta), in ms (default 1000). */
  retryUnitMs?: number;
  /** How long the sandbox waits for the webhook's answer (default 20,000 ms). */
  webhookTimeoutMs?: number;
  /** When statuses follow an accepted message (ms after the send; defaults 100, 300, 1000, 1500). */
  statusDelaysMs?: { sent?: number; delivered?: number; read?: number; played?: number };
  /** Added before every Graph API answer, to model the network (default 0). */
  apiLatencyMs?: number;
}

// ---------------------------------------------------------------------------------------------

class GraphError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: number,
    readonly type = "OAuthException",
    readonly subcode?: number,
    readonly details?: string,
  ) {
    super(message);
  }

  body() {
    return {
      error: {
        message: this.message,
        type: this.type,
        code: this.code,
        ...(this.subcode !== undefined && { error_subcode: this.subcode }),
        ...(this.details !== undefined && { error_data: { messaging_product: "whatsapp", details: this.details } }),
        fbtrace_id: `A${randomChars(22)}`,
      },
    };
  }
}

const invalidToken = () => new GraphError(401, "Invalid OAuth access token - Cannot parse access token", 190);
const noSuchObject = (verb: "get" | "post" | "delete", id: string) =>
  new GraphError(
    400,
    `Unsupported ${verb} request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation. Please read the Graph API documentation at https://developers.facebook.com/docs/graph-api`,
    100,
    "GraphMethodException",
    33,
  );
const required = (details: string) =>
  new GraphError(400, "(#131008) Required parameter is missing", 131008, "OAuthException", undefined, details);
const notValid = (details: string) =>
  new GraphError(400, "(#131009) Parameter value is not valid", 131009, "OAuthException", undefined, details);
const invalidParameter = (details: string) => new GraphError(400, "(#100) Invalid parameter", 100, "OAuthException", undefined, details);

class ControlError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly detail?: unknown,
  ) {
    super(message);
  }
}

/** The asynchronous errors Meta reports in a failed status (and a sync one's title). */
const ASYNC_ERRORS = {
  131047: {
    title: "Re-engagement message",
    details: "Message failed to send because more than 24 hours have passed since the customer last replied to this number.",
  },
  131053: { title: "Media upload error", details: "Unable to download the media from the link." },
} as const;

const FAULTS: Record<number, { status: number; message: string }> = {
  1: { status: 500, message: "An unknown error occurred" },
  2: { status: 503, message: "Service temporarily unavailable" },
  130429: { status: 429, message: "(#130429) Rate limit hit" },
  131000: { status: 500, message: "(#131000) Something went wrong" },
  131056: { status: 400, message: "(#131056) (Business Account, Consumer Account) pair rate limit hit" },
  131048: { status: 400, message: "(#131048) Spam rate limit hit" },
};

/**
 * JSON as Meta sends it: non-ASCII characters as \uXXXX escapes and "/" as "\/". The signature covers these
 * bytes, so a receiver must verify the raw body, not a re-serialisation of the parsed one.
 */
export function metaJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)
    .replace(/\//g, "\\/");
}

interface Media {
  id: string;
  appId: string;
  data: Buffer;
  mime: string;
  sha256: string;
}

interface Conversation {
  waId: string;
  profileName: string;
  lastInboundAt?: number;
  readReceipts: boolean;
  log: ConversationEntry[];
  /** The user's messages are composed one after another; first attempts of notifications go out in order. */
  composing: Promise<unknown>;
  chain: Promise<unknown>;
}

interface NumberState extends WhatsAppNumber {
  conversations: Map<string, Conversation>;
  templates: Set<string>;
  faults: Array<{ code: number; remaining: number }>;
}

interface AppState {
  app_id: string;
  app_secret: string;
  webhook?: { callback_url: string; verify_token: string; fields: string[] };
  notifications: Notification[];
}

const now = () => Date.now();
const unixNow = () => String(Math.floor(Date.now() / 1000));
const iso = (ms: number) => new Date(ms).toISOString();
/** Meta's ids are base64 ("wamid.HBgL…"); "+" and "/" are left out so an id can sit in a URL unescaped. */
const wamid = () => `wamid.HBgL${randomBytes(30).toString("base64").replace(/\+/g, "A").replace(/\//g, "B")}`;

export async function startWhatsAppSandbox(opts: WhatsAppSandboxOptions = {}): Promise<WhatsAppSandbox> {
  const unit = opts.retryUnitMs ?? 1000;
  const webhookTimeoutMs = opts.webhookTimeoutMs ?? 20_000;
  const delays = { sent: 100, delivered: 300, read: 1000, played: 1500, ...opts.statusDelaysMs };
  const voices = new VoiceNotes(opts.provider, opts.voice ?? "alloy");
  const urlKey = randomBytes(32);
  const apps = new Map<string, AppState>();
  const numbers = new Map<string, NumberState>();
  const byToken = new Map<string, NumberState>();
  const media = new Map<string, Media>();
  const notificationsById = new Map<string, Notification>();
  const stopping = new AbortController();
  const waiters = new Waiters();
  const timers = new Set<NodeJS.Timeout>();
  const inflight = new Set<Promise<unknown>>();
  let nextNotification = 1;
  let baseUrl = "";

  const later = (ms: number, fn: () => void) => {
    if (stopping.signal.aborted) return;
    const t = setTimeout(() => {
      timers.delete(t);
      if (!stopping.signal.aborted) fn();
    }, ms);
    timers.add(t);
  };
  const track = <T>(p: Promise<T>): Promise<T> => {
    inflight.add(p);
    void p.finally(() => inflight.delete(p)).catch(() => undefined);
    return p;
  };

  // --- apps, numbers, conversations ----------------------------------------------------------

  const getApp = (appId: string) => {
    const app = apps.get(appId);
    if (!app) throw new ControlError(404, `No sandbox app ${appId}.`);
    return app;
  };
  const getNumber = (pnid: string) => {
    const n = numbers.get(pnid);
    if (!n) throw new ControlError(404, `No sandbox number ${pnid}.`);
    return n;
  };

  const createApp = (o: { app_secret?: string } = {}): WhatsAppApp => {
    if (o.app_secret !== undefined && (typeof o.app_secret !== "string" || o.app_secret.length < 8))
      throw new ControlError(400, "app_secret must be a string of at least 8 characters.");
    let id: string;
    do id = randomDigits(16);
    while (apps.has(id));
    const app: AppState = { app_id: id, app_secret: o.app_secret ?? randomBytes(16).toString("hex"), notifications: [] };
    apps.set(id, app);
    return { app_id: app.app_id, app_secret: app.app_secret };
  };

  const createNumber = (o: { app_id?: string; display_phone_number?: string; verified_name?: string } = {}): WhatsAppNumber => {
    const app = o.app_id ? getApp(o.app_id) : getApp(createApp().app_id);
    const display = (o.display_phone_number ?? `1555${randomDigits(7)}`).replace(/[^\d]/g, "");
    if (display.length < 8 || display.length > 15) throw new ControlError(400, "display_phone_number must have 8 to 15 digits.");
    let pnid: string;
    do pnid = randomDigits(15);
    while (numbers.has(pnid));
    const n: NumberState = {
      phone_number_id: pnid,
      display_phone_number: display,
      verified_name: o.verified_name ?? "Sandbox Business",
      waba_id: randomDigits(15),
      access_token: `EAAG${randomChars(180)}`,
      app_id: app.app_id,
      app_secret: app.app_secret,
      conversations: new Map(),
      templates: new Set(["hello_world"]),
      faults: [],
    };
    numbers.set(pnid, n);
    byToken.set(n.access_token, n);
    return numberView(n);
  };

  const numberView = (n: NumberState): WhatsAppNumber => ({
    phone_number_id: n.phone_number_id,
    display_phone_number: n.display_phone_number,
    verified_name: n.verified_name,
    waba_id: n.waba_id,
    access_token: n.access_token,
    app_id: n.app_id,
    app_secret: n.app_secret,
  });

  const normalizeWaId = (raw: string): string | undefined => {
    const digits = raw.replace(/[\s()+\-.]/g, "");
    return /^[1-9]\d{6,14}$/.test(digits) ? digits : undefined;
  };

  const conversationOf = (n: NumberState, waId: string): Conversation => {
    let c = n.conversations.get(waId);
    if (!c) {
      c = {
        waId,
        profileName: `User ${waId.slice(-4)}`,
        readReceipts: true,
        log: [],
        composing: Promise.resolve(),
        chain: Promise.resolve(),
      };
      n.conversations.set(waId, c);
    }
    return c;
  };

  const windowOpen = (c: Conversation) => c.lastInboundAt !== undefined && now() - c.lastInboundAt < SERVICE_WINDOW_MS;

  // --- media ---------------------------------------------------------------------------------

  const storeMedia = (appId: string, data: Buffer, mime: string): Media => {
    let id: string;
    do id = randomDigits(16);
    while (media.has(id));
    const m: Media = { id, appId, data, mime, sha256: createHash("sha256").update(data).digest("hex") };
    media.set(id, m);
    return m;
  };

  const mediaHash = (id: string, ext: string) => createHmac("sha256", urlKey).update(`${id}:${ext}`).digest("hex").slice(0, 32);
  const mediaUrl = (m: Media) => {
    const ext = String(Math.floor((now() + MEDIA_URL_TTL_MS) / 1000));
    return `${baseUrl}/whatsapp_business/attachments/?mid=${m.id}&ext=${ext}&hash=${mediaHash(m.id, ext)}`;
  };

  // --- notifications ---------------------------------------------------------------------------

  const sign = (secret: string, body: string) => `sha256=${createHmac("sha256", secret).update(body, "utf8").digest("hex")}`;

  const deliver = async (n: Notification, redelivery: boolean): Promise<NotificationAttempt> => {
    const app = apps.get(n.app_id) as AppState;
    const hook = app.webhook;
    const started = now();
    const attemptNo = n.attempts.length + 1;
    if (!hook) {
      const a: NotificationAttempt = { attempt: attemptNo, at: iso(started), url: "", error: "No webhook configured", ms: 0, redelivery };
      n.attempts.push(a);
      return a;
    }
    const res = await postWebhook(
      hook.callback_url,
      n.body,
      {
        "x-hub-signature-256": n.signature,
        "x-hub-signature": `sha1=${createHmac("sha1", app.app_secret).update(n.body, "utf8").digest("hex")}`,
        "user-agent": "facebookexternalua",
      },
      webhookTimeoutMs,
      stopping.signal,
    );
    const a: NotificationAttempt = {
      attempt: attemptNo,
      at: iso(started),
      url: hook.callback_url,
      ...(res.status !== undefined && { status: res.status }),
      ...(res.error && { error: res.error }),
      ms: Math.round(res.ms),
      redelivery,
    };
    n.attempts.push(a);
    if (n.attempts.length > ATTEMPT_LOG_LIMIT) n.attempts.splice(0, n.attempts.length - ATTEMPT_LOG_LIMIT);
    if (redelivery || stopping.signal.aborted) return a;
    if (!res.error) n.state = "delivered";
    else {
      const failures = n.attempts.filter((x) => !x.redelivery && x.error).length;
      const delay = Math.min(RETRY_MAX_UNITS, 2 ** (failures - 1)) * unit;
      if (now() + delay - Date.parse(n.created_at) > RETRY_FOR_UNITS * unit) n.state = "failed";
      else {
        n.state = "retrying";
        a.retryInMs = delay;
        later(delay, () => void track(deliver(n, false)));
      }
    }
    waiters.wake();
    return a;
  };

  /** Builds, signs and queues a notification: first attempts go out in order per conversation; retries run on their own. */
  const notify = (
    num: NumberState,
    c: Conversation,
    kind: Notification["kind"],
    ref: string,
    value: Record<string, unknown>,
    status?: StatusName,
  ) => {
    const app = apps.get(num.app_id) as AppState;
    const body = metaJson({
      object: "whatsapp_business_account",
      entry: [
        {
          id: num.waba_id,
          changes: [
            {
              value: {
                messaging_product: "whatsapp",
                metadata: { display_phone_number: num.display_phone_number, phone_number_id: num.phone_number_id },
                ...value,
              },
              field: "messages",
            },
          ],
        },
      ],
    });
    const n: Notification = {
      id: `ntf_${nextNotification++}`,
      app_id: app.app_id,
      phone_number_id: num.phone_number_id,
      wa_id: c.waId,
      kind,
      ref,
      ...(status && { status }),
      body,
      signature: sign(app.app_secret, body),
      created_at: iso(now()),
      state: "pending",
      attempts: [],
    };
    app.notifications.push(n);
    notificationsById.set(n.id, n);
    if (!app.webhook?.fields.includes("messages")) {
      n.state = "dropped"; // Meta notifies only a subscribed app
      return n;
    }
    const run = c.chain.then(() => track(deliver(n, false)));
    c.chain = run.catch(() => undefined);
    return n;
  };

  // --- statuses --------------------------------------------------------------------------------

  const setStatus = (
    num: NumberState,
    c: Conversation,
    entry: ConversationEntry,
    status: StatusName,
    extra: Record<string, unknown> = {},
  ) => {
    entry.statuses.push({ status, at: iso(now()) });
    waiters.wake();
    const isTemplate = entry.type === "template";
    const pricing =
      status === "sent" || status === "delivered"
        ? {
            pricing: isTemplate
              ? { billable: true, pricing_model: "PMP", type: "regular", category: "utility" }
              : { billable: false, pricing_model: "PMP", type: "free_customer_service", category: "service" },
          }
        : {};
    notify(
      num,
      c,
      "status",
      entry.id,
      { statuses: [{ id: entry.id, status, timestamp: unixNow(), recipient_id: c.waId, ...pricing, ...extra }] },
      status,
    );
  };

  const fail = (num: NumberState, c: Conversation, entry: ConversationEntry, code: 131047 | 131053, details?: string) => {
    const e = ASYNC_ERRORS[code];
    entry.error = { code, title: e.title, details: details ?? e.details };
    setStatus(num, c, entry, "failed", {
      errors: [
        {
          code,
          title: e.title,
          message: e.title,
          error_data: { details: details ?? e.details },
          href: "https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes/",
        },
      ],
    });
  };

  /** What Meta reports after accepting a message: sent, delivered, read (and played for a voice message), or failed. */
  const progress = (num: NumberState, c: Conversation, entry: ConversationEntry, prepare?: () => Promise<string | undefined>) => {
    const freeForm = entry.type !== "template";
    const open = windowOpen(c);
    later(delays.sent, () => {
      void track(
        (async () => {
          if (freeForm && !open) return fail(num, c, entry, 131047);
          const problem = prepare ? await prepare() : undefined;
          if (stopping.signal.aborted) return;
          if (problem) return fail(num, c, entry, 131053, problem);
          setStatus(num, c, entry, "sent");
          later(Math.max(0, delays.delivered - delays.sent), () => {
            setStatus(num, c, entry, "delivered");
            if (!c.readReceipts) return;
            later(Math.max(0, delays.read - delays.delivered), () => {
              setStatus(num, c, entry, "read");
              if (entry.type === "audio" && entry.voice)
                later(Math.max(0, delays.played - delays.read), () => setStatus(num, c, entry, "played"));
            });
          });
        })(),
      );
    });
  };

  // --- the scripted user -----------------------------------------------------------------------

  const send = async (
    pnid: string,
    waIdRaw: string,
    content: WhatsAppUserContent,
    o: { profile_name?: string } = {},
  ): Promise<{ id: string; notification_id: string; message: Record<string, unknown> }> => {
    const num = getNumber(pnid);
    const waId = normalizeWaId(waIdRaw);
    if (!waId) throw new ControlError(400, "A WhatsApp user id is a phone number: 7 to 15 digits with the country code.");
    const c = conversationOf(num, waId);
    if (typeof o.profile_name === "string" && o.profile_name) c.profileName = o.profile_name;
    const k = content as Record<string, unknown>;
    const kinds = ["text", "voice", "audio", "sticker", "location", "unsupported"].filter((x) => k[x] !== undefined && k[x] !== false);
    if (kinds.length !== 1) throw new ControlError(400, "Send exactly one of text, voice, audio, sticker, location or unsupported.");
    const kind = kinds[0] as string;
    const compose = async (): Promise<{ message: Record<string, unknown>; entry: Partial<ConversationEntry> }> => {
      if (kind === "text") {
        if (typeof k.text !== "string" || !k.text || k.text.length > MAX_TEXT_LENGTH)
          throw new ControlError(400, "text must be 1 to 4096 characters.");
        return { message: { type: "text", text: { body: k.text } }, entry: { type: "text", text: k.text } };
      }
      if (kind === "voice" || kind === "audio") {
        const words = k[kind];
        if (typeof words !== "string" || !words.trim()) throw new ControlError(400, `${kind} is the words it says.`);
        if (!voices.available) throw new ControlError(409, "Voice notes need a provider: start the sandbox with `provider`.");
        const wav = await voices.wav(words);
        // WhatsApp's voice notes are audio/ogg; codecs=opus; the sandbox cannot encode Opus (docs/sandbox.md).
        const m = storeMedia(num.app_id, wav, "audio/wav");
        const voice = kind === "voice";
        return {
          message: { type: "audio", audio: { mime_type: m.mime, sha256: m.sha256, id: m.id, url: mediaUrl(m), voice } },
          entry: { type: "audio", text: words, voice, media_id: m.id, mime_type: m.mime },
        };
      }
      if (kind === "sticker") {
        const m = storeMedia(num.app_id, STICKER_BYTES, "image/webp");
        return {
          message: { type: "sticker", sticker: { mime_type: m.mime, sha256: m.sha256, id: m.id, url: mediaUrl(m), animated: false } },
          entry: { type: "sticker", media_id: m.id, mime_type: m.mime },
        };
      }
      if (kind === "location") {
        const l = k.location as Record<string, unknown>;
        const lat = Number(l?.latitude);
        const lon = Number(l?.longitude);
        if (!Number.isFinite(lat) || !Number.isFinite(lon) || Math.abs(lat) > 90 || Math.abs(lon) > 180)
          throw new ControlError(400, "location is {latitude, longitude, name?, address?}.");
        const location = {
          latitude: lat,
          longitude: lon,
          ...(typeof l.name === "string" && { name: l.name }),
          ...(typeof l.address === "string" && { address: l.address }),
        };
        return { message: { type: "location", location }, entry: { type: "location" } };
      }
      return {
        message: {
          type: "unsupported",
          errors: [
            {
              code: 131051,
              title: "Message type unknown",
              message: "Message type unknown",
              error_data: { details: "Message type is currently not supported." },
            },
          ],
        },
        entry: { type: "unsupported" },
      };
    };
    const turn = c.composing.then(async () => {
      const body = await compose();
      const id = wamid();
      const message = { from: waId, id, timestamp: unixNow(), ...body.message };
      c.lastInboundAt = now();
      const t = now();
      const entry: ConversationEntry = {
        direction: "inbound",
        id,
        at: iso(t),
        atMs: t,
        type: "text",
        statuses: [],
        ...body.entry,
        message,
      };
      c.log.push(entry);
      waiters.wake();
      const n = notify(num, c, "message", id, { contacts: [{ profile: { name: c.profileName }, wa_id: waId }], messages: [message] });
      entry.notification_id = n.id;
      return { id, notification_id: n.id, message };
    });
    c.composing = turn.catch(() => undefined);
    return turn;
  };

  // --- the Graph API ---------------------------------------------------------------------------

  const authenticate = (req: IncomingMessage, fields: Record<string, unknown>): NumberState => {
    const header = req.headers.authorization ?? "";
    const m = /^Bearer\s+(\S+)$/i.exec(header);
    const token = m?.[1] ?? (typeof fields.access_token === "string" ? fields.access_token : "");
    const n = token ? byToken.get(token) : undefined;
    if (!n) throw invalidToken();
    return n;
  };

  /** The number named in the path, if the token's app owns it. */
  const ownedNumber = (caller: NumberState, id: string, verb: "get" | "post" | "delete"): NumberState => {
    const n = numbers.get(id);
    if (!n || n.app_id !== caller.app_id) throw noSuchObject(verb, id);
    return n;
  };

  const sendMessage = (num: NumberState, b: Record<string, unknown>) => {
    if (b.messaging_product === undefined) throw new GraphError(400, "(#100) The parameter messaging_product is required.", 100);
    if (b.messaging_product !== "whatsapp")
      throw new GraphError(400, `(#100) Param messaging_product must be one of {WHATSAPP} - got "${String(b.messaging_product)}".`, 100);
    const fault = num.faults[0];
    if (fault) {
      if (--fault.remaining <= 0) num.faults.shift();
      const f = FAULTS[fault.code] ?? { status: 400, message: `(#${fault.code}) Sandbox fault` };
      throw new GraphError(
        f.status,
        f.message,
        fault.code,
        "OAuthException",
        undefined,
        "A fault injected through the sandbox's control API.",
      );
    }
    // Read receipts and typing indicators
    if (b.status !== undefined) {
      if (b.status !== "read") throw notValid(`status must be 'read'; got '${String(b.status)}'.`);
      if (typeof b.message_id !== "string" || !b.message_id) throw required("The parameter message_id is required.");
      for (const c of num.conversations.values()) {
        const entry = c.log.find((e) => e.id === b.message_id && e.direction === "inbound");
        if (entry) {
          entry.read_by_business = true;
          const typing = b.typing_indicator as { type?: unknown } | undefined;
          if (typing !== undefined) {
            if (typing?.type !== "text") throw notValid("typing_indicator.type must be 'text'.");
            entry.typing_indicator = true;
          }
          waiters.wake();
          return { success: true };
        }
      }
      throw invalidParameter(`Message ${String(b.message_id)} was not received by this phone number.`);
    }
    if (b.recipient_type !== undefined && b.recipient_type !== "individual")
      throw notValid("The sandbox sends to individuals only (recipient_type 'individual').");
    if (b.to === undefined || b.to === "") throw required("The parameter to is required.");
    const waId = normalizeWaId(String(b.to));
    if (!waId) throw invalidParameter(`'${String(b.to)}' is not a valid WhatsApp user phone number.`);
    const type = b.type === undefined ? "text" : String(b.type);
    if (!MESSAGE_TYPES.includes(type))
      throw new GraphError(
        400,
        `(#100) Param type must be one of {${MESSAGE_TYPES.map((t) => t.toUpperCase()).join(", ")}} - got "${type}".`,
        100,
      );
    const c = conversationOf(num, waId);
    const t = now();
    const entry: ConversationEntry = { direction: "outbound", id: wamid(), at: iso(t), atMs: t, type: "text", statuses: [], message: b };
    let prepare: (() => Promise<string | undefined>) | undefined;
    if (type === "text") {
      const text = b.text as { body?: unknown } | undefined;
      if (typeof text?.body !== "string" || !text.body) throw required("The parameter text['body'] is required.");
      if ([...text.body].length > MAX_TEXT_LENGTH)
        throw new GraphError(400, "(#100) Param text['body'] must be at most 4096 characters long.", 100);
      entry.text = text.body;
    } else if (type === "audio") {
      const audio = b.audio as { id?: unknown; link?: unknown; voice?: unknown } | undefined;
      entry.type = "audio";
      entry.voice = audio?.voice === true;
      if (typeof audio?.id === "string" && audio.id) {
        const m = media.get(audio.id);
        if (!m || m.appId !== num.app_id) throw invalidParameter(`Param audio['id'] is not a valid media id: ${audio.id}.`);
        entry.media_id = m.id;
        entry.mime_type = m.mime;
      } else if (typeof audio?.link === "string" && audio.link) {
        const link = audio.link;
        entry.link = link;
        prepare = async () => {
          try {
            const res = await fetch(link, { signal: AbortSignal.timeout(10_000) });
            if (!res.ok)
              return `Downloading media from weblink failed with http code ${res.status}, status message ${res.statusText || "error"}`;
            const data = Buffer.from(await res.arrayBuffer());
            const kind = sniffAudio(data);
            if (!kind || !AUDIO_TYPES.includes(kind.mime)) return `Media type ${kind?.mime ?? "unknown"} is not supported for audio.`;
            const m = storeMedia(num.app_id, data, kind.mime);
            entry.media_id = m.id;
            entry.mime_type = m.mime;
            return undefined;
          } catch (err) {
            return `Downloading media from weblink failed: ${(err as Error).message}`;
          }
        };
      } else throw required("Either audio['id'] or audio['link'] is required.");
    } else if (type === "template") {
      const tpl = b.template as { name?: unknown; language?: { code?: unknown } } | undefined;
      if (typeof tpl?.name !== "string" || !tpl.name) throw required("The parameter template['name'] is required.");
      const lang = tpl.language?.code;
      if (typeof lang !== "string" || !lang) throw required("The parameter template['language']['code'] is required.");
      if (!num.templates.has(tpl.name))
        throw new GraphError(
          404,
          "(#132001) Template name does not exist in the translation",
          132001,
          "OAuthException",
          undefined,
          `template name (${tpl.name}) does not exist in ${lang}`,
        );
      entry.type = "template";
      entry.template = { name: tpl.name, language: lang };
    } else
      throw notValid(
        `The WhatsApp sandbox sends text, audio and template messages (and read receipts); type '${type}' is not implemented.`,
      );
    c.log.push(entry);
    waiters.wake();
    progress(num, c, entry, prepare);
    return {
      messaging_product: "whatsapp",
      contacts: [{ input: String(b.to), wa_id: waId }],
      messages: [{ id: entry.id, ...(type === "template" && { message_status: "accepted" }) }],
    };
  };

  const uploadMedia = (num: NumberState, body: Awaited<ReturnType<typeof parseRequestBody>>) => {
    if (body.fields.messaging_product === undefined) throw new GraphError(400, "(#100) The parameter messaging_product is required.", 100);
    if (body.fields.messaging_product !== "whatsapp")
      throw new GraphError(
        400,
        `(#100) Param messaging_product must be one of {WHATSAPP} - got "${String(body.fields.messaging_product)}".`,
        100,
      );
    const file = body.files.file;
    if (!file) throw new GraphError(400, "(#100) The parameter file is required.", 100);
    const declared = String(body.fields.type ?? file.type ?? "")
      .split(";")[0]
      ?.trim()
      .toLowerCase();
    const kind = sniffAudio(file.data);
    const accepted = `audio/aac, audio/amr, audio/mp4, audio/mpeg, audio/ogg`;
    if (!declared || !AUDIO_TYPES.includes(declared) || !kind || kind.mime !== declared)
      throw new GraphError(
        400,
        `(#100) Param file must be a file with one of the following types: ${accepted}. Received file of type '${kind?.mime ?? (declared || "unknown")}'.`,
        100,
        "OAuthException",
        undefined,
        "The WhatsApp sandbox stores audio only.",
      );
    if (file.data.length > MAX_AUDIO_BYTES) throw new GraphError(400, "(#100) Param file must be a file smaller than 16MB.", 100);
    return { id: storeMedia(num.app_id, file.data, kind.mime).id };
  };

  const handleGraph = async (req: IncomingMessage, res: ServerResponse, rest: string, query: URLSearchParams) => {
    const method = req.method ?? "GET";
    const raw = method === "GET" || method === "DELETE" ? Buffer.alloc(0) : await readBody(req, API_BODY_LIMIT);
    let body: Awaited<ReturnType<typeof parseRequestBody>>;
    try {
      body = await parseRequestBody(req.headers["content-type"] ?? "", raw, query);
    } catch (err) {
      if (err instanceof MalformedBody) throw new GraphError(400, `(#100) ${err.message}`, 100);
      throw err;
    }
    const caller = authenticate(req, body.fields);
    const parts = rest.split("/").filter(Boolean);
    let out: unknown;
    if (parts.length === 2 && parts[1] === "messages") {
      if (method !== "POST") throw noSuchObject(method === "DELETE" ? "delete" : "get", `${parts[0]}/messages`);
      out = sendMessage(ownedNumber(caller, parts[0] as string, "post"), body.fields);
    } else if (parts.length === 2 && parts[1] === "media") {
      if (method !== "POST") throw noSuchObject("get", `${parts[0]}/media`);
      out = uploadMedia(ownedNumber(caller, parts[0] as string, "post"), body);
    } else if (parts.length === 1) {
      const id = parts[0] as string;
      const m = media.get(id);
      const num = numbers.get(id);
      if (m && m.appId === caller.app_id) {
        if (method === "DELETE") {
          media.delete(id);
          out = { success: true };
        } else if (method === "GET") {
          const pnid = query.get("phone_number_id");
          if (pnid) ownedNumber(caller, pnid, "get");
          out = {
            messaging_product: "whatsapp",
            url: mediaUrl(m),
            mime_type: m.mime,
            sha256: m.sha256,
            file_size: m.data.length,
            id: m.id,
          };
        } else throw noSuchObject("post", id);
      } else if (num && num.app_id === caller.app_id && method === "GET") {
        out = {
          verified_name: num.verified_name,
          code_verification_status: "VERIFIED",
          display_phone_number: `+${num.display_phone_number}`,
          quality_rating: "GREEN",
          platform_type: "CLOUD_API",
          throughput: { level: "STANDARD" },
          id: num.phone_number_id,
        };
      } else throw noSuchObject(method === "POST" ? "post" : method === "DELETE" ? "delete" : "get", id);
    } else {
      throw new GraphError(400, `Unknown path components: /${parts.slice(1).join("/")}`, 2500);
    }
    if (opts.apiLatencyMs) await new Promise((r) => setTimeout(r, opts.apiLatencyMs));
    sendJson(res, 200, out);
  };

  const handleDownload = (req: IncomingMessage, res: ServerResponse, query: URLSearchParams) => {
    const caller = authenticate(req, {});
    const id = query.get("mid") ?? "";
    const ext = query.get("ext") ?? "";
    const hash = Buffer.from(query.get("hash") ?? "");
    const m = media.get(id);
    const expected = Buffer.from(mediaHash(id, ext));
    if (!m || m.appId !== caller.app_id || hash.length !== expected.length || !timingSafeEqual(hash, expected))
      throw new GraphError(404, "The media URL is not valid.", 100, "OAuthException");
    if (Number(ext) * 1000 < now()) throw new GraphError(404, "URL signature expired", 100, "OAuthException");
    if (res.headersSent || res.destroyed) return;
    res.writeHead(200, { "content-type": m.mime, "content-length": String(m.data.length) }).end(m.data);
  };

  // --- the control API ---------------------------------------------------------------------------

  const configureWebhook = async (appId: string, w: { callback_url: string; verify_token: string; fields?: string[] }) => {
    const app = getApp(appId);
    let url: URL;
    try {
      url = new URL(w.callback_url);
      if (url.protocol !== "https:" && url.protocol !== "http:") throw new Error("scheme");
    } catch {
      throw new ControlError(400, "callback_url must be an http(s) URL.");
    }
    if (typeof w.verify_token !== "string" || !w.verify_token) throw new ControlError(400, "verify_token is required.");
    const fields = w.fields ?? ["messages"];
    if (!Array.isArray(fields) || !fields.every((f) => typeof f === "string"))
      throw new ControlError(400, "fields is a list of field names.");
    const challenge = String(randomInt(1_000_000_000, 2_000_000_000));
    url.searchParams.set("hub.mode", "subscribe");
    url.searchParams.set("hub.challenge", challenge);
    url.searchParams.set("hub.verify_token", w.verify_token);
    let status: number | undefined;
    let text = "";
    let error: string | undefined;
    try {
      const res = await fetch(url, { signal: AbortSignal.any([AbortSignal.timeout(10_000), stopping.signal]), redirect: "manual" });
      status = res.status;
      text = (await res.text()).slice(0, 200);
    } catch (err) {
      error = (err as Error).message;
    }
    if (status !== 200 || text.trim() !== challenge)
      throw new ControlError(
        400,
        "The callback URL or verify token couldn't be validated. Please verify the provided information or try again later.",
        { status, body: text, error, expected: challenge },
      );
    app.webhook = { callback_url: w.callback_url, verify_token: w.verify_token, fields };
  };

  const conversation = (pnid: string, waId: string): ConversationEntry[] => {
    const id = normalizeWaId(waId) ?? waId;
    return [...(getNumber(pnid).conversations.get(id)?.log ?? [])];
  };

  const nextBusinessMessage = async (pnid: string, waIdRaw: string, o: { after?: string; timeoutMs?: number } = {}) => {
    const num = getNumber(pnid);
    const waId = normalizeWaId(waIdRaw) ?? waIdRaw;
    const log = () => num.conversations.get(waId)?.log ?? [];
    let from = 0;
    if (o.after) {
      const i = log().findIndex((e) => e.id === o.after);
      if (i < 0) throw new ControlError(404, `No message ${o.after} in the conversation with ${waId}.`);
      from = i + 1;
    } else {
      const inbound = log()
        .map((e) => e.direction)
        .lastIndexOf("inbound");
      from = inbound + 1;
    }
    const timeoutMs = o.timeoutMs ?? 10_000;
    const found = await waiters.until(() => log().find((e, i) => i >= from && e.direction === "outbound"), timeoutMs, stopping.signal);
    if (!found) throw new ControlError(408, `The business sent nothing to ${waId} within ${timeoutMs} ms.`);
    return found;
  };

  const age = (pnid: string, waIdRaw: string, hours: number) => {
    const c = getNumber(pnid).conversations.get(normalizeWaId(waIdRaw) ?? waIdRaw);
    if (!c?.lastInboundAt) throw new ControlError(409, `${waIdRaw} has not written to ${pnid}.`);
    if (!Number.isFinite(hours) || hours < 0) throw new ControlError(400, "hours is a number of hours, 0 or more.");
    c.lastInboundAt -= hours * 3600 * 1000;
    return { last_inbound_at: iso(c.lastInboundAt), window_open: windowOpen(c) };
  };

  const settings = (pnid: string, waIdRaw: string, s: { read_receipts?: boolean }) => {
    const waId = normalizeWaId(waIdRaw);
    if (!waId) throw new ControlError(400, "A WhatsApp user id is a phone number.");
    const c = conversationOf(getNumber(pnid), waId);
    if (typeof s.read_receipts === "boolean") c.readReceipts = s.read_receipts;
  };

  const redeliver = async (id: string): Promise<NotificationAttempt> => {
    const n = notificationsById.get(id);
    if (!n) throw new ControlError(404, `No notification ${id}.`);
    if (!apps.get(n.app_id)?.webhook) throw new ControlError(409, `App ${n.app_id} has no webhook configured.`);
    return track(deliver(n, true));
  };

  const fault = (pnid: string, f: NumberFault) => {
    const num = getNumber(pnid);
    if (!Number.isInteger(f?.code) || f.code <= 0) throw new ControlError(400, "code is a Meta error code (130429, 131000…).");
    num.faults.push({ code: f.code, remaining: Math.max(1, Math.trunc(f.count ?? 1)) });
  };

  const handleControl = async (req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams) => {
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
    const str = (v: unknown) => (typeof v === "string" ? v : undefined);
    const p = path.replace(/\/+$/, "").slice("/__sandbox".length);
    let m: RegExpExecArray | null;
    if (p === "/apps" && method === "POST") return sendJson(res, 201, createApp({ app_secret: str((await readJson()).app_secret) }));
    if (p === "/numbers" && method === "POST") {
      const b = await readJson();
      return sendJson(
        res,
        201,
        createNumber({ app_id: str(b.app_id), display_phone_number: str(b.display_phone_number), verified_name: str(b.verified_name) }),
      );
    }
    m = method === "GET" ? /^\/apps\/(\d+)$/.exec(p) : null;
    if (m) {
      const app = getApp(m[1] as string);
      return sendJson(res, 200, {
        app_id: app.app_id,
        webhook: app.webhook ?? null,
        numbers: [...numbers.values()].filter((n) => n.app_id === app.app_id).map(numberView),
      });
    }
    m = method === "POST" ? /^\/apps\/(\d+)\/numbers$/.exec(p) : null;
    if (m) {
      const b = await readJson();
      return sendJson(
        res,
        201,
        createNumber({ app_id: m[1], display_phone_number: str(b.display_phone_number), verified_name: str(b.verified_name) }),
      );
    }
    m = /^\/apps\/(\d+)\/webhook$/.exec(p);
    if (m) {
      if (method === "DELETE") {
        getApp(m[1] as string).webhook = undefined;
        return sendJson(res, 200, { success: true });
      }
      if (method === "POST") {
        const b = await readJson();
        await configureWebhook(m[1] as string, {
          callback_url: str(b.callback_url) ?? "",
          verify_token: str(b.verify_token) ?? "",
          ...(b.fields !== undefined && { fields: b.fields as string[] }),
        });
        return sendJson(res, 200, { success: true });
      }
    }
    m = method === "GET" ? /^\/apps\/(\d+)\/notifications$/.exec(p) : null;
    if (m) return sendJson(res, 200, getApp(m[1] as string).notifications);
    m = method === "POST" ? /^\/notifications\/(ntf_\d+)\/redeliver$/.exec(p) : null;
    if (m) return sendJson(res, 200, await redeliver(m[1] as string));
    m = method === "POST" ? /^\/numbers\/(\d+)\/users\/([^/]+)\/messages$/.exec(p) : null;
    if (m) {
      const b = await readJson();
      const { profile_name, ...content } = b;
      return sendJson(
        res,
        202,
        await send(m[1] as string, decodeURIComponent(m[2] as string), content as WhatsAppUserContent, { profile_name: str(profile_name) }),
      );
    }
    m = method === "POST" ? /^\/numbers\/(\d+)\/users\/([^/]+)\/age$/.exec(p) : null;
    if (m) {
      const b = await readJson();
      return sendJson(res, 200, age(m[1] as string, decodeURIComponent(m[2] as string), Number(b.hours)));
    }
    m = method === "POST" ? /^\/numbers\/(\d+)\/users\/([^/]+)\/settings$/.exec(p) : null;
    if (m) {
      const b = await readJson();
      settings(m[1] as string, decodeURIComponent(m[2] as string), {
        ...(typeof b.read_receipts === "boolean" && { read_receipts: b.read_receipts }),
      });
      return sendJson(res, 200, { success: true });
    }
    m = method === "GET" ? /^\/numbers\/(\d+)\/conversations\/([^/]+)$/.exec(p) : null;
    if (m) {
      const waId = decodeURIComponent(m[2] as string);
      const c = getNumber(m[1] as string).conversations.get(normalizeWaId(waId) ?? waId);
      return sendJson(res, 200, {
        wa_id: waId,
        last_inbound_at: c?.lastInboundAt !== undefined ? iso(c.lastInboundAt) : null,
        window_open: c ? windowOpen(c) : false,
        messages: conversation(m[1] as string, waId),
      });
    }
    m = method === "GET" ? /^\/numbers\/(\d+)\/conversations\/([^/]+)\/next$/.exec(p) : null;
    if (m) {
      const after = query.get("after");
      return sendJson(
        res,
        200,
        await nextBusinessMessage(m[1] as string, decodeURIComponent(m[2] as string), {
          ...(after && { after }),
          timeoutMs: intParam(query.get("timeout_ms"), 10_000, 0, 120_000),
        }),
      );
    }
    m = method === "POST" ? /^\/numbers\/(\d+)\/faults$/.exec(p) : null;
    if (m) {
      fault(m[1] as string, (await readJson()) as unknown as NumberFault);
      return sendJson(res, 200, { queued: true });
    }
    throw new ControlError(404, `No control route ${method} ${path}.`);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const [path = "/", qs = ""] = (req.url ?? "/").split("?", 2) as [string, string?];
    const query = new URLSearchParams(qs);
    try {
      if (path.startsWith("/__sandbox/")) return await handleControl(req, res, path, query);
      if (path === "/whatsapp_business/attachments/" || path === "/whatsapp_business/attachments") return handleDownload(req, res, query);
      const versioned = /^\/v\d{1,2}\.\d(\/.*)$/.exec(path);
      if (versioned) return await handleGraph(req, res, versioned[1] as string, query);
      if (/^\/v[^/]*\//.test(path)) throw new GraphError(400, `Unknown path components: ${path}`, 2500);
      return await handleGraph(req, res, path, query); // Graph also answers unversioned paths
    } catch (err) {
      if (err instanceof GraphError)
        return sendJson(
          res,
          err.status,
          err.body(),
          err.status === 401 ? { "www-authenticate": 'OAuth "Facebook Platform" "invalid_token"' } : {},
        );
      if (err instanceof ControlError)
        return sendJson(res, err.status, { error: err.message, ...(err.detail !== undefined && { detail: err.detail }) });
      if (err instanceof BodyTooLarge) return sendJson(res, 413, new GraphError(413, "(#100) The request is too large.", 100).body());
      const message = err instanceof Error ? err.message : String(err);
      return sendJson(
        res,
        500,
        new GraphError(500, `An unexpected error has occurred in the WhatsApp sandbox: ${message}`, 2, "OAuthException").body(),
      );
    }
  };

  const server: Server = createServer((req, res) => {
    void handle(req, res);
  });
  server.keepAliveTimeout = 5_000;
  const port = await listenLocal(server, opts.port ?? 0, "WhatsApp sandbox");
  baseUrl = `http://127.0.0.1:${port}`;

  return {
    url: baseUrl,
    createApp,
    createNumber,
    configureWebhook,
    send,
    conversation,
    nextBusinessMessage,
    age,
    settings,
    notifications: (appId) => [...getApp(appId).notifications],
    redeliver,
    fault,
    async stop() {
      stopping.abort();
      for (const t of timers) clearTimeout(t);
      timers.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.allSettled([...inflight]);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// CLI: `tsx dev/sandbox/whatsapp.ts`

if (isMain(import.meta.url)) {
  await runSandboxCli(
    (provider) => startWhatsAppSandbox({ port: Number(process.env.PORT ?? DEFAULT_WHATSAPP_PORT), provider }),
    (sandbox, voiceFrom) => {
      const n = sandbox.createNumber({ verified_name: "Sandbox Demo" });
      return [
        "WhatsApp sandbox (Cloud API stand-in, scripted users) listening.",
        `  API base:        ${sandbox.url}   (what https://graph.facebook.com is; WHATSAPP_API_BASE_URL for the worker)`,
        `  A number:        +${n.display_phone_number}, phone_number_id ${n.phone_number_id}, WABA ${n.waba_id}`,
        `  Access token:    ${n.access_token}`,
        `  App ${n.app_id} secret: ${n.app_secret}`,
        `  Webhook:         curl -X POST ${sandbox.url}/__sandbox/apps/${n.app_id}/webhook -H 'content-type: application/json' -d '{"callback_url":"…","verify_token":"…"}'`,
        `  A user:          curl -X POST ${sandbox.url}/__sandbox/numbers/${n.phone_number_id}/users/15551234567/messages -H 'content-type: application/json' -d '{"text":"Hello"}'`,
        `  Voice from:      ${voiceFrom}`,
      ];
    },
  );
}
