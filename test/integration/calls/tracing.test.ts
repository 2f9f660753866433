// OpenTelemetry export of a real call (docs/calls.md, "Tracing"): a worker of this file's own,
// with OTEL_EXPORTER_OTLP_ENDPOINT at a local receiver, runs a web call; when it ends the receiver
// gets one OTLP/HTTP JSON trace: the call span, a span per reply with its latency parts, and the
// provider spans inside it, with the configured headers and never a secret in the URL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorker } from "../../../dev/stack";
import { createAgent, joinWebCall, speech, WEB_RATE, waitForCall } from "../../support/calls";
import { createWorkspace, json, onWorker, stack } from "../../support/harness";
import { type Receiver, startReceiver } from "../../support/receiver";

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
}

let traced: Awaited<ReturnType<typeof startWorker>>;
let collector: Receiver;

beforeAll(async () => {
  collector = await startReceiver(() => ({ status: 200, body: "{}", headers: { "content-type": "application/json" } }));
  const endpoint = new URL(collector.url).origin;
  [traced] = await Promise.all([
    startWorker({ ...stack().vars, OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_EXPORTER_OTLP_HEADERS: "x-collector-key=k%3Dtest" }),
    speech("Warming up.", WEB_RATE),
  ]);
}, 120_000);

afterAll(async () => {
  await traced?.stop();
  await collector?.stop();
});

const attr = (s: OtlpSpan, key: string) => s.attributes.find((a) => a.key === key)?.value;

describe("a call's trace", () => {
  it("is exported when the call ends: the call span, a turn span per reply with its parts, and the provider spans", async () => {
    const ws = onWorker(await createWorkspace(), traced.baseUrl);
    const agent = await createAgent(ws, { firstMessage: "Hello, this is Acme.", endCallPhrases: ["goodbye"] });
    const { call, webCall } = await json<{ call: { id: string }; webCall: { url: string } }>(
      await ws.api(`/v1/agents/${agent.id}/web-call`, { method: "POST", json: {} }),
    );
    const line = await speech("I would like to book an appointment.", WEB_RATE);
    const client = await joinWebCall(webCall.url);
    await client.waitForEvent((e) => e.type === "transcript" && e.role === "agent");
    await client.played();
    await client.say(line);
    await client.waitForEvent((e) => e.type === "transcript" && e.role === "user");
    const replied = () => client.events.filter((e) => e.type === "transcript" && e.role === "agent").length >= 2;
    for (let i = 0; i < 300 && !replied(); i++) await new Promise((r) => setTimeout(r, 50));
    expect(replied()).toBe(true);
    await client.played();
    client.ws.close();
    await client.closed;
    const done = await waitForCall(ws, call.id, (c) => c.status === "completed");

    const [request] = await collector.waitFor(1, 20_000);
    expect(request?.headers["content-type"]).toBe("application/json");
    expect(request?.headers["x-collector-key"]).toBe("k=test");
    const body = JSON.parse(request?.body ?? "{}") as {
      resourceSpans: Array<{ resource: { attributes: OtlpSpan["attributes"] }; scopeSpans: Array<{ spans: OtlpSpan[] }> }>;
    };
    const resource = body.resourceSpans[0];
    expect(resource?.resource.attributes.find((a) => a.key === "service.name")?.value).toEqual({ stringValue: "voice-agent-platform" });
    const spans = resource?.scopeSpans.flatMap((s) => s.spans) ?? [];
    const root = spans.find((s) => s.name === "call") as OtlpSpan;
    expect(root.traceId).toBe(call.id.replaceAll("-", ""));
    expect(attr(root, "call.id")).toEqual({ stringValue: call.id });
    expect(attr(root, "call.ended_reason")).toEqual({ stringValue: "customer-ended-call" });
    const turns = spans.filter((s) => s.name === "turn");
    const replies = done.transcript.turns.filter((t) => t.latency);
    expect(turns).toHaveLength(replies.length);
    expect(turns.length).toBeGreaterThanOrEqual(1);
    for (const turn of turns) {
      expect(turn.parentSpanId).toBe(root.spanId);
      expect(BigInt(turn.endTimeUnixNano)).toBeGreaterThanOrEqual(BigInt(turn.startTimeUnixNano));
      const children = spans.filter((s) => s.parentSpanId === turn.spanId).map((s) => s.name);
      expect(children).toEqual(expect.arrayContaining(["llm", "tts"]));
    }
    const v2v = turns.map((t) =>
      Number((attr(t, "voice.voice_to_voice_ms") as { intValue?: string; doubleValue?: number })?.intValue ?? 0),
    );
    expect(v2v.sort()).toEqual(replies.map((r) => r.latency?.voiceToVoiceMs).sort());
    expect(request?.body).not.toContain("k=test");
  }, 60_000);
});
