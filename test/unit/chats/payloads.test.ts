// The bytes of each chat event's payload as sent today, key order included: `*.started` and
// `*.completed` of a widget chat and of a messaging conversation, built as src/webhooks/deliver.ts
// builds them. A change of the chat runtime (one conversation model for every channel, issue 30)
// must leave these strings as they are; `toEqual` elsewhere does not see key order.
import { describe, expect, it } from "vitest";
import { chatEventData } from "../../../src/chats/runtime";
import type { Chat } from "../../../src/db/schema";
import { payloadChannel } from "../../../src/webhooks/events";
import { buildPayload } from "../../../src/webhooks/payload";

const at = new Date("2026-01-01T00:40:00Z");
const payload = (event: string, data: ReturnType<typeof chatEventData>) =>
  JSON.stringify(buildPayload({ deliveryId: "d", event, channel: payloadChannel(event), timestamp: at, data }));

const conversation: Chat = {
  id: "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77",
  organizationId: "o",
  channel: "whatsapp",
  widgetId: null,
  channelId: "c",
  agentId: "a",
  agentName: "Desk",
  agentVersion: 1,
  endUserId: "4915112345678",
  endUserName: "Grace",
  origin: null,
  status: "completed",
  endedReason: "inactivity",
  transcript: [
    { role: "user", text: "Hola", at: "2026-01-01T00:00:00.000Z", kind: "text" },
    { role: "agent", text: "Hi Grace", at: "2026-01-01T00:00:01.000Z" },
  ],
  messageCount: 2,
  toolCallCount: 0,
  startedAt: new Date("2026-01-01T00:00:00Z"),
  lastActivityAt: new Date("2026-01-01T00:00:09Z"),
  endedAt: new Date("2026-01-01T00:30:09Z"),
  createdAt: new Date(0),
  updatedAt: new Date(0),
};

const widgetChat: Chat = {
  id: "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b78",
  organizationId: "o",
  channel: "widget",
  widgetId: "w",
  channelId: null,
  agentId: "a",
  agentName: "Desk",
  agentVersion: 1,
  endUserId: "v_12345678",
  endUserName: null,
  origin: "https://shop.example",
  status: "completed",
  endedReason: "inactivity",
  transcript: [
    { role: "agent", text: "Hi", at: "2026-01-01T00:00:00.000Z" },
    { role: "user", text: "Hello", at: "2026-01-01T00:00:01.000Z" },
  ],
  messageCount: 2,
  toolCallCount: 0,
  startedAt: new Date("2026-01-01T00:00:00Z"),
  lastActivityAt: new Date("2026-01-01T00:01:00Z"),
  endedAt: new Date("2026-01-01T00:31:00Z"),
  createdAt: new Date(0),
  updatedAt: new Date(0),
};

const open = { status: "in-progress", endedReason: null, endedAt: null } as const;

describe("chat event payloads, byte for byte", () => {
  it("a messaging conversation's started and completed", () => {
    expect(payload("whatsapp.started", chatEventData({ ...conversation, ...open }, false))).toBe(
      '{"deliveryId":"d","event":"whatsapp.started","channel":"whatsapp","timestamp":"2026-01-01T00:40:00.000Z","chat":{"id":"0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77","status":"in-progress","agentId":"a","agentName":"Desk","agentVersion":1,"startedAt":"2026-01-01T00:00:00.000Z","endedAt":null,"messageCount":2,"channelId":"c","endUserId":"4915112345678","endUserName":"Grace"},"transcript":null,"recording":null,"analysis":null,"report":null,"metadata":{"channelId":"c","channelType":"whatsapp","endUserId":"4915112345678"}}',
    );
    expect(payload("whatsapp.completed", chatEventData(conversation, true))).toBe(
      '{"deliveryId":"d","event":"whatsapp.completed","channel":"whatsapp","timestamp":"2026-01-01T00:40:00.000Z","chat":{"id":"0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77","status":"completed","agentId":"a","agentName":"Desk","agentVersion":1,"startedAt":"2026-01-01T00:00:00.000Z","endedAt":"2026-01-01T00:30:09.000Z","messageCount":2,"channelId":"c","endUserId":"4915112345678","endUserName":"Grace"},"transcript":{"fullText":"User: Hola\\nAgent: Hi Grace","turns":[{"role":"user","text":"Hola"},{"role":"agent","text":"Hi Grace"}]},"recording":null,"analysis":null,"report":null,"metadata":{"channelId":"c","channelType":"whatsapp","endUserId":"4915112345678","endedReason":"inactivity"}}',
    );
  });

  it("a widget chat's started and completed", () => {
    expect(payload("widget.started", chatEventData({ ...widgetChat, ...open }, false))).toBe(
      '{"deliveryId":"d","event":"widget.started","channel":"widget","timestamp":"2026-01-01T00:40:00.000Z","chat":{"id":"0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b78","status":"in-progress","agentId":"a","agentName":"Desk","agentVersion":1,"startedAt":"2026-01-01T00:00:00.000Z","endedAt":null,"messageCount":2,"channelId":"w","endUserId":"v_12345678","endUserName":null},"transcript":null,"recording":null,"analysis":null,"report":null,"metadata":{"widgetId":"w","visitorId":"v_12345678","origin":"https://shop.example"}}',
    );
    expect(payload("widget.completed", chatEventData(widgetChat, true))).toBe(
      '{"deliveryId":"d","event":"widget.completed","channel":"widget","timestamp":"2026-01-01T00:40:00.000Z","chat":{"id":"0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b78","status":"completed","agentId":"a","agentName":"Desk","agentVersion":1,"startedAt":"2026-01-01T00:00:00.000Z","endedAt":"2026-01-01T00:31:00.000Z","messageCount":2,"channelId":"w","endUserId":"v_12345678","endUserName":null},"transcript":{"fullText":"Agent: Hi\\nUser: Hello","turns":[{"role":"agent","text":"Hi"},{"role":"user","text":"Hello"}]},"recording":null,"analysis":null,"report":null,"metadata":{"widgetId":"w","visitorId":"v_12345678","origin":"https://shop.example","endedReason":"inactivity"}}',
    );
  });
});
