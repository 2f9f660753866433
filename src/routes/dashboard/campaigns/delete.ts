import type { OpenAPIHono } from "@hono/zod-openapi";
import { deleteCampaign } from "../../../campaigns/service";
import type { AppEnv } from "../../../context";
import { campaignAction } from "./actions";

/** POST /dashboard/campaigns/:id/delete: a draft, completed or canceled campaign and its recipients: deleteCampaign (their calls stay); 409 with the page when its status does not allow it. */
export const registerDeleteCampaignPage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/:id/delete", (c) => campaignAction(c, (id) => deleteCampaign({ ctx: c.var.ctx, input: { id } }), "deleted"));
