// The calls mapper maps what the calls service read (the row and its usage); it takes no
// database, so the API's and the dashboard's views of a call cannot issue a query of their own.
import { describe, expect, it } from "vitest";
import { toCallView, toPhoneNumberView } from "../../../src/calls/mapper";
import { type CallUsage, emptyUsage } from "../../../src/calls/service";
import type { PhoneNumber } from "../../../src/db/schema";
import { callRow } from "./fixtures";

const at = (iso: string) => new Date(iso);

const call = callRow;

describe("toCallView", () => {
  it("maps a call and its usage into the API's view, without a query", () => {
    const usage: CallUsage = {
      stt: { quantity: 12_340, micro: 1_500 },
      chat: { quantity: 420, micro: 2_500, promptTokens: 400, completionTokens: 20 },
      tts: { quantity: 60, micro: 1_000 },
      embedding: { quantity: 0, micro: 0 },
    };
    const v = toCallView(call(), usage, "https://api.example.com");
    expect(v).toMatchObject({
      id: call().id,
      durationSeconds: 12.3,
      endedReason: "customer-ended-call",
      endedReasonCategory: "none",
      createdAt: "2025-01-01T09:59:58.000Z",
      recording: { url: `https://api.example.com/v1/calls/${call().id}/recording`, durationSeconds: 12 },
      cost: {
        credits: 0.005,
        stt: { quantity: 12.3, unit: "seconds", credits: 0.0015 },
        llm: { quantity: 420, unit: "tokens", credits: 0.0025, promptTokens: 400, completionTokens: 20 },
        tts: { quantity: 60, unit: "characters", credits: 0.001 },
      },
      latency: { turns: 2, voiceToVoiceMsP50: 800, platformMsP50: 250 },
      variables: { name: "Ada" },
      metadata: { ticket: "T-1" },
    });
    expect(v.transcript.turns.map((t) => t.text)).toEqual(["Hello.", "Hi.", "How can I help?"]);
    expect(v).toMatchObject({ toolCallCount: 0, transfer: null });
  });

  it("shows tool turns with their detail, counts them, and shows where a transfer went", () => {
    const tool = {
      callId: "call_1",
      requestId: "0193b6e2-0000-7000-8000-0000000000aa",
      name: "lookup_order",
      arguments: { orderId: "42" },
      outcome: "ok" as const,
      statusCode: 200,
      latencyMs: 120,
      result: '{"status":"shipped"}',
    };
    const transfer = { number: "+14155550100", name: "billing", at: "2025-01-01T10:00:11.000Z" };
    const v = toCallView(
      call({
        endedReason: "transferred",
        transfer,
        transcript: [
          { role: "user", text: "Where is order 42?", startMs: 0, endMs: 900 },
          { role: "tool", text: "lookup_order: ok (120 ms)", startMs: 1_500, endMs: 1_620, tool },
          { role: "agent", text: "It has shipped.", startMs: 1_700, endMs: 2_500 },
        ],
      }),
      undefined,
      "",
    );
    expect(v).toMatchObject({ toolCallCount: 1, transfer, endedReason: "transferred", endedReasonCategory: "none" });
    expect(v.transcript.turns[1]).toEqual({ role: "tool", text: "lookup_order: ok (120 ms)", startMs: 1_500, endMs: 1_620, tool });
    expect(v.transcript.fullText).toBe("User: Where is order 42?\nTool: lookup_order: ok (120 ms)\nAgent: It has shipped.");
  });

  it("a call that used nothing costs nothing, whether its usage is empty or absent", () => {
    const fresh = call({ status: "queued", endedReason: null, startedAt: null, endedAt: null, recordingKey: null, transcript: [] });
    const v = toCallView(fresh, emptyUsage(), "");
    expect(v).toEqual(toCallView(fresh, undefined, ""));
    expect(v).toMatchObject({ durationSeconds: null, endedReason: null, recording: null, latency: null, cost: { credits: 0 } });
  });
});

describe("toPhoneNumberView", () => {
  it("shows the number, never its workspace", () => {
    const row: PhoneNumber = {
      id: "0193b6e2-0000-7000-8000-000000000003",
      organizationId: "0193b6e2-0000-7000-8000-000000000001",
      number: "+14155550100",
      provider: "twilio",
      label: "Sales",
      agentId: null,
      createdAt: at("2025-01-01T00:00:00Z"),
      updatedAt: at("2025-01-02T00:00:00Z"),
    };
    expect(toPhoneNumberView(row)).toEqual({
      id: row.id,
      number: "+14155550100",
      provider: "twilio",
      label: "Sales",
      agentId: null,
      createdAt: "2025-01-01T00:00:00.000Z",
    });
  });
});
