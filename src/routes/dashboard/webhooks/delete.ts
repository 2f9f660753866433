import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { BASE } from "../../../dashboard/webhooks/parts";
import { deleteEndpoint } from "../../../webhooks/endpoints";
import { endpointId } from "./shared";

/** POST /dashboard/webhooks/:id/delete: the endpoint and its delivery log. */
export const registerDeleteEndpointPage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/:id/delete", async (c) => {
    await deleteEndpoint({ ctx: c.var.ctx, input: { id: endpointId(c) } });
    return c.redirect(`${BASE}?notice=deleted`, 303);
  });
