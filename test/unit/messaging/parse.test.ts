// The adapters' parsers and checks, without a network: what a Telegram update and a WhatsApp
// notification become, what is not ours to answer, and the signature check's refusals.
import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { redact } from "../../../src/messaging/http";
import { parseTelegramUpdate } from "../../../src/messaging/telegram";
import { parseWhatsAppNotification, verifyWhatsAppSignature } from "../../../src/messaging/whatsapp";

const chat = { id: 42, type: "private" };
const update = (message: Record<string, unknown>) => ({
  update_id: 7,
  message: { message_id: 1, date: 1_700_000_000, chat, from: { id: 42, first_name: "Ada", last_name: "L" }, ...message },
});

describe("Telegram updates", () => {
  it("reads a text, a voice note and anything else as unsupported, named by its kind", () => {
    expect(parseTelegramUpdate(update({ text: "hi ✨" }))).toEqual({
      externalId: "7",
      seq: 7,
      endUserId: "42",
      message: { kind: "text", text: "hi ✨", userName: "Ada L", sentAt: "2023-11-14T22:13:20.000Z" },
    });
    expect(parseTelegramUpdate(update({ voice: { file_id: "F", mime_type: "audio/ogg", duration: 2 } }))?.message).toMatchObject({
      kind: "voice",
      mediaId: "F",
      mimeType: "audio/ogg",
    });
    expect(parseTelegramUpdate(update({ sticker: { file_id: "S" } }))?.message).toMatchObject({ kind: "unsupported", type: "sticker" });
    expect(parseTelegramUpdate(update({ location: { latitude: 1, longitude: 2 } }))?.message).toMatchObject({
      kind: "unsupported",
      type: "location",
    });
  });

  it("ignores updates without a message, group chats and bots", () => {
    expect(parseTelegramUpdate({ update_id: 1 })).toBeNull();
    expect(parseTelegramUpdate(update({ chat: { id: -5, type: "group" }, text: "x" }))).toBeNull();
    expect(parseTelegramUpdate(update({ from: { id: 9, is_bot: true }, text: "x" }))).toBeNull();
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
  it("reads the messages addressed to this number, in their kinds", () => {
    const parsed = parseWhatsAppNotification(
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
  });

  it("ignores statuses, another number's messages and other objects", () => {
    expect(parseWhatsAppNotification(notification("111", [], [{ id: "wamid.X", status: "delivered" }]), "111")).toEqual([]);
    expect(
      parseWhatsAppNotification(notification("222", [{ from: "1", id: "x", timestamp: "1", type: "text", text: { body: "b" } }]), "111"),
    ).toEqual([]);
    expect(parseWhatsAppNotification({ object: "page", entry: [] }, "111")).toEqual([]);
    expect(parseWhatsAppNotification(null, "111")).toEqual([]);
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
