import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../../context";
import type { Notice } from "../../../dashboard/webhooks/detail";
import { outcome } from "../../../dashboard/webhooks/parts";
import { ApiError } from "../../../lib/errors";
import { isUuid } from "../../../lib/ids";
import { getEndpoint } from "../../../webhooks/endpoints";
import { type DeliveryView, getDelivery } from "../../../webhooks/log";
import { endpointId, renderEndpoint } from "./shared";

/** A delivery's outcome for the flash after Send Test or Resend. */
function deliveryNotice(verb: string, d: DeliveryView): Notice {
  const last = d.attempts[d.attempts.length - 1];
  if (d.status === "pending" || !last) return { kind: "ok", text: `${verb}: delivery ${d.id} is queued.` };
  const ok = d.status === "succeeded";
  return { kind: ok ? "ok" : "error", text: `${verb}: ${d.event} delivery ${d.id} ${d.status} (${outcome(last)}).` };
}

const DETAIL_NOTICES: Record<string, Notice> = {
  saved: { kind: "ok", text: "Endpoint saved." },
  on: { kind: "ok", text: "Endpoint turned on." },
  off: { kind: "ok", text: "Endpoint turned off." },
};

/** The flash its last action left, and the event Send Test sent (offered again). */
async function noticeOf(c: Context<AppEnv>, endpointId: string): Promise<{ notice?: Notice; testEvent?: string }> {
  const code = c.req.query("notice") ?? "";
  const deliveryId = c.req.query("delivery") ?? "";
  if ((code === "tested" || code === "resent") && isUuid(deliveryId)) {
    try {
      const d = await getDelivery({ ctx: c.var.ctx, input: { endpointId, deliveryId } });
      const tested = code === "tested";
      return { notice: deliveryNotice(tested ? "Send Test" : "Resend", d), testEvent: tested ? d.event : undefined };
    } catch (err) {
      if (err instanceof ApiError && err.code === "not_found") return {};
      throw err;
    }
  }
  return { notice: DETAIL_NOTICES[code] };
}

/** GET /dashboard/webhooks/:id: the endpoint's page, with the flash its last action left. */
export const registerShowEndpointPage = (app: OpenAPIHono<AppEnv>) =>
  app.get("/:id", async (c) => {
    const id = endpointId(c);
    const row = await getEndpoint({ ctx: c.var.ctx, input: { id } });
    return renderEndpoint(c, row, await noticeOf(c, id));
  });
