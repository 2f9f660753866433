import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { campaignSchema } from "../../../campaigns/schema";
import { startCampaign } from "../../../campaigns/service";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, idParam, jsonResponse } from "../../../lib/openapi";
import { shown, TAG } from "./schema";

export const startCampaignRoute = createRoute({
  method: "post",
  path: "/campaigns/{id}/start",
  tags: TAG,
  operationId: "startCampaign",
  summary: "Start a draft campaign",
  description:
    "draft → running: its recipients are called as its schedule and limits allow. Sends `campaign.started`. 409 for a campaign that is not a draft (resume a paused one) or whose agent was deleted.",
  security: bearerSecurity,
  request: { params: idParam("Campaign") },
  responses: { 200: jsonResponse(campaignSchema, "The campaign in its new state."), ...errorResponses(400, 404, 409) },
});

export const registerStartCampaign = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(startCampaignRoute, async (c) =>
    c.json(shown(await startCampaign({ ctx: c.var.ctx, input: { id: c.req.valid("param").id } })), 200),
  );
