// The chat read model's mapping (src/chats/mapper.ts): one shape for widget chats and messaging
// sessions, the transcript as the webhooks write it, and the cost in the usage API's units.
import { describe, expect, it } from "vitest";
import { chatCost, chatTranscript, toChatSummary, toChatView } from "../../../src/chats/mapper";
import { chatSchema, chatSummarySchema } from "../../../src/chats/schema";
import { type ChatRow, type ChatUsage, emptyChatUsage } from "../../../src/chats/service";

const T0 = new Date("2026-03-01T10:00:00.000Z");
const T1 = new Date("2026-03-01T10:05:30.250Z");

const widgetRow: ChatRow = {
  id: "0195a1b2-0000-7000-8000-000000000001",
  channel: "widget",
  widgetId: "0195a1b2-0000-7000-8000-0000000000aa",
  channelId: null,
  agentId: "0195a1b2-0000-7000-8000-0000000000bb",
  agentName: "Front desk",
  agentVersion: 3,
  status: "completed",
  endedReason: "visitor-ended",
  endUserId: "v_0123456789abcdef",
  endUserName: null,
  origin: "https://shop.example.test",
  toolCallCount: 0,
  messageCount: 3,
  startedAt: T0,
  endedAt: T1,
  lastActivityAt: T1,
};

const telegramRow: ChatRow = {
  ...widgetRow,
  id: "0195a1b2-0000-7000-8000-000000000002",
  channel: "telegram",
  widgetId: null,
  channelId: null,
  agentId: null,
  status: "in-progress",
  endedReason: null,
  endUserId: "123456789",
  endUserName: "Ada",
  origin: null,
  endedAt: null,
};

const usage: ChatUsage = {
  requests: 3,
  micro: 1_234_567,
  llm: { tokens: 900, promptTokens: 700, completionTokens: 200, micro: 540 },
  stt: { audioMs: 12_345, micro: 1_234_000 },
  tts: { characters: 3, micro: 27 },
};

describe("chat mapper", () => {
  it("shows a widget chat with its visitor and origin, times in ISO 8601, no transcript in the summary", () => {
    const view = toChatSummary(widgetRow, emptyChatUsage());
    expect(view).toMatchObject({
      id: widgetRow.id,
      channel: "widget",
      channelId: widgetRow.widgetId,
      agentName: "Front desk",
      agentVersion: 3,
      status: "completed",
      endedReason: "visitor-ended",
      endUser: { id: "v_0123456789abcdef", name: null, origin: "https://shop.example.test" },
      messageCount: 3,
      startedAt: "2026-03-01T10:00:00.000Z",
      endedAt: "2026-03-01T10:05:30.250Z",
      lastActivityAt: "2026-03-01T10:05:30.250Z",
    });
    expect(view).not.toHaveProperty("transcript");
    expect(chatSummarySchema.strict().parse(view)).toEqual(view);
  });

  it("shows a messaging session with the provider's user, null for a deleted channel and agent, and an open end", () => {
    const view = toChatSummary(telegramRow, emptyChatUsage());
    expect(view).toMatchObject({
      channel: "telegram",
      channelId: null,
      agentId: null,
      agentName: "Front desk",
      status: "in-progress",
      endedReason: null,
      endedAt: null,
      endUser: { id: "123456789", name: "Ada", origin: null },
    });
  });

  it("sums money as the usage API does (credits and micro-credits) and audio in seconds", () => {
    expect(chatCost(usage)).toEqual({
      credits: 1.234567,
      micro: 1_234_567,
      requests: 3,
      llm: { quantity: 900, unit: "tokens", credits: 0.00054, promptTokens: 700, completionTokens: 200 },
      stt: { quantity: 12.3, unit: "seconds", credits: 1.234 },
      tts: { quantity: 3, unit: "characters", credits: 0.000027 },
    });
    expect(chatCost(emptyChatUsage())).toMatchObject({ credits: 0, micro: 0, requests: 0 });
  });

  it("writes the transcript as the webhooks do, keeping what a messaging turn adds", () => {
    const transcript = chatTranscript([
      { role: "agent", text: "Hi! Ask me anything.", at: "2026-03-01T10:00:00.000Z" },
      { role: "user", text: "[sticker]", at: "2026-03-01T10:00:01.000Z", kind: "unsupported" },
      { role: "user", text: "Do you ship to Norway?", at: "2026-03-01T10:00:02.000Z", kind: "voice" },
      { role: "agent", text: "Yes.", at: "2026-03-01T10:00:03.000Z", undelivered: "outside the 24-hour window" },
    ]);
    expect(transcript.fullText).toBe("Agent: Hi! Ask me anything.\nUser: [sticker]\nUser: Do you ship to Norway?\nAgent: Yes.");
    expect(transcript.turns).toEqual([
      { role: "agent", text: "Hi! Ask me anything.", at: "2026-03-01T10:00:00.000Z" },
      { role: "user", text: "[sticker]", at: "2026-03-01T10:00:01.000Z", kind: "unsupported" },
      { role: "user", text: "Do you ship to Norway?", at: "2026-03-01T10:00:02.000Z", kind: "voice" },
      { role: "agent", text: "Yes.", at: "2026-03-01T10:00:03.000Z", undelivered: "outside the 24-hour window" },
    ]);
    expect(chatTranscript([])).toEqual({ fullText: "", turns: [] });
  });

  it("gives one chat its summary, cost and transcript, in the documented shape", () => {
    const turns = [{ role: "user" as const, text: "Hello", at: "2026-03-01T10:00:00.000Z" }];
    const view = toChatView(widgetRow, usage, turns);
    expect(view).toEqual({ ...toChatSummary(widgetRow, usage), transcript: chatTranscript(turns) });
    expect(chatSchema.strict().parse(view)).toEqual(view);
  });
});
