// What a provider's delivery may look like (docs/messaging.md, "What a delivery may look like"):
// an authenticated delivery that does not match the provider's format is acknowledged with 200
// (never retried into a stall), kept as unsupported where it belongs to a conversation, and the
// conversation goes on; bodies must be sent as application/json. The probe's payloads of issue 29.
import { createHmac } from "node:crypto";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { chats, messagingInbound } from "../../../src/db/schema";
import { FIXED_REPLIES } from "../../../src/messaging/conversation";
import { createWorkspace, expectError, request, testDb, until } from "../../support/harness";
import { connectTelegram, connectWhatsApp, telegram, whatsapp } from "../../support/messaging";

let user = 2_000_000 + Math.floor(Math.random() * 1_000_000);
const nextChat = () => ++user;
const nextWaId = () => String(42_700_000_000 + ++user);
const now = () => Math.floor(Date.now() / 1000);

const inboundOf = (channelId: string) => testDb().select().from(messagingInbound).where(eq(messagingInbound.channelId, channelId));
const sessionsOf = (channelId: string) => testDb().select().from(chats).where(eq(chats.channelId, channelId)).orderBy(chats.id);
/** Every stored message of the channel has been answered: what follows is answered after it. */
const allAnswered = async (channelId: string) =>
  until(
    () => inboundOf(channelId),
    (rows) => rows.every((r) => r.status === "done"),
  );
const userTurns = async (channelId: string, count: number) => {
  const [session] = await until(
    () => sessionsOf(channelId),
    (rows) => (rows[0]?.transcript.filter((t) => t.role === "user").length ?? 0) >= count && rows[0]?.transcript.at(-1)?.role === "agent",
  );
  return session?.transcript.filter((t) => t.role === "user").map((t) => [t.kind, t.text]);
};

const tgMessage = (chatId: number, extra: Record<string, unknown> = {}) => ({
  message_id: 1,
  date: now(),
  chat: { id: chatId, type: "private" },
  from: { id: chatId, is_bot: false, first_name: "Ada" },
  text: "x",
  ...extra,
});

/** [case, the update for a chat, kept in that chat's conversation as unsupported]. */
const TELEGRAM_PROBES: Array<[string, (chatId: number) => unknown, boolean]> = [
  ["a message without chat", () => ({ update_id: 9100, message: { message_id: 1, date: 1, text: "x" } }), false],
  ["a message without date", (chatId) => ({ update_id: 9101, message: { ...tgMessage(chatId), date: undefined } }), true],
  ["a date of 1e20", (chatId) => ({ update_id: 9102, message: tgMessage(chatId, { date: 1e20 }) }), true],
  ['"message":"hi"', () => ({ update_id: 9103, message: "hi" }), false],
  ["update_id 1e300", (chatId) => ({ update_id: 1e300, message: tgMessage(chatId) }), false],
  ["update_id -1.5", (chatId) => ({ update_id: -1.5, message: tgMessage(chatId) }), false],
];

describe("Telegram updates of an unexpected shape", () => {
  it.each(TELEGRAM_PROBES)("%s: 200, and the chat's next update is answered", async (_, probe, kept) => {
    const ws = await createWorkspace();
    const { bot, channel } = await connectTelegram(ws);
    const secret = (await telegram.bot(bot)).webhook.secret_token as string;
    const chatId = nextChat();
    const res = await request(`/channels/telegram/${channel.id}`, {
      method: "POST",
      json: probe(chatId),
      headers: { "x-telegram-bot-api-secret-token": secret },
    });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await res.json()).toEqual({ ok: true, stored: kept ? 1 : 0 });
    await allAnswered(channel.id);

    await telegram.send(bot, chatId, { text: "Still there?" });
    const reply = await telegram.next(bot, chatId);
    expect(reply.text?.length).toBeGreaterThan(0);
    expect(reply.text).not.toBe(FIXED_REPLIES.unsupported);
    expect(await userTurns(channel.id, kept ? 2 : 1)).toEqual([...(kept ? [["unsupported", "[message]"]] : []), ["text", "Still there?"]]);
  });
});

describe("text Postgres cannot store, in an authenticated delivery", () => {
  it("a NUL or a lone surrogate in a Telegram message is stored without it (200), not refused into a stall; a stranger is", async () => {
    const ws = await createWorkspace();
    const { bot, channel } = await connectTelegram(ws);
    const secret = (await telegram.bot(bot)).webhook.secret_token as string;
    const chatId = nextChat();
    // JSON.stringify writes both as escapes (\u0000, \ud800), as a provider would.
    const raw = JSON.stringify({ update_id: 9200, message: tgMessage(chatId, { text: "Hi\u0000 there \ud800!" }) });
    expect(raw).toContain("\\u0000");
    const post = (headers: Record<string, string>) =>
      request(`/channels/telegram/${channel.id}`, {
        method: "POST",
        body: raw,
        headers: { "content-type": "application/json", ...headers },
      });
    await expectError(await post({}), 401, "unauthorized");
    const res = await post({ "x-telegram-bot-api-secret-token": secret });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await res.json()).toEqual({ ok: true, stored: 1 });
    expect(await userTurns(channel.id, 1)).toEqual([["text", "Hi there \uFFFD!"]]);
  });
});

/** A notification of `value` for the number, as Meta signs it. */
function signed(appSecret: string, body: unknown) {
  const raw = JSON.stringify(body);
  return { raw, signature: `sha256=${createHmac("sha256", appSecret).update(raw).digest("hex")}` };
}
const waNotification = (entry: unknown) => ({ object: "whatsapp_business_account", entry });
const waValue = (phoneNumberId: string, waId: string, messages: unknown) =>
  waNotification([
    {
      id: "1",
      changes: [
        {
          field: "messages",
          value: {
            messaging_product: "whatsapp",
            metadata: { display_phone_number: "15550001111", phone_number_id: phoneNumberId },
            contacts: [{ profile: { name: "Grace" }, wa_id: waId }],
            messages,
          },
        },
      ],
    },
  ]);
const waText = (waId: string, extra: Record<string, unknown> = {}) => ({
  from: waId,
  id: `wamid.${crypto.randomUUID()}`,
  timestamp: String(now()),
  type: "text",
  text: { body: "x" },
  ...extra,
});

const WHATSAPP_PROBES: Array<[string, (phoneNumberId: string, waId: string) => unknown, boolean]> = [
  ['"entry":5', () => waNotification(5), false],
  ['"changes":[null]', () => waNotification([{ id: "1", changes: [null] }]), false],
  ['"messages":{}', (p, w) => waValue(p, w, {}), false],
  ["messages:[null]", (p, w) => waValue(p, w, [null]), false],
  ["a message without id", (p, w) => waValue(p, w, [waText(w, { id: undefined })]), true],
  ['a timestamp of "100000000000000000000"', (p, w) => waValue(p, w, [waText(w, { timestamp: "100000000000000000000" })]), true],
];

describe("WhatsApp notifications of an unexpected shape", () => {
  it.each(WHATSAPP_PROBES)("%s: 200, and the user's next message is answered", async (_, probe, kept) => {
    const ws = await createWorkspace();
    const { number, channel } = await connectWhatsApp(ws);
    const waId = nextWaId();
    const { raw, signature } = signed(number.app_secret, probe(number.phone_number_id, waId));
    const res = await request(`/channels/whatsapp/${channel.id}`, {
      method: "POST",
      body: raw,
      headers: { "content-type": "application/json", "x-hub-signature-256": signature },
    });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await res.json()).toEqual({ ok: true, stored: kept ? 1 : 0 });
    await allAnswered(channel.id);

    await whatsapp.send(number, waId, { text: "Still there?" });
    const reply = await whatsapp.next(number, waId);
    expect(reply.text?.length).toBeGreaterThan(0);
    expect(reply.text).not.toBe(FIXED_REPLIES.unsupported);
    expect(await userTurns(channel.id, kept ? 2 : 1)).toEqual([...(kept ? [["unsupported", "[message]"]] : []), ["text", "Still there?"]]);
  });
});

describe("deliveries are JSON", () => {
  it("Telegram: refuses a body not sent as application/json (415, after the secret token), takes a charset", async () => {
    const ws = await createWorkspace();
    const { bot, channel } = await connectTelegram(ws);
    const secret = (await telegram.bot(bot)).webhook.secret_token as string;
    const chatId = nextChat();
    const post = (contentType: string, token = secret, updateId = 9200) =>
      request(`/channels/telegram/${channel.id}`, {
        method: "POST",
        body: JSON.stringify({ update_id: updateId, message: tgMessage(chatId, { text: "typed" }) }),
        headers: { "content-type": contentType, "x-telegram-bot-api-secret-token": token },
      });
    await expectError(await post("text/plain"), 415, "unsupported_media_type");
    await expectError(await post("text/plain", "A".repeat(48)), 401, "unauthorized");
    expect(await inboundOf(channel.id)).toHaveLength(0);
    const ok = await post("Application/JSON; charset=utf-8", secret, 9201);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ ok: true, stored: 1 });
  });

  it("WhatsApp: refuses a body not sent as application/json (415, after the signature), takes a charset", async () => {
    const ws = await createWorkspace();
    const { number, channel } = await connectWhatsApp(ws);
    const waId = nextWaId();
    const { raw, signature } = signed(number.app_secret, waValue(number.phone_number_id, waId, [waText(waId)]));
    const post = (contentType: string, sig = signature) =>
      request(`/channels/whatsapp/${channel.id}`, {
        method: "POST",
        body: raw,
        headers: { "content-type": contentType, "x-hub-signature-256": sig },
      });
    await expectError(await post("text/plain"), 415, "unsupported_media_type");
    await expectError(await post("text/plain", signed("not-the-app-secret", JSON.parse(raw)).signature), 401, "unauthorized");
    expect(await inboundOf(channel.id)).toHaveLength(0);
    const ok = await post("application/json; charset=UTF-8");
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ ok: true, stored: 1 });
  });
});
