// The messaging sandboxes' control APIs (docs/sandbox.md), as the tests drive them: a Telegram
// bot and a WhatsApp number of the sandboxes, channels connected to them through /v1/channels,
// end users who send messages, and reads of what the business answered.
import { expect } from "vitest";
import { stack, type Workspace } from "./harness";

const PERSONA = "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77";
const telegramBase = () => stack().vars.TELEGRAM_API_BASE_URL as string;
const whatsappBase = () => stack().vars.WHATSAPP_API_BASE_URL as string;

async function control<T>(base: string, path: string, body?: unknown, method = body === undefined ? "GET" : "POST"): Promise<T> {
  const res = await fetch(`${base}/__sandbox${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`sandbox ${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

export async function createAgent(ws: Workspace, body: Record<string, unknown> = {}): Promise<{ id: string; name: string }> {
  const res = await ws.api("/v1/agents", {
    method: "POST",
    json: { name: "Messaging agent", personaId: PERSONA, systemPrompt: "You help {{user_name}} on {{channel}}.", ...body },
  });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string; name: string };
}

// Telegram

export interface SandboxBot {
  id: number;
  token: string;
  username: string;
}
export const newBot = () => control<SandboxBot>(telegramBase(), "/bots", { first_name: "Test bot" });

export interface TelegramLogEntry {
  from: "user" | "bot";
  kind: string;
  text?: string;
  message_id?: number;
  update_id?: number;
}

export const telegram = {
  send: (bot: SandboxBot, userId: number, message: Record<string, unknown>) =>
    control<{ update_id: number }>(telegramBase(), `/bots/${bot.id}/users/${userId}/messages`, message),
  redeliver: (bot: SandboxBot, updateId: number) => control<unknown>(telegramBase(), `/bots/${bot.id}/updates/${updateId}/redeliver`, {}),
  chat: (bot: SandboxBot, chatId: number) => control<{ messages: TelegramLogEntry[] }>(telegramBase(), `/bots/${bot.id}/chats/${chatId}`),
  /** The bot's next message in the chat after the user's last one (or after message `after`). */
  next: (bot: SandboxBot, chatId: number, after?: number, timeoutMs = 20_000) =>
    control<TelegramLogEntry>(
      telegramBase(),
      `/bots/${bot.id}/chats/${chatId}/next?timeout_ms=${timeoutMs}${after !== undefined ? `&after=${after}` : ""}`,
    ),
  bot: (bot: SandboxBot) => control<{ webhook: { url: string; secret_token?: string } }>(telegramBase(), `/bots/${bot.id}`),
  revoke: (bot: SandboxBot) => control<unknown>(telegramBase(), `/bots/${bot.id}`, undefined, "DELETE"),
  url: telegramBase,
};

// WhatsApp

export interface SandboxNumber {
  phone_number_id: string;
  display_phone_number: string;
  access_token: string;
  app_id: string;
  app_secret: string;
}
export const newNumber = () => control<SandboxNumber>(whatsappBase(), "/numbers", {});

export interface WhatsAppLogEntry {
  direction: "inbound" | "outbound";
  id: string;
  type: string;
  text?: string;
  message?: { text?: { body?: string } };
}

export const whatsapp = {
  subscribe: (number: SandboxNumber, callbackUrl: string, verifyToken: string) =>
    control<{ success: boolean }>(whatsappBase(), `/apps/${number.app_id}/webhook`, {
      callback_url: callbackUrl,
      verify_token: verifyToken,
    }),
  send: (number: SandboxNumber, waId: string, message: Record<string, unknown>) =>
    control<{ id: string; notification_id: string }>(whatsappBase(), `/numbers/${number.phone_number_id}/users/${waId}/messages`, message),
  redeliver: (notificationId: string) => control<unknown>(whatsappBase(), `/notifications/${notificationId}/redeliver`, {}),
  conversation: (number: SandboxNumber, waId: string) =>
    control<{ messages: WhatsAppLogEntry[] }>(whatsappBase(), `/numbers/${number.phone_number_id}/conversations/${waId}`),
  next: (number: SandboxNumber, waId: string, timeoutMs = 20_000) =>
    control<WhatsAppLogEntry>(whatsappBase(), `/numbers/${number.phone_number_id}/conversations/${waId}/next?timeout_ms=${timeoutMs}`),
  notifications: (number: SandboxNumber) =>
    control<Array<{ id: string; body: unknown; signature: string; state: string }>>(whatsappBase(), `/apps/${number.app_id}/notifications`),
  url: whatsappBase,
};

export interface ChannelView {
  id: string;
  type: "telegram" | "whatsapp";
  name: string;
  agentId: string;
  agentVersion: number | null;
  status: string;
  info: Record<string, string>;
  webhookUrl: string;
  idleTimeoutSeconds: number;
}

export async function connectTelegram(ws: Workspace, opts: { agentId?: string; agentVersion?: number; idleTimeoutSeconds?: number } = {}) {
  const bot = await newBot();
  const agentId = opts.agentId ?? (await createAgent(ws)).id;
  const res = await ws.api("/v1/channels", {
    method: "POST",
    json: {
      type: "telegram",
      name: "Support bot",
      agentId,
      credentials: { botToken: bot.token },
      ...(opts.idleTimeoutSeconds ? { idleTimeoutSeconds: opts.idleTimeoutSeconds } : {}),
      ...(opts.agentVersion ? { agentVersion: opts.agentVersion } : {}),
    },
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return { bot, channel: (await res.json()) as ChannelView, agentId };
}

export const VERIFY_TOKEN = "verify-token-of-the-test";

export async function connectWhatsApp(ws: Workspace, opts: { agentId?: string } = {}) {
  const number = await newNumber();
  const agentId = opts.agentId ?? (await createAgent(ws)).id;
  const res = await ws.api("/v1/channels", {
    method: "POST",
    json: {
      type: "whatsapp",
      name: "WhatsApp line",
      agentId,
      credentials: {
        phoneNumberId: number.phone_number_id,
        accessToken: number.access_token,
        appSecret: number.app_secret,
        verifyToken: VERIFY_TOKEN,
      },
    },
  });
  expect(res.status, await res.clone().text()).toBe(201);
  const channel = (await res.json()) as ChannelView;
  expect((await whatsapp.subscribe(number, channel.webhookUrl, VERIFY_TOKEN)).success).toBe(true);
  return { number, channel, agentId };
}
