// The adapters' parsers and checks, without a network: what a Telegram update and a WhatsApp
// notification become, what is not ours to answer, what does not match the provider's format
// (issue 29's probes: never a throw, dropped or kept as unsupported), and the signature check's
// refusals.
import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { redact } from "../../../src/messaging/http";
import { parseTelegramUpdate } from "../../../src/messaging/telegram";
import { parseWhatsAppNotification, verifyWhatsAppSignature } from "../../../src/messaging/whatsapp";

const chat = { id: 42, type: "private" };
const update = (message: Record<string, unknown>) => ({
  update_id: 7,
  message: { message_id: 1, date: 1_700_000_000, chat, from: { id: 42, is_bot: false, first_name: "Ada", last_name: "L" }, ...message },
});
/** The one message an update gives, if any. */
const one = (body: unknown) => {
  const { messages } = parseTelegramUpdate(body);
  expect(messages.length).toBeLessThanOrEqual(1);
  return messages[0] ?? null;
};

describe("Telegram updates", () => {
  it("reads a text, a voice note and anything else as unsupported, named by its kind", () => {
    expect(parseTelegramUpdate(update({ text: "hi ✨" })).problems).toEqual([]);
    expect(one(update({ text: "hi ✨" }))).toEqual({
      externalId: "7",
      seq: 7,
      endUserId: "42",
      message: { kind: "text", text: "hi ✨", userName: "Ada L", sentAt: "2023-11-14T22:13:20.000Z" },
    });
    expect(one(update({ voice: { file_id: "F", mime_type: "audio/ogg", duration: 2 } }))?.message).toMatchObject({
      kind: "voice",
      mediaId: "F",
      mimeType: "audio/ogg",
    });
    expect(one(update({ sticker: { file_id: "S" } }))?.message).toMatchObject({ kind: "unsupported", type: "sticker" });
    expect(one(update({ location: { latitude: 1, longitude: 2 } }))?.message).toMatchObject({
      kind: "unsupported",
      type: "location",
    });
  });

  it("ignores updates without a message, group chats and bots", () => {
    expect(parseTelegramUpdate({ update_id: 1 })).toEqual({ messages: [], problems: [] });
    expect(one(update({ chat: { id: -5, type: "group" }, text: "x" }))).toBeNull();
    expect(one(update({ from: { id: 9, is_bot: true }, text: "x" }))).toBeNull();
  });

  // [case, update, kept as unsupported in chat 42 (else dropped)]; each is reported as a problem.
  const probes: Array<[string, unknown, boolean]> = [
    ["a message without chat", { update_id: 9100, message: { message_id: 1, date: 1, text: "x" } }, false],
    ["a message without date", { update_id: 9100, message: { message_id: 1, chat, text: "x" } }, true],
    ["a date of 1e20", update({ date: 1e20, text: "x" }), true],
    ['"message":"hi"', { update_id: 9100, message: "hi" }, false],
    ["update_id 1e300", { ...update({ text: "x" }), update_id: 1e300 }, false],
    ["update_id -1.5", { ...update({ text: "x" }), update_id: -1.5 }, false],
    ["update_id as a string", { ...update({ text: "x" }), update_id: "7" }, false],
    ["a body that is not an object", "hi", false],
    ["a chat id beyond 2^53", update({ chat: { id: 2 ** 60, type: "private" }, text: "x" }), false],
    ["a voice note without file_id", update({ voice: { duration: 2 } }), true],
  ];
  it.each(probes)("never throws on %s: dropped or kept as unsupported, and says why", (_, body, kept) => {
    const { messages, problems } = parseTelegramUpdate(body);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^[\w.()]+: /);
    if (!kept) expect(messages).toEqual([]);
    else {
      expect(messages).toEqual([
        {
          externalId: expect.any(String),
          seq: expect.any(Number),
          endUserId: "42",
          message: expect.objectContaining({ kind: "unsupported", type: "message" }),
        },
      ]);
      expect(Number.isSafeInteger(messages[0]?.seq)).toBe(true);
      expect(Date.parse(messages[0]?.message.sentAt ?? "")).toBeGreaterThan(Date.now() - 60_000);
    }
  });
});

const notification = (phoneNumberId: string, messages: unknown[], statuses: unknown[] = []) => ({
  object: "whatsapp_business_account",
  entry: [
    {
      id: "waba",
      changes: [
        {
          field: "messages",
          value: {
            metadata: { phone_number_id: phoneNumberId },
            contacts: [{ wa_id: "4915", profile: { name: "Grace" } }],
            messages,
            statuses,
          },
        },
      ],
    },
  ],
});

describe("WhatsApp notifications", () => {
  it("reads the messages addressed to this number, in their kinds", async () => {
    const { messages: parsed, problems } = await parseWhatsAppNotification(
      notification("111", [
        { from: "4915", id: "wamid.A", timestamp: "1700000000", type: "text", text: { body: "Hola" } },
        {
          from: "4915",
          id: "wamid.B",
          timestamp: "1700000001",
          type: "audio",
          audio: { id: "M", mime_type: "audio/ogg; codecs=opus", voice: true },
        },
        { from: "4915", id: "wamid.C", timestamp: "1700000002", type: "sticker", sticker: {} },
      ]),
      "111",
    );
    expect(parsed.map((p) => [p.externalId, p.seq, p.endUserId, p.message.kind, p.message.userName])).toEqual([
      ["wamid.A", 1_700_000_000_000, "4915", "text", "Grace"],
      ["wamid.B", 1_700_000_001_000, "4915", "voice", "Grace"],
      ["wamid.C", 1_700_000_002_000, "4915", "unsupported", "Grace"],
    ]);
    expect(parsed[1]?.message.mediaId).toBe("M");
    expect(problems).toEqual([]);
  });

  it("ignores statuses, another number's messages and other objects", async () => {
    const nothing = { messages: [], problems: [] };
    expect(await parseWhatsAppNotification(notification("111", [], [{ id: "wamid.X", status: "delivered" }]), "111")).toEqual(nothing);
    expect(
      await parseWhatsAppNotification(
        notification("222", [{ from: "1", id: "x", timestamp: "1", type: "text", text: { body: "b" } }]),
        "111",
      ),
    ).toEqual(nothing);
    expect(await parseWhatsAppNotification({ object: "page", entry: [] }, "111")).toEqual(nothing);
    expect(await parseWhatsAppNotification(null, "111")).toEqual(nothing);
  });

  const text = (extra: Record<string, unknown> = {}) => ({
    from: "4915",
    id: "wamid.A",
    timestamp: "1700000000",
    type: "text",
    text: { body: "x" },
    ...extra,
  });
  const withValue = (value: unknown) => ({
    object: "whatsapp_business_account",
    entry: [{ id: "waba", changes: [{ field: "messages", value }] }],
  });
  const { id: _, ...withoutId } = text();
  // [case, notification, messages kept as unsupported for 4915 (else dropped)]; each is reported as a problem.
  const probes: Array<[string, unknown, number]> = [
    ['"entry":5', { object: "whatsapp_business_account", entry: 5 }, 0],
    ['"changes":[null]', { object: "whatsapp_business_account", entry: [{ id: "waba", changes: [null] }] }, 0],
    ["an entry of null", { object: "whatsapp_business_account", entry: [null] }, 0],
    ['"messages":{}', notification("111", {} as unknown[]), 0],
    ["messages:[null]", notification("111", [null]), 0],
    ["a value without metadata", withValue({ messages: [text()] }), 0],
    ["a message without from", notification("111", [text({ from: undefined })]), 0],
    ["a message without id", notification("111", [withoutId]), 1],
    ['a timestamp of "100000000000000000000"', notification("111", [text({ timestamp: "100000000000000000000" })]), 1],
    ['a timestamp of "1e3"', notification("111", [text({ timestamp: "1e3" })]), 1],
    ["a text without its body", notification("111", [text({ text: {} })]), 1],
  ];
  it.each(probes)("never throws on %s: dropped or kept as unsupported, and says why", async (_, body, kept) => {
    const { messages, problems } = await parseWhatsAppNotification(body, "111");
    expect(problems).toHaveLength(1);
    expect(messages).toHaveLength(kept);
    for (const m of messages) {
      expect(m).toMatchObject({ endUserId: "4915", message: { kind: "unsupported", type: "message", userName: "Grace" } });
      expect(m.externalId.length).toBeLessThanOrEqual(512);
      expect(Number.isSafeInteger(m.seq)).toBe(true);
    }
  });

  it("keeps the good messages of a notification with a bad one, and names one without an id the same each time", async () => {
    const body = notification("111", [null, withoutId, text({ id: "wamid.B" })]);
    const first = await parseWhatsAppNotification(body, "111");
    expect(first.messages.map((m) => [m.externalId.startsWith("unreadable:"), m.message.kind])).toEqual([
      [true, "unsupported"],
      [false, "text"],
    ]);
    expect(first.problems).toHaveLength(2);
    const again = await parseWhatsAppNotification(JSON.parse(JSON.stringify(body)), "111");
    expect(again.messages[0]?.externalId).toBe(first.messages[0]?.externalId);
  });

  it("accepts the app secret's signature over the raw bytes and refuses any other", async () => {
    const body = new TextEncoder().encode('{"object":"whatsapp_business_account","x":"\\u00e9"}');
    const good = `sha256=${createHmac("sha256", "app-secret").update(body).digest("hex")}`;
    expect(await verifyWhatsAppSignature("app-secret", body, good)).toBe(true);
    expect(await verifyWhatsAppSignature("app-secret", body, good.toUpperCase().replace("SHA256=", "sha256="))).toBe(true);
    expect(await verifyWhatsAppSignature("other-secret", body, good)).toBe(false);
    expect(await verifyWhatsAppSignature("app-secret", body, undefined)).toBe(false);
    expect(await verifyWhatsAppSignature("app-secret", body, good.slice("sha256=".length))).toBe(false);
    expect(await verifyWhatsAppSignature("app-secret", new Uint8Array([...body, 32]), good)).toBe(false);
  });
});

describe("provider errors", () => {
  it("never carry a bot token or an access token", () => {
    expect(redact("Unauthorized: 123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0 is wrong")).not.toContain("AAHdqTcv");
    expect(redact("Invalid OAuth access token - EAAGm0PX4ZCpsBAKZCh3Zzz")).not.toContain("EAAGm0PX4");
  });
});
