import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { BASE } from "../../../dashboard/webhooks/parts";
import { ApiError } from "../../../lib/errors";
import { isUuid } from "../../../lib/ids";
import { getEndpoint } from "../../../webhooks/endpoints";
import { resendDelivery } from "../../../webhooks/log";
import { endpointId, renderEndpoint } from "./shared";

/** POST /dashboard/webhooks/:id/deliveries/:deliveryId/resend: its outcome flashed on the endpoint's page (409 while inactive). */
export const registerResendDeliveryPage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/:id/deliveries/:deliveryId/resend", async (c) => {
    const id = endpointId(c);
    const deliveryId = c.req.param("deliveryId");
    const row = await getEndpoint({ ctx: c.var.ctx, input: { id } });
    if (!isUuid(deliveryId)) throw new ApiError("not_found", "No delivery with that id for this endpoint.");
    try {
      const delivery = await resendDelivery({ ctx: c.var.ctx, input: { endpointId: id, deliveryId } });
      return c.redirect(`${BASE}/${id}?notice=resent&delivery=${delivery.id}#delivery-${delivery.id}`, 303);
    } catch (err) {
      if (err instanceof ApiError && err.code === "conflict")
        return renderEndpoint(c, row, { notice: { kind: "error", text: err.message } }, 409);
      throw err;
    }
  });
