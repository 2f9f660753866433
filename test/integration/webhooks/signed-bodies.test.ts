// A delivery's body is the exact text sent: serialized once when the delivery is written, kept as
// text, and sent as those bytes by every attempt (the first, a resend; QStash's retries:
// qstash.test.ts). The API's delivery and the dashboard's log show those bytes, and a receiver's
// signature check over them passes. Before, a resend sent the payload as it came back from jsonb
// (keys reordered), so its bytes differed from the first attempt's.
import { describe, expect, it } from "vitest";
import type { DeliveryView } from "../../../src/webhooks/log";
import { deliveries, receiversPerTest, sendTest } from "../../support/deliveries";
import { createWorkspace, json, type Workspace } from "../../support/harness";
import { pagesAs, preText } from "../../support/pages";
import type { Received } from "../../support/receiver";
import { stripeAccepts } from "../../support/stripe";
import { createEndpoint, emitNow } from "../../support/webhooks";

const { subscribed } = receiversPerTest();

const resend = async (ws: Workspace, endpointId: string, deliveryId: string) => {
  const res = await ws.api(`/v1/webhook-endpoints/${endpointId}/deliveries/${deliveryId}/resend`, { method: "POST" });
  expect(res.status).toBe(200);
  return json<DeliveryView>(res);
};

/** Every request received: the same bytes, each signed over them with the secret. */
function sameSignedBytes(received: Received[], secret: string): string {
  const [first] = received;
  if (!first) throw new Error("nothing received");
  for (const r of received) {
    expect(r.body).toBe(first.body);
    expect(stripeAccepts(r.body, String(r.headers["x-service-signature"]), secret)).toBe(true);
  }
  return first.body;
}

describe("a delivery's body, exactly as sent", () => {
  it("Send Test and its resends send the same bytes, which the API and the dashboard show and the signature covers", async () => {
    const ws = await createWorkspace("Signed bodies");
    const { receiver, endpoint } = await subscribed(ws, { channels: ["voice"] });
    const tested = await sendTest(ws, endpoint.id);
    await resend(ws, endpoint.id, tested.id);
    const resent = await resend(ws, endpoint.id, tested.id);
    expect(resent.attempts.map((a) => a.trigger)).toEqual(["test", "resend", "resend"]);
    const sent = sameSignedBytes(await receiver.waitFor(3), endpoint.secret);
    // The payload's own key order, as built (envelope first), not jsonb's.
    expect(sent.startsWith(`{"deliveryId":"${tested.id}","event":"call.completed","channel":"voice","timestamp":`)).toBe(true);
    expect(tested.body).toBe(sent);
    expect(resent.body).toBe(sent);
    expect((await deliveries(ws, endpoint.id)).data[0]?.body).toBe(sent);

    const page = await pagesAs(ws.admin.email, ws.admin.password);
    const { html } = await page(`/dashboard/webhooks/${endpoint.id}`);
    expect(html).toContain("Payload (exactly as signed)");
    const shown = preText(html, `body-${tested.id}`);
    expect(shown).toBe(sent);
    // Each attempt's own `t` over the shown bytes gives that attempt's signature.
    for (const r of receiver.received)
      expect(stripeAccepts(shown ?? "", String(r.headers["x-service-signature"]), endpoint.secret)).toBe(true);
  });

  it("an emitted event's deliveries (written by the fan-out's one statement, and a custom one) resend the bytes first sent", async () => {
    const ws = await createWorkspace();
    const all = await subscribed(ws, { channels: ["voice"], events: ["call.completed"] });
    const custom = await subscribed(ws, {
      channels: ["voice"],
      events: ["call.completed"],
      payloadMode: "custom",
      customFields: ["call.id", "transcript.fullText", "metadata"],
    });
    const { deliveryIds } = await emitNow({
      organizationId: ws.organizationId,
      event: "call.completed",
      data: {
        call: { id: "c-1", agentName: 'Désk "ü" ✓' },
        transcript: { fullText: "User: héllo 你好 😀 </script> \\ \u2028", turns: [] },
        metadata: { z: 1, a: { y: [2, 1], b: null }, ticket: "T-1" },
      },
      subjectId: "c-1",
    });
    expect(deliveryIds).toHaveLength(2);
    for (const { receiver, endpoint } of [all, custom]) {
      const [first] = await receiver.waitFor(1);
      const id = String(first?.headers["x-service-delivery-id"]);
      const resent = await resend(ws, endpoint.id, id);
      expect(resent.attempts.map((a) => a.trigger)).toEqual(["emit", "resend"]);
      const sent = sameSignedBytes(await receiver.waitFor(2), endpoint.secret);
      expect(resent.body).toBe(sent);
      expect(JSON.parse(sent)).toMatchObject({ deliveryId: id, metadata: { z: 1, a: { y: [2, 1], b: null }, ticket: "T-1" } });
      // Keys in the order the payload was built, whatever jsonb would have made of them.
      expect(Object.keys(JSON.parse(sent).metadata)).toEqual(["z", "a", "ticket"]);
    }
    expect("transcript" in JSON.parse(all.receiver.received[0]?.body ?? "{}")).toBe(true);
    expect(JSON.parse(custom.receiver.received[0]?.body ?? "{}").call).toEqual({ id: "c-1" });
  });

  it("the built-in test receiver captures the very bytes the log shows", async () => {
    const ws = await createWorkspace();
    const endpoint = await createEndpoint(ws, { useTestReceiver: true });
    const tested = await sendTest(ws, endpoint.id);
    const captured = await json<{ requests: Array<{ body: string }> }>(await ws.api(`/v1/webhook-endpoints/${endpoint.id}/test-receiver`));
    expect(captured.requests[0]?.body).toBe(tested.body);
  });
});
