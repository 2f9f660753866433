// constructEvent on real deliveries of the worker (a whole phone call's events, a widget chat's,
// Send Test), received by a local receiver exactly as sent; and the refusals: a tampered body, a
// stale timestamp, a wrong or rotated secret, a missing or malformed header, a parsed body.
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { constructEvent, type WebhookEvent, WebhookVerificationError } from "../../../packages/sdk/src/index";
import { parseWav } from "../../../src/lib/audio";
import { CONVERSATION } from "../../support/callees";
import { speech, WEB_RATE } from "../../support/calls";
import { createWorkspace } from "../../support/harness";
import { type Received, type Receiver, startReceiver } from "../../support/receiver";
import { PERSONA, sdkFor } from "../../support/sdk";
import { SITE, visitor, chat as widgetChat } from "../../support/widgets";

const receivers: Receiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.stop()));
});
const receiver = async () => {
  const r = await startReceiver();
  receivers.push(r);
  return r;
};

const header = (r: Received) => String(r.headers["x-service-signature"]);

/** The rejection of constructEvent, which must be a WebhookVerificationError. */
async function refusal(promise: Promise<WebhookEvent>): Promise<string> {
  const err = await promise.then(
    () => {
      throw new Error("constructEvent accepted the delivery");
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WebhookVerificationError);
  return (err as Error).message;
}

// The callee speaks first after 3 s of silence: warm the sandbox's speech thread, as the call tests do.
beforeAll(async () => {
  await speech("Warming up.", WEB_RATE);
}, 30_000);

describe("SDK webhooks: constructEvent", () => {
  it("verifies every delivery of a whole phone call and returns typed events; the call's recording comes as WAV bytes", async () => {
    const client = sdkFor(await createWorkspace());
    const r = await receiver();
    const endpoint = await client.webhookEndpoints.create({ name: "Calls", url: r.url, channels: ["voice"], events: "all" });
    const agent = await client.agents.create({
      name: "Dental desk",
      personaId: PERSONA,
      llmModel: "sandbox-chat",
      endCallPhrases: ["goodbye"],
      analysisPlan: { successCriteria: ["The caller asked for an appointment"] },
    });
    const call = await client.calls.create(agent.id, { phoneNumber: CONVERSATION });

    const got = await r.waitFor(3, 60_000);
    const events: WebhookEvent[] = [];
    for (const delivery of got) {
      const event = await constructEvent(delivery.body, header(delivery), endpoint.secret);
      expect(event.deliveryId).toBe(delivery.headers["x-service-delivery-id"]);
      expect(event.event).toBe(delivery.headers["x-service-event"]);
      // The same delivery as a Node Buffer and as an ArrayBuffer.
      const bytes = Buffer.from(delivery.body, "utf8");
      expect(await constructEvent(bytes, header(delivery), endpoint.secret)).toEqual(event);
      expect(await constructEvent(new Uint8Array(bytes).buffer, header(delivery), endpoint.secret)).toEqual(event);
      events.push(event);
    }
    expect(events.map((e) => e.event)).toEqual(["call.started", "call.completed", "call.analyzed"]);
    for (const event of events) {
      if (event.channel !== "voice") throw new Error(`a voice event on channel ${event.channel}`);
      expect(event.call?.id).toBe(call.id); // narrowed: voice events carry `call`
    }
    const analyzed = events[2];
    if (analyzed?.event !== "call.analyzed") throw new Error("no call.analyzed");
    expect(analyzed.analysis?.summary).toEqual(expect.any(String));
    expect(analyzed.transcript?.turns.length).toBeGreaterThan(2);

    const recording = await client.calls.recording(call.id);
    expect(parseWav(recording)?.durationSeconds).toBeGreaterThan(3);
  }, 90_000);

  it("verifies a widget chat's widget.started, typed with its chat", async () => {
    const client = sdkFor(await createWorkspace());
    const r = await receiver();
    const endpoint = await client.webhookEndpoints.create({ name: "Widget", url: r.url, channels: ["widget"], events: ["widget.started"] });
    const agent = await client.agents.create({ name: "Site agent", personaId: PERSONA, llmModel: "sandbox-chat" });
    const widget = await client.widgets.create({ agentId: agent.id, name: "Shop", allowedOrigins: [SITE] });
    const reply = await widgetChat(widget.token, { visitorId: visitor(), message: "Hello" });
    const [delivery] = await r.waitFor(1);
    if (!delivery) throw new Error("no delivery");
    const event = await constructEvent(delivery.body, header(delivery), endpoint.secret);
    if (event.event !== "widget.started") throw new Error(`got ${event.event}`);
    expect(event.channel).toBe("widget");
    expect(event.chat?.id).toBe(reply.sessionId);
    expect(event.chat?.channelId).toBe(widget.id);
  });

  it("refuses tampered, stale, wrong-secret and rotated-secret deliveries, and malformed input", async () => {
    const client = sdkFor(await createWorkspace());
    const r = await receiver();
    const endpoint = await client.webhookEndpoints.create({ name: "Hooks", url: r.url, channels: ["voice"] });
    const other = await client.webhookEndpoints.create({ name: "Other", url: r.url, channels: ["voice"] });
    await client.webhookEndpoints.sendTest(endpoint.id);
    const [delivery] = await r.waitFor(1);
    if (!delivery) throw new Error("no delivery");
    const sig = header(delivery);

    const event = await constructEvent(delivery.body, sig, endpoint.secret);
    expect(event).toMatchObject({ event: "call.completed", metadata: { test: true } });

    // Tampered: one character of the body, or the signature, changed.
    const tampered = delivery.body.replace('"durationSeconds":42', '"durationSeconds":43');
    expect(tampered).not.toBe(delivery.body);
    expect(await refusal(constructEvent(tampered, sig, endpoint.secret))).toMatch(/No signature matches/);
    const flipped = sig.replace(/v1=([0-9a-f])/, (_, c: string) => `v1=${c === "0" ? "1" : "0"}`);
    expect(await refusal(constructEvent(delivery.body, flipped, endpoint.secret))).toMatch(/No signature matches/);

    // Stale: received (by the receiver's clock) more than the tolerance after it was signed.
    const later = Date.now() + 301_000;
    expect(await refusal(constructEvent(delivery.body, sig, endpoint.secret, { now: later }))).toMatch(/tolerance/);
    expect(await refusal(constructEvent(delivery.body, sig, endpoint.secret, { now: Date.now() + 61_000, toleranceSeconds: 60 }))).toMatch(
      /tolerance/,
    );
    await expect(constructEvent(delivery.body, sig, endpoint.secret, { now: Date.now() + 200_000 })).resolves.toBeTruthy();

    // Wrong secret: another endpoint's; then this endpoint's own after a rotation.
    expect(await refusal(constructEvent(delivery.body, sig, other.secret))).toMatch(/No signature matches/);
    const rotated = await client.webhookEndpoints.rotateSecret(endpoint.id);
    expect(await refusal(constructEvent(delivery.body, sig, rotated.secret))).toMatch(/No signature matches/);
    await client.webhookEndpoints.sendTest(endpoint.id);
    const [, fresh] = await r.waitFor(2);
    if (!fresh) throw new Error("no second delivery");
    await expect(constructEvent(fresh.body, header(fresh), rotated.secret)).resolves.toMatchObject({ event: "call.completed" });
    expect(await refusal(constructEvent(fresh.body, header(fresh), endpoint.secret))).toMatch(/No signature matches/);

    // Malformed input.
    expect(await refusal(constructEvent(delivery.body, undefined, endpoint.secret))).toMatch(/No X-Service-Signature/);
    expect(await refusal(constructEvent(delivery.body, "v1=abc", endpoint.secret))).toMatch(/malformed/);
    expect(await refusal(constructEvent(delivery.body, sig.replace(/t=\d+/, "t=soon"), endpoint.secret))).toMatch(/malformed/);
    expect(await refusal(constructEvent(delivery.body, sig, ""))).toMatch(/secret/);
    // A body parsed by a framework before the handler saw it cannot be verified: the raw one is needed.
    const parsed: unknown = JSON.parse(delivery.body);
    expect(await refusal(constructEvent(parsed as string, sig, endpoint.secret))).toMatch(/raw request body/);
  });
});
