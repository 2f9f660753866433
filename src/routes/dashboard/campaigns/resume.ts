import type { OpenAPIHono } from "@hono/zod-openapi";
import { resumeCampaign } from "../../../campaigns/service";
import type { AppEnv } from "../../../context";
import { campaignAction } from "./actions";

/** POST /dashboard/campaigns/:id/resume: paused → running: resumeCampaign; 409 with the page when its status does not allow it. */
export const registerResumeCampaignPage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/:id/resume", (c) => campaignAction(c, (id) => resumeCampaign({ ctx: c.var.ctx, input: { id } }), "resumed"));
