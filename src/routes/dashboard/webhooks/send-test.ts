import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { BASE } from "../../../dashboard/webhooks/parts";
import { sendTestEvent } from "../../../webhooks/test-event";
import { endpointId } from "./shared";

/** POST /dashboard/webhooks/:id/test: Send Test, its outcome flashed on the endpoint's page. */
export const registerSendTestPage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/:id/test", async (c) => {
    const delivery = await sendTestEvent({ ctx: c.var.ctx, input: { endpointId: endpointId(c) } });
    return c.redirect(`${BASE}/${delivery.endpointId}?notice=tested&delivery=${delivery.id}#deliveries`, 303);
  });
