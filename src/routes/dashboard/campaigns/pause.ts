import type { OpenAPIHono } from "@hono/zod-openapi";
import { pauseCampaign } from "../../../campaigns/service";
import type { AppEnv } from "../../../context";
import { campaignAction } from "./actions";

/** POST /dashboard/campaigns/:id/pause: running → paused: pauseCampaign (no new call; calls in flight finish); 409 with the page when its status does not allow it. */
export const registerPauseCampaignPage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/:id/pause", (c) => campaignAction(c, (id) => pauseCampaign({ ctx: c.var.ctx, input: { id } }), "paused"));
