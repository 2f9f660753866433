// A call as webhooks carry it (src/calls/views.ts): the same fields as the API's view for what the
// spec and the docs promise in the payload's `call` (how it ended, where a transfer went), and why
// an ended call has no analysis (docs/calls.md, "Analysis").
import { describe, expect, it } from "vitest";
import { toCallView } from "../../../src/calls/mapper";
import { analysisSkippedOf, callEventData } from "../../../src/calls/views";
import type { Call } from "../../../src/db/schema";
import { buildPayload } from "../../../src/webhooks/payload";
import { callRow } from "./fixtures";

/** A transfer-desk call: no variables, metadata or recording; the caller asks for billing. */
const call = (over: Partial<Call> = {}): Call =>
  callRow({
    variables: {},
    metadata: {},
    transcript: [
      { role: "agent", text: "Hello.", startMs: 0, endMs: 1_000 },
      { role: "user", text: "Hi, I need billing.", startMs: 1_500, endMs: 2_500 },
    ],
    recordingKey: null,
    recordingSeconds: null,
    endedAt: new Date("2025-01-01T10:00:12Z"),
    ...over,
  });

const payloadCall = (c: Call, event = "call.completed") =>
  buildPayload({ deliveryId: "d", event, channel: "voice", timestamp: new Date(0), data: callEventData(c, "https://api.example.com") })
    .call as Record<string, unknown>;

describe("the webhooks' call", () => {
  it("says how a transferred call ended and where to, as the API's view does", () => {
    const transferred = call({
      endedReason: "transferred",
      transfer: { number: "+14155550100", name: "billing", at: "2025-01-01T10:00:11.000Z" },
    });
    const sent = payloadCall(transferred);
    expect(sent).toMatchObject({
      status: "completed",
      endedReason: "transferred",
      endedReasonCategory: "none",
      transfer: { number: "+14155550100", name: "billing", at: "2025-01-01T10:00:11.000Z", outcome: null, connectedSeconds: null },
      analysisSkipped: null,
    });
    // Every field of the payload's call is the API's, value for value.
    const view = toCallView(transferred, undefined, "https://api.example.com") as Record<string, unknown>;
    for (const [k, v] of Object.entries(sent)) expect([k, view[k]]).toEqual([k, v]);
  });

  it("carries the reason on every call.* event: null while the call runs, the fault category once it ended", () => {
    const running = call({ status: "in-progress", endedReason: null, endedAt: null, transcript: [] });
    expect(payloadCall(running, "call.started")).toMatchObject({
      endedReason: null,
      endedReasonCategory: null,
      transfer: null,
      analysisSkipped: null,
    });
    const busy = call({ status: "busy", endedReason: "customer-busy", startedAt: null, transcript: [] });
    expect(payloadCall(busy, "call.failed")).toMatchObject({
      endedReason: "customer-busy",
      endedReasonCategory: "customer",
      analysisSkipped: "not-connected",
    });
  });
});

describe("analysisSkippedOf", () => {
  it("no caller words, no analysis: an empty, interrupted greeting is not a conversation", () => {
    const silent = call({ transcript: [{ role: "agent", text: "", startMs: 0, endMs: 400, interrupted: true }] });
    expect(analysisSkippedOf(silent)).toBe("no-caller-speech");
    expect(analysisSkippedOf(call({ transcript: [] }))).toBe("no-caller-speech");
    expect(analysisSkippedOf(call({ transcript: [{ role: "user", text: "  ", startMs: 0, endMs: 10 }] }))).toBe("no-caller-speech");
    expect(payloadCall(silent)).toMatchObject({ analysisSkipped: "no-caller-speech" });
  });

  it("is null when an analysis is to come, is there, or failed, and while the call runs", () => {
    expect(analysisSkippedOf(call())).toBeNull();
    expect(analysisSkippedOf(call({ analysisError: "The analysis did not validate." }))).toBeNull();
    expect(analysisSkippedOf(call({ analysis: { summary: "s", sentiment: "neutral", topics: [], actionItems: [] } }))).toBeNull();
    expect(analysisSkippedOf(call({ status: "in-progress", endedReason: null, transcript: [] }))).toBeNull();
    expect(analysisSkippedOf(call({ status: "no-answer", startedAt: null, transcript: [] }))).toBe("not-connected");
  });
});
