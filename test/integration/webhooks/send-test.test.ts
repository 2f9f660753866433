// Send Test of a chosen event: `POST …/{id}/test` with an optional `{ "event": … }` (default
// call.completed), on the API and the dashboard's JSON copy, and the endpoint page's event picker.
// Bad bodies are a 4xx in the one error body, never a 5xx. That each event's payload has its
// event's shape: payloads.test.ts (the document) and test/unit/webhooks/test-payloads.test.ts.
import { describe, expect, it } from "vitest";
import type { DeliveryView } from "../../../src/webhooks/log";
import { TEST_EVENTS } from "../../../src/webhooks/test-payloads";
import { receiversPerTest } from "../../support/deliveries";
import { createWorkspace, expectError, json, request, signIn, type Workspace } from "../../support/harness";
import { pagesAs } from "../../support/pages";
import { createEndpoint } from "../../support/webhooks";

const { subscribed } = receiversPerTest();

const post = (ws: Workspace, id: string, init: RequestInit & { json?: unknown } = {}) =>
  ws.api(`/v1/webhook-endpoints/${id}/test`, { method: "POST", ...init });

describe("Send Test of a chosen event (API)", () => {
  it("sends the chosen event to the endpoint, whatever it subscribes to; no body or {} is call.completed", async () => {
    const ws = await createWorkspace();
    const { receiver, endpoint } = await subscribed(ws, { channels: ["voice"], events: ["call.started"] });
    const chosen = await json<DeliveryView>(await post(ws, endpoint.id, { json: { event: "telegram.completed" } }));
    expect(chosen).toMatchObject({ event: "telegram.completed", status: "succeeded", subjectId: null });
    const none = await json<DeliveryView>(await post(ws, endpoint.id));
    const empty = await json<DeliveryView>(await post(ws, endpoint.id, { json: {} }));
    expect([none.event, empty.event]).toEqual(["call.completed", "call.completed"]);
    const got = await receiver.waitFor(3);
    expect(got.map((r) => r.headers["x-service-event"])).toEqual(["telegram.completed", "call.completed", "call.completed"]);
    expect(JSON.parse(got[0]?.body ?? "{}")).toMatchObject({ deliveryId: chosen.id, channel: "telegram", chat: { status: "completed" } });
  });

  it("the dashboard's JSON copy takes the same body", async () => {
    const ws = await createWorkspace();
    const endpoint = await createEndpoint(ws, { useTestReceiver: true });
    const { cookie } = await signIn(ws.admin.email, ws.admin.password);
    const res = await request(`/dashboard/api/webhook-endpoints/${endpoint.id}/test`, {
      method: "POST",
      headers: { cookie, "x-organization-id": ws.organizationId },
      json: { event: "call.analyzed" },
    });
    expect(res.status).toBe(200);
    const d = await json<DeliveryView>(res);
    expect(d.event).toBe("call.analyzed");
    expect(JSON.parse(d.body).analysis).toMatchObject({ sentiment: "positive" });
  });

  it("refuses an event the platform does not send, listing those it does, and any other bad body, with a 4xx", async () => {
    const ws = await createWorkspace();
    const endpoint = await createEndpoint(ws, { useTestReceiver: true });
    for (const event of [
      "call.exploded",
      "chat.started",
      "sms.started",
      "CALL.COMPLETED",
      "call.completed ",
      "cäll.completed",
      "x".repeat(100_000),
    ]) {
      const err = await expectError(await post(ws, endpoint.id, { json: { event } }), 400, "validation_failed");
      expect(err.message).toContain(`event: must be one of: ${TEST_EVENTS.join(", ")}`);
      expect(err.issues).toEqual([{ path: "event", message: `must be one of: ${TEST_EVENTS.join(", ")}` }]);
    }
    for (const body of [
      { event: 5 },
      { event: null },
      { event: ["call.completed"] },
      { event: "call.completed", extra: 1 },
      [],
      "call.completed",
    ])
      await expectError(await post(ws, endpoint.id, { json: body }), 400, "validation_failed");
    const raw = (body: string, type = "application/json") => post(ws, endpoint.id, { headers: { "content-type": type }, body });
    await expectError(await raw('{"event": "call.completed"'), 400, "invalid_json");
    await expectError(await raw('{"event":"call.started"}', "text/plain"), 415, "unsupported_media_type");
    await expectError(await raw("event=call.started", "application/x-www-form-urlencoded"), 415, "unsupported_media_type");
    await expectError(await raw("  "), 400, "invalid_json");
    // None of them sent anything.
    const log = await json<{ data: DeliveryView[] }>(await ws.api(`/webhooks/${endpoint.id}/deliveries`));
    expect(log.data).toEqual([]);
    // An empty body is no body, whatever it says it is (clients that send Content-Type on every request).
    for (const type of ["application/json", "text/plain"])
      expect((await json<DeliveryView>(await raw("", type))).event).toBe("call.completed");
  });

  it("answers 404 for another workspace's endpoint, whatever the event", async () => {
    const [mine, theirs] = await Promise.all([createWorkspace(), createWorkspace()]);
    const endpoint = await createEndpoint(theirs, { useTestReceiver: true });
    await expectError(await post(mine, endpoint.id, { json: { event: "widget.started" } }), 404, "not_found");
  });
});

describe("Send Test on the endpoint's page", () => {
  it("offers every event the platform sends, sends the chosen one, and offers it again", async () => {
    const ws = await createWorkspace();
    const { receiver, endpoint } = await subscribed(ws, { channels: ["widget"] });
    const page = await pagesAs(ws.admin.email, ws.admin.password);
    const before = (await page(`/dashboard/webhooks/${endpoint.id}`)).html;
    const picker = /<select name="event"[^>]*>([\s\S]*?)<\/select>/.exec(before)?.[1] ?? "";
    expect([...picker.matchAll(/<option value="([^"]+)"/g)].map((m) => m[1])).toEqual(TEST_EVENTS);
    // The endpoint takes widget events: the first of them is offered first.
    expect(picker).toMatch(/<option value="widget\.started" selected="">/);

    const sent = await page(`/dashboard/webhooks/${endpoint.id}/test`, { event: "whatsapp.started" });
    expect(sent.status).toBe(303);
    const [got] = await receiver.waitFor(1);
    expect(got?.headers["x-service-event"]).toBe("whatsapp.started");
    const after = (await page(sent.location ?? "")).html;
    expect(after).toContain("Send Test: whatsapp.started delivery");
    expect(after).toMatch(/<option value="whatsapp\.started" selected="">/);

    // A form without the field (an older page) sends call.completed.
    expect((await page(`/dashboard/webhooks/${endpoint.id}/test`, {})).status).toBe(303);
    expect((await receiver.waitFor(2))[1]?.headers["x-service-event"]).toBe("call.completed");
  });

  it("says so when the event is not one it sends, and sends nothing", async () => {
    const ws = await createWorkspace();
    const { receiver, endpoint } = await subscribed(ws, { channels: ["voice"] });
    const page = await pagesAs(ws.admin.email, ws.admin.password);
    for (const event of ["sms.started", "<script>x</script>", "é".repeat(5000)]) {
      const refused = await page(`/dashboard/webhooks/${endpoint.id}/test`, { event });
      expect(refused.status).toBe(400);
      expect(refused.html).toContain("Send Test: the event must be one of: call.started");
      expect(refused.html).not.toContain("<script>x</script>");
    }
    expect(receiver.received).toEqual([]);
  });
});
