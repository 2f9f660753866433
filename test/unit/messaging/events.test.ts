// A messaging conversation's webhook data: the chat object, the transcript with the kinds of the
// end user's turns, the metadata, and Custom fields shaping it like any chat event.
import { describe, expect, it } from "vitest";
import { chatEventData } from "../../../src/chats/runtime";
import type { Chat } from "../../../src/db/schema";
import { buildPayload, LEAF_PATHS, shapePayload } from "../../../src/webhooks/payload";

const session: Chat = {
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
    { role: "user", text: "Book a table", at: "2026-01-01T00:00:05.000Z", kind: "voice" },
    { role: "user", text: "[sticker]", at: "2026-01-01T00:00:09.000Z", kind: "unsupported" },
  ],
  messageCount: 4,
  toolCallCount: 0,
  startedAt: new Date("2026-01-01T00:00:00Z"),
  lastActivityAt: new Date("2026-01-01T00:00:09Z"),
  endedAt: new Date("2026-01-01T00:30:09Z"),
  createdAt: new Date(),
  updatedAt: new Date(),
};

describe("messaging event data", () => {
  const full = buildPayload({
    deliveryId: "d",
    event: "whatsapp.completed",
    channel: "whatsapp",
    timestamp: new Date("2026-01-01T00:31:00Z"),
    data: chatEventData(session, true),
  });

  it("carries the chat object, the transcript with turn kinds, and the metadata", () => {
    expect(full).toMatchObject({
      channel: "whatsapp",
      chat: {
        id: session.id,
        status: "completed",
        agentId: "a",
        channelId: "c",
        endUserId: "4915112345678",
        endUserName: "Grace",
        messageCount: 4,
      },
      transcript: {
        fullText: "User: Hola\nAgent: Hi Grace\nUser: Book a table\nUser: [sticker]",
        turns: [
          { role: "user", text: "Hola" },
          { role: "agent", text: "Hi Grace" },
          { role: "user", text: "Book a table", kind: "voice" },
          { role: "user", text: "[sticker]", kind: "unsupported" },
        ],
      },
      metadata: { channelId: "c", channelType: "whatsapp", endUserId: "4915112345678", endedReason: "inactivity" },
    });
    expect(full).not.toHaveProperty("call");
    expect((full.transcript as { turns: object[] }).turns[0]).not.toHaveProperty("kind");
    expect(chatEventData(session, false).transcript).toBeNull();
  });

  it("is shaped by Custom fields like any chat event", () => {
    for (const path of ["chat.endUserId", "chat.endUserName", "chat.channelId"]) expect(LEAF_PATHS).toContain(path);
    expect(shapePayload(full, ["chat.endUserName", "transcript.fullText"])).toEqual({
      deliveryId: "d",
      event: "whatsapp.completed",
      timestamp: "2026-01-01T00:31:00.000Z",
      chat: { endUserName: "Grace" },
      transcript: { fullText: "User: Hola\nAgent: Hi Grace\nUser: Book a table\nUser: [sticker]" },
    });
  });
});
