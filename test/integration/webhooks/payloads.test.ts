// Real deliveries against the OpenAPI document's `webhooks` (src/webhooks/payload-schema.ts):
// every event we send, made the way it happens (Send Test of each event, a phone call that converses and is
// analysed, one that fails, a widget chat, a Telegram conversation), captured by a local
// receiver and validated against the schema the served document gives for its event; and the
// `custom` payload mode against its own. whatsapp.* share telegram's shape (one schema per
// messaging channel, the same builder); sms.* and messenger.* have no channel yet.
import { beforeAll, describe, expect, it } from "vitest";
import { TOOL_EVENT } from "../../../src/tools/request-schema";
import { CUSTOM_PAYLOAD_WEBHOOK } from "../../../src/webhooks/events";
import { SENT_EVENTS } from "../../../src/webhooks/payload-schema";
import { TEST_EVENTS } from "../../../src/webhooks/test-payloads";
import { BUSY, CONVERSATION, place } from "../../support/callees";
import { createAgent, speech, WEB_RATE } from "../../support/calls";
import { receiversPerTest, sendTest } from "../../support/deliveries";
import { createWorkspace, json, request } from "../../support/harness";
import { connectTelegram, telegram } from "../../support/messaging";
import { OPENAPI_PATH, servedContract } from "../../support/openapi";
import type { Received } from "../../support/receiver";
import { createWidget, visitor, chat as widgetChat, widgetRequest } from "../../support/widgets";

const { subscribed } = receiversPerTest();

/** Validates captured deliveries; returns their events. */
async function validate(received: Received[], mode: "all" | "custom" = "all"): Promise<string[]> {
  const contract = await servedContract();
  return received.map((r) => {
    expect(r.headers["x-service-signature"]).toBeTruthy();
    const payload = JSON.parse(r.body) as { event: string };
    expect(contract.checkWebhook(payload.event, payload, mode), r.body.slice(0, 500)).toEqual([]);
    return payload.event;
  });
}

beforeAll(async () => {
  await speech("Warming up.", WEB_RATE); // the sandbox's speech thread, as the call tests do
}, 30_000);

describe("webhook payloads match the document's `webhooks`", () => {
  it("catches a payload that drifts from its schema (a missing field, an extra one, a wrong type)", async () => {
    const contract = await servedContract();
    const ws = await createWorkspace();
    const { receiver, endpoint } = await subscribed(ws, { channels: ["voice"] });
    await sendTest(ws, endpoint.id);
    const [got] = await receiver.waitFor(1);
    const good = JSON.parse(got?.body ?? "{}");
    expect(contract.checkWebhook("call.completed", good)).toEqual([]);
    const { status: _, ...call } = good.call;
    expect(contract.checkWebhook("call.completed", { ...good, call })).not.toEqual([]);
    expect(contract.checkWebhook("call.completed", { ...good, extra: 1 })).not.toEqual([]);
    expect(contract.checkWebhook("call.completed", { ...good, timestamp: 1 })).not.toEqual([]);
    expect(contract.checkWebhook("call.started", good)).not.toEqual([]); // event is a literal per entry
    expect(contract.checkWebhook("chat.started", good)).toEqual(["webhook chat.started: the document describes no such event"]);
  });

  it("Send Test, in both payload modes", async () => {
    const ws = await createWorkspace();
    const all = await subscribed(ws, { channels: ["voice"] });
    const custom = await subscribed(ws, {
      channels: ["voice"],
      payloadMode: "custom",
      customFields: ["call.id", "call.status", "transcript.fullText", "metadata"],
    });
    await sendTest(ws, all.endpoint.id);
    await sendTest(ws, custom.endpoint.id);
    expect(await validate(await all.receiver.waitFor(1))).toEqual(["call.completed"]);
    expect(await validate(await custom.receiver.waitFor(1), "custom")).toEqual(["call.completed"]);
  });

  it("Send Test of every event the platform sends, each its event's shape, in both payload modes", async () => {
    const ws = await createWorkspace();
    const all = await subscribed(ws, { channels: ["voice"], events: [] });
    const custom = await subscribed(ws, {
      channels: ["widget"],
      payloadMode: "custom",
      customFields: ["chat.id", "call.id", "transcript.turns"],
    });
    for (const event of TEST_EVENTS) {
      for (const { endpoint } of [all, custom]) {
        const res = await ws.api(`/v1/webhook-endpoints/${endpoint.id}/test`, { method: "POST", json: { event } });
        expect(res.status).toBe(200);
      }
    }
    expect(await validate(await all.receiver.waitFor(TEST_EVENTS.length))).toEqual(TEST_EVENTS);
    expect(await validate(await custom.receiver.waitFor(TEST_EVENTS.length), "custom")).toEqual(TEST_EVENTS);
    for (const r of all.receiver.received) expect(r.headers["x-service-event"]).toBe(JSON.parse(r.body).event);
  });

  it("a phone call that converses and is analysed, and one that fails: call.started, call.completed, call.analyzed, call.failed", async () => {
    const ws = await createWorkspace();
    const { receiver } = await subscribed(ws, { channels: ["voice"] });
    const agent = await createAgent(ws, {
      firstMessage: "Hello, this is Acme Dental. How can I help?",
      endCallPhrases: ["goodbye"],
      analysisPlan: { successCriteria: ["The caller asked for an appointment"] },
    });
    await place(ws, agent.id, { phoneNumber: CONVERSATION, metadata: { ticket: "T-1" } });
    expect(await validate(await receiver.waitFor(3, 60_000))).toEqual(["call.started", "call.completed", "call.analyzed"]);
    await place(ws, agent.id, { phoneNumber: BUSY });
    const events = await validate(await receiver.waitFor(4, 30_000));
    expect(events[3]).toBe("call.failed");
  }, 90_000);

  it("a widget chat: widget.started, widget.completed", async () => {
    const ws = await createWorkspace();
    const { receiver } = await subscribed(ws, { channels: ["widget"] });
    const widget = await createWidget(ws);
    const visitorId = visitor();
    const { sessionId } = await widgetChat(widget.token, { visitorId, message: "Hello" });
    const end = await widgetRequest(`/widget/v1/sessions/${sessionId}/end`, { token: widget.token, json: { visitorId } });
    expect(end.status, await end.clone().text()).toBe(204);
    expect(await validate(await receiver.waitFor(2))).toEqual(["widget.started", "widget.completed"]);
  });

  it("a Telegram conversation: telegram.started, telegram.completed", async () => {
    const ws = await createWorkspace();
    const { receiver } = await subscribed(ws, { channels: ["chat"] });
    const { bot } = await connectTelegram(ws);
    const chatId = 7_000_000 + Math.floor(Math.random() * 1_000_000);
    await telegram.send(bot, chatId, { text: "Hello", from: { first_name: "Ada" } });
    await telegram.next(bot, chatId);
    await telegram.send(bot, chatId, { text: "/end" });
    expect(await validate(await receiver.waitFor(2, 30_000))).toEqual(["telegram.started", "telegram.completed"]);
  });

  it("the document describes every event an endpoint can receive, and nothing else", async () => {
    const doc = await json<{ webhooks: Record<string, unknown> }>(await request(OPENAPI_PATH));
    // And the tool request, signed like a delivery but sent to a tool's server (docs/tools.md).
    expect(Object.keys(doc.webhooks).sort()).toEqual([...SENT_EVENTS, CUSTOM_PAYLOAD_WEBHOOK, TOOL_EVENT].sort());
  });
});
