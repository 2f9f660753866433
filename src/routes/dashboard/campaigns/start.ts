import type { OpenAPIHono } from "@hono/zod-openapi";
import { startCampaign } from "../../../campaigns/service";
import type { AppEnv } from "../../../context";
import { campaignAction } from "./actions";

/** POST /dashboard/campaigns/:id/start: draft → running: startCampaign (sets startedAt, sends campaign.started); 409 with the page when its status does not allow it. */
export const registerStartCampaignPage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/:id/start", (c) => campaignAction(c, (id) => startCampaign({ ctx: c.var.ctx, input: { id } }), "started"));
