import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { opt, validate } from "../../../dashboard/forms";
import { BASE } from "../../../dashboard/webhooks/parts";
import { getEndpoint } from "../../../webhooks/endpoints";
import { sendTestEvent } from "../../../webhooks/test-event";
import { sendTestSchema } from "../../v1/webhook-endpoints/schema";
import { endpointId, renderEndpoint } from "./shared";

/** POST /dashboard/webhooks/:id/test: Send Test of the chosen event, its outcome flashed on the endpoint's page. */
export const registerSendTestPage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/:id/test", async (c) => {
    const id = endpointId(c);
    const checked = validate(sendTestSchema, { event: opt(c.var.form, "event") });
    if (!checked.ok) {
      const row = await getEndpoint({ ctx: c.var.ctx, input: { id } });
      return renderEndpoint(
        c,
        row,
        { notice: { kind: "error", text: `Send Test: the event ${checked.errors.event ?? "is not valid"}.` } },
        400,
      );
    }
    const delivery = await sendTestEvent({ ctx: c.var.ctx, input: { endpointId: id, event: checked.data.event } });
    return c.redirect(`${BASE}/${delivery.endpointId}?notice=tested&delivery=${delivery.id}#deliveries`, 303);
  });
