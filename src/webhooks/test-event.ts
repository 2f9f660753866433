// Send Test (spec: Delivery behaviour 3), shared by the API route and the dashboard page: a
// synthetic payload of the chosen event (test-payloads.ts) to one endpoint.

import { invalidInput } from "../lib/errors";
import type { Op } from "../services";
import { emit, type WebhookDeps } from "./deliver";
import { getEndpoint } from "./endpoints";
import { type DeliveryView, getDelivery } from "./log";
import { DEFAULT_TEST_EVENT, TEST_EVENTS, testEventData } from "./test-payloads";

/**
 * Send Test: a synthetic `event` (default call.completed) to this endpoint only, whatever its
 * active state and subscriptions. Returns the delivery with its attempt (in QStash mode the
 * attempt follows). An event the platform does not send is a 400 that lists those it does.
 */
export async function sendTestEvent({
  ctx,
  input: { endpointId, event = DEFAULT_TEST_EVENT },
}: Op<{ endpointId: string; event?: string }, keyof WebhookDeps | "organizationId">): Promise<DeliveryView> {
  if (!TEST_EVENTS.includes(event)) {
    throw invalidInput("json", [{ path: ["event"], message: `must be one of: ${TEST_EVENTS.join(", ")}` }]);
  }
  const endpoint = await getEndpoint({ ctx, input: { id: endpointId } });
  const { deliveryIds } = await emit(ctx, {
    organizationId: ctx.organizationId,
    event,
    data: testEventData(event),
    onlyEndpointId: endpoint.id,
  });
  return getDelivery({ ctx, input: { endpointId: endpoint.id, deliveryId: deliveryIds[0] as string } });
}
