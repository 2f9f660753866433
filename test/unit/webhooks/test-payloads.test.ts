// Send Test's synthetic payloads (src/webhooks/test-payloads.ts): one for every event the platform
// sends, built by the real mappers from a call or chat as it stands when that event fires, and each
// valid against the schema the OpenAPI document declares for its event (and, shaped, against the
// `custom` mode's). Real deliveries are held to the same document in
// test/integration/webhooks/payloads.test.ts.
import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/app";
import { openApiDocument } from "../../../src/routes/public/openapi";
import { PLATFORM_EVENTS, payloadChannel } from "../../../src/webhooks/events";
import { buildPayload, LEAF_PATHS, shapePayload } from "../../../src/webhooks/payload";
import { DEFAULT_TEST_EVENT, TEST_EVENTS, testEventData } from "../../../src/webhooks/test-payloads";
import { contractOf } from "../../support/openapi";

const contract = contractOf(openApiDocument(createApp(), "/"));
const NOW = new Date("2026-01-15T09:30:00.000Z");

const payloadOf = (event: string) =>
  buildPayload({
    deliveryId: "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77",
    event,
    channel: payloadChannel(event),
    timestamp: NOW,
    data: testEventData(event, NOW),
  }) as unknown as Record<string, unknown> & Partial<Record<"call" | "chat" | "transcript" | "metadata", Record<string, unknown> | null>>;

describe("Send Test's events", () => {
  it("are every event the platform sends, call.completed first offered by default", () => {
    expect(TEST_EVENTS).toEqual([...PLATFORM_EVENTS]);
    expect(TEST_EVENTS).toEqual([
      "call.started",
      "call.completed",
      "call.failed",
      "call.analyzed",
      "campaign.started",
      "campaign.completed",
      "widget.started",
      "widget.completed",
      "whatsapp.started",
      "whatsapp.completed",
      "telegram.started",
      "telegram.completed",
      "test_run.completed",
    ]);
    expect(DEFAULT_TEST_EVENT).toBe("call.completed");
  });

  it.each(TEST_EVENTS)("%s: its payload validates against the document's schema for the event, full and custom", (event) => {
    const payload = payloadOf(event);
    expect(contract.checkWebhook(event, payload)).toEqual([]);
    expect(contract.checkWebhook(event, shapePayload(payload as never, LEAF_PATHS), "custom")).toEqual([]);
    // The document's schemas are strict: a payload of another event does not pass as this one.
    const other = TEST_EVENTS.find((e) => e !== event) as string;
    expect(contract.checkWebhook(other, payload)).not.toEqual([]);
  });

  it("refuses an event the platform does not send", () => {
    for (const event of ["chat.started", "sms.started", "messenger.completed", "call.exploded", ""])
      expect(() => testEventData(event)).toThrow(/no payload/);
  });
});

describe("each payload is where its event fires", () => {
  it("call.started: connected, not ended, nothing said yet", () => {
    const p = payloadOf("call.started");
    expect(p.call).toMatchObject({ status: "in-progress", startedAt: NOW.toISOString(), endedAt: null, endedReason: null });
    expect(p.call?.analysisSkipped).toBeNull();
    expect(p.transcript).toEqual({ fullText: "", turns: [] });
    expect([p.analysis, p.report, p.recording]).toEqual([null, null, null]);
  });

  it("call.completed: a short conversation, ended by the callee, its analysis to come", () => {
    const p = payloadOf("call.completed");
    expect(p.call).toMatchObject({
      status: "completed",
      durationSeconds: 42,
      endedReason: "customer-ended-call",
      endedReasonCategory: "none",
      analysisSkipped: null,
    });
    expect(p.transcript?.fullText).toBe("Agent: Hello, this is a test call.\nUser: Thanks, the webhook works.\nAgent: Great. Goodbye!");
    expect(p.analysis).toBeNull();
    expect(p.metadata).toEqual({ test: true });
  });

  it("call.failed: never connected (busy), so no analysis follows", () => {
    const p = payloadOf("call.failed");
    expect(p.call).toMatchObject({ status: "busy", endedReason: "customer-busy", endedReasonCategory: "customer", startedAt: null });
    expect(p.call?.analysisSkipped).toBe("not-connected");
    expect(p.call?.durationSeconds).toBeNull();
  });

  it("call.analyzed: the completed call with its analysis and report", () => {
    const p = payloadOf("call.analyzed");
    expect(p.call?.status).toBe("completed");
    expect(p.analysis).toMatchObject({ sentiment: "positive" });
    expect(p.report).toMatchObject({ successScore: 1, extractedData: { confirmed: true } });
  });

  it("chats: started without a transcript, completed with it; a widget's metadata and a messaging channel's", () => {
    const started = payloadOf("widget.started");
    expect(started.chat).toMatchObject({ status: "in-progress", endedAt: null, messageCount: 2, endUserName: null });
    expect(started.transcript).toBeNull();
    expect(started.metadata).toMatchObject({ visitorId: "test-visitor", origin: "https://www.example.com" });
    expect("call" in started).toBe(false);

    const done = payloadOf("telegram.completed");
    expect(done.channel).toBe("telegram");
    expect(done.chat).toMatchObject({ status: "completed", endedAt: NOW.toISOString(), messageCount: 3, endUserName: "Test User" });
    expect(done.transcript?.fullText).toBe("User: Is the webhook working?\nAgent: Yes: this is a test message.\nUser: Thanks!");
    expect(done.metadata).toMatchObject({ channelType: "telegram", endedReason: "inactivity" });
    expect(payloadOf("whatsapp.started").metadata).toMatchObject({ channelType: "whatsapp", endUserId: "15550100002" });
  });

  it("each call or chat is a new one (its own id)", () => {
    expect(payloadOf("call.completed").call?.id).not.toBe(payloadOf("call.completed").call?.id);
    expect(payloadOf("widget.completed").chat?.id).not.toBe(payloadOf("widget.completed").chat?.id);
  });
});
