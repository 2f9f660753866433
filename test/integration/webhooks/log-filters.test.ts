// The delivery log filtered by status and event: the API's list (`GET /webhooks/{id}/deliveries`
// and the dashboard's JSON copy) and the endpoint's page, each keeping its filters across pages.
// A bad value is a 400 in the API and is told (and not applied) on the page.
import { describe, expect, it } from "vitest";
import { type DeliveryStatus, webhookDeliveries } from "../../../src/db/schema";
import { newId } from "../../../src/lib/ids";
import { ALL_EVENTS } from "../../../src/webhooks/events";
import type { DeliveryView } from "../../../src/webhooks/log";
import { deliveries, receiversPerTest } from "../../support/deliveries";
import { createWorkspace, expectError, json, request, signIn, testDb, type Workspace } from "../../support/harness";
import { pagesAs } from "../../support/pages";
import { createEndpoint } from "../../support/webhooks";

const { receiver } = receiversPerTest();

/** Deliveries written as the log keeps them (no attempt made): `count` of each (event, status), oldest first. */
async function written(ws: Workspace, endpointId: string, rows: Array<[event: string, status: DeliveryStatus, count: number]>) {
  const values = rows.flatMap(([event, status, count]) =>
    Array.from({ length: count }, () => {
      const id = newId();
      return {
        id,
        organizationId: ws.organizationId,
        endpointId,
        eventId: newId(),
        event,
        status,
        payload: JSON.stringify({ deliveryId: id, event }),
      };
    }),
  );
  await testDb().insert(webhookDeliveries).values(values);
  return values.map((v) => v.id);
}

const ids = (page: { data: Array<{ id: string }> }) => page.data.map((d) => d.id);

describe("the delivery log's filters (API)", () => {
  it("narrow to a status, an event or both, on deliveries really sent", async () => {
    const ws = await createWorkspace();
    // The receiver refuses widget events, takes the others.
    const r = await receiver((_, req) =>
      String(req.headers["x-service-event"]).startsWith("widget.") ? { status: 500 } : { status: 200 },
    );
    const endpoint = await createEndpoint(ws, { url: r.url });
    const sent: DeliveryView[] = [];
    for (const event of ["call.completed", "widget.started", "call.completed", "telegram.completed", "widget.started"]) {
      const res = await ws.api(`/v1/webhook-endpoints/${endpoint.id}/test`, { method: "POST", json: { event } });
      sent.push(await json<DeliveryView>(res));
    }
    const [call1, widget1, call2, telegram, widget2] = sent.map((d) => d.id);
    expect(sent.map((d) => d.status)).toEqual(["succeeded", "failed", "succeeded", "succeeded", "failed"]);
    const [pending] = await written(ws, endpoint.id, [["call.completed", "pending", 1]]);

    expect(ids(await deliveries(ws, endpoint.id, "?status=failed"))).toEqual([widget2, widget1]);
    expect(ids(await deliveries(ws, endpoint.id, "?status=pending"))).toEqual([pending]);
    expect(ids(await deliveries(ws, endpoint.id, "?status=succeeded"))).toEqual([telegram, call2, call1]);
    expect(ids(await deliveries(ws, endpoint.id, "?event=widget.started"))).toEqual([widget2, widget1]);
    expect(ids(await deliveries(ws, endpoint.id, "?event=call.completed&status=succeeded"))).toEqual([call2, call1]);
    expect(ids(await deliveries(ws, endpoint.id, "?event=call.completed"))).toEqual([pending, call2, call1]);
    expect(ids(await deliveries(ws, endpoint.id, "?event=widget.started&status=succeeded"))).toEqual([]);
    expect(ids(await deliveries(ws, endpoint.id, "?event=sms.started"))).toEqual([]); // in the catalogue, never sent here
  });

  it("keep narrowing across pages, and the dashboard's JSON copy takes the same", async () => {
    const ws = await createWorkspace();
    const endpoint = await createEndpoint(ws, { useTestReceiver: true });
    const made = await written(ws, endpoint.id, [
      ["call.completed", "failed", 3],
      ["call.completed", "succeeded", 2],
      ["widget.completed", "failed", 2],
      ["call.completed", "failed", 2],
    ]);
    const want = [...made.slice(0, 3), ...made.slice(7)].reverse(); // the failed call.completed, newest first
    const seen: string[] = [];
    let query = "?status=failed&event=call.completed&limit=2";
    for (let pages = 0; pages < 5; pages++) {
      const page = await deliveries(ws, endpoint.id, query);
      seen.push(...ids(page));
      if (!page.hasMore || !page.nextCursor) break;
      query = `?status=failed&event=call.completed&limit=2&cursor=${encodeURIComponent(page.nextCursor)}`;
    }
    expect(seen).toEqual(want);

    const { cookie } = await signIn(ws.admin.email, ws.admin.password);
    const res = await request(`/dashboard/api/webhook-endpoints/${endpoint.id}/deliveries?status=failed&event=widget.completed`, {
      headers: { cookie, "x-organization-id": ws.organizationId },
    });
    expect(res.status).toBe(200);
    expect(ids(await json<{ data: DeliveryView[] }>(res))).toEqual([made[6], made[5]]);
    const bad = await request(`/dashboard/api/webhook-endpoints/${endpoint.id}/deliveries?status=lost`, {
      headers: { cookie, "x-organization-id": ws.organizationId },
    });
    await expectError(bad, 400, "validation_failed");
  });

  it("refuse a status or an event they do not know with a 400 that lists what they take", async () => {
    const ws = await createWorkspace();
    const endpoint = await createEndpoint(ws, { useTestReceiver: true });
    const list = (query: string) => ws.api(`/webhooks/${endpoint.id}/deliveries${query}`);
    for (const status of ["FAILED", "ok", "", "failed ", "fäiled", "x".repeat(5000)]) {
      const err = await expectError(await list(`?status=${encodeURIComponent(status)}`), 400, "validation_failed");
      expect(err.message).toBe("Invalid query: status: must be one of: pending, succeeded, failed");
    }
    for (const event of ["call.exploded", "", "Call.Completed", "call.*", "call.completed\u0301", "e".repeat(10_000)]) {
      const err = await expectError(await list(`?event=${encodeURIComponent(event)}`), 400, "validation_failed");
      expect(err.message).toBe(`Invalid query: event: must be one of: ${ALL_EVENTS.join(", ")}`);
    }
    await expectError(await list("?status=failed&status=pending"), 400, "validation_failed");
    await expectError(await list("?state=failed"), 400, "validation_failed");
  });
});

describe("the delivery log's filters (the endpoint's page)", () => {
  it("narrow the log, keep the filters on Older deliveries, and say what they could not take", async () => {
    const ws = await createWorkspace();
    const endpoint = await createEndpoint(ws, { useTestReceiver: true });
    // 22 failed call.completed among others: more than a page (20) of them.
    const made = await written(ws, endpoint.id, [
      ["call.completed", "failed", 12],
      ["widget.completed", "failed", 3],
      ["call.completed", "succeeded", 2],
      ["call.completed", "failed", 10],
    ]);
    const failedCalls = [...made.slice(0, 12), ...made.slice(17)].reverse();
    const page = await pagesAs(ws.admin.email, ws.admin.password);
    const shown = (html: string) => [...html.matchAll(/<article class="delivery" id="delivery-([0-9a-f-]+)"/g)].map((m) => m[1]);

    const first = (await page(`/dashboard/webhooks/${endpoint.id}?status=failed&event=call.completed`)).html;
    expect(shown(first)).toEqual(failedCalls.slice(0, 20));
    expect(first).toMatch(/<select id="f-status" name="status"[^>]*>[\s\S]*?<option value="failed" selected="">/);
    expect(first).toMatch(/<select id="f-event" name="event"[^>]*>[\s\S]*?<option value="call\.completed" selected="">/);
    const older = /<a href="([^"]+)">Older deliveries<\/a>/.exec(first)?.[1]?.replaceAll("&amp;", "&") ?? "";
    expect(older).toMatch(/^\/dashboard\/webhooks\/[0-9a-f-]+\?status=failed&event=call\.completed&cursor=[^#]+#deliveries$/);
    const second = (await page(older.replace(/#.*$/, ""))).html;
    expect(shown(second)).toEqual(failedCalls.slice(20));
    expect(second).not.toContain("Older deliveries");

    // A value it does not take: said, not applied; the other still is.
    const bad = await page(`/dashboard/webhooks/${endpoint.id}?status=lost&event=widget.completed`);
    expect(bad.status).toBe(200);
    expect(bad.html).toContain("The status filter “lost” must be one of: pending, succeeded, failed: showing every status.");
    expect(shown(bad.html)).toEqual(made.slice(12, 15).reverse());
    const hostile = await page(`/dashboard/webhooks/${endpoint.id}?event=${encodeURIComponent('"><script>x</script>')}`);
    expect(hostile.status).toBe(200);
    expect(hostile.html).not.toContain("<script>x</script>");
    expect(shown(hostile.html)).toHaveLength(20);

    const none = (await page(`/dashboard/webhooks/${endpoint.id}?status=pending`)).html;
    expect(shown(none)).toEqual([]);
    expect(none).toContain("No deliveries match these filters.");
  });
});
