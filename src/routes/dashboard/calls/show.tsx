/** @jsxImportSource hono/jsx */
import type { OpenAPIHono } from "@hono/zod-openapi";
import { toCallView } from "../../../calls/mapper";
import { getCallWithUsage } from "../../../calls/service";
import { ACTIVE_STATUSES } from "../../../calls/states";
import type { AppEnv } from "../../../context";
import { CallPage } from "../../../dashboard/calls/detail";
import { shellOf, when } from "../../../dashboard/ui";
import { deliveriesOf } from "../../../webhooks/log";

/** GET /dashboard/calls/:id: the call's page, its transcript, cost and webhook deliveries. */
export const registerShowCallPage = (app: OpenAPIHono<AppEnv>) =>
  app.get("/:id", async (c) => {
    const { call, usage } = await getCallWithUsage({ ctx: c.var.ctx, input: { id: c.req.param("id") } });
    const shell = await shellOf(c, `Call ${when(call.createdAt)}`, "calls");
    const deliveries = await deliveriesOf(c.var.db, c.var.auth.organizationId, call.id);
    const live = ACTIVE_STATUSES.includes(call.status);
    return c.html(<CallPage shell={shell} call={call} v={toCallView(call, usage, "")} live={live} deliveries={deliveries} />);
  });
