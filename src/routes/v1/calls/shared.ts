import type { Context } from "hono";
import type { Ctx } from "../../../calls/place";
import type { AppEnv } from "../../../context";
import { publicOrigin } from "../../../webhooks/endpoints";

/** What call placement runs with, from a request (the API's and the dashboard's test call). */
export const callCtx = (c: Context<AppEnv>): Ctx => ({
  db: c.var.db,
  config: c.var.config,
  env: c.env,
  deps: c.var.services.webhooks,
  organizationId: c.var.auth.organizationId,
  origin: publicOrigin(c.var.config, new URL(c.req.url).origin),
});
