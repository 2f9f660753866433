import type { OpenAPIHono } from "@hono/zod-openapi";
import { cancelCampaign } from "../../../campaigns/service";
import type { AppEnv } from "../../../context";
import { campaignAction } from "./actions";

/** POST /dashboard/campaigns/:id/cancel: draft, running or paused → canceled: cancelCampaign (pending recipients canceled); 409 with the page when its status does not allow it. */
export const registerCancelCampaignPage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/:id/cancel", (c) => campaignAction(c, (id) => cancelCampaign({ ctx: c.var.ctx, input: { id } }), "canceled"));
