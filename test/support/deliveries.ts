// Steps the tests share around webhook deliveries: local receivers, each stopped after the test
// that started it, and endpoints that send to them; Send Test through the API; and an endpoint's
// delivery log.
import { asc, eq } from "drizzle-orm";
import { afterEach, expect } from "vitest";
import { webhookDeliveries } from "../../src/db/schema";
import type { Page } from "../../src/lib/pagination";
import type { DeliveryView } from "../../src/webhooks/log";
import { json, testDb, type Workspace } from "./harness";
import { type Receiver, startReceiver } from "./receiver";
import { createEndpoint } from "./webhooks";

/** Receivers for the tests of one file, each stopped after its test: call it at the top of the file. */
export function receiversPerTest() {
  const receivers: Receiver[] = [];
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((r) => r.stop()));
  });
  const receiver = async (...args: Parameters<typeof startReceiver>) => {
    const r = await startReceiver(...args);
    receivers.push(r);
    return r;
  };
  /** A receiver, and an endpoint of the workspace that delivers to it (`body`: its other fields). */
  const subscribed = async (ws: Workspace, body: Record<string, unknown>) => {
    const r = await receiver();
    return { receiver: r, endpoint: await createEndpoint(ws, { url: r.url, ...body }) };
  };
  return { receiver, receivers, subscribed };
}

/** POST /v1/webhook-endpoints/{id}/test (answered 200): the delivery it made, its attempt done. */
export async function sendTest(ws: Workspace, id: string): Promise<DeliveryView> {
  const res = await ws.api(`/v1/webhook-endpoints/${id}/test`, { method: "POST" });
  expect(res.status).toBe(200);
  return json<DeliveryView>(res);
}

/** An endpoint's delivery log, newest first. */
export const deliveries = async (ws: Workspace, id: string, query = "") =>
  json<Page<DeliveryView>>(await ws.api(`/webhooks/${id}/deliveries${query}`));

/**
 * The events written for the workspace's endpoints, oldest first. emit() writes an event's
 * deliveries before whatever fired it answers (the route, the session's ending, the sweep), and
 * sends them after: so once the action that could have fired an event has answered, this list says
 * whether it did, with no wait for a receiver that may be slow to be called.
 */
export const eventsWritten = async (organizationId: string): Promise<string[]> =>
  (
    await testDb()
      .select({ event: webhookDeliveries.event })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.organizationId, organizationId))
      .orderBy(asc(webhookDeliveries.createdAt), asc(webhookDeliveries.id))
  ).map((r) => r.event);
