import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { campaignSchema } from "../../../campaigns/schema";
import { resumeCampaign } from "../../../campaigns/service";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, idParam, jsonResponse } from "../../../lib/openapi";
import { shown, TAG } from "./schema";

export const resumeCampaignRoute = createRoute({
  method: "post",
  path: "/campaigns/{id}/resume",
  tags: TAG,
  operationId: "resumeCampaign",
  summary: "Resume a paused campaign",
  description:
    "paused → running, whoever paused it (`pausedReason` is cleared). 409 for a campaign that is not paused or whose agent was deleted.",
  security: bearerSecurity,
  request: { params: idParam("Campaign") },
  responses: { 200: jsonResponse(campaignSchema, "The campaign in its new state."), ...errorResponses(400, 404, 409) },
});

export const registerResumeCampaign = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(resumeCampaignRoute, async (c) =>
    c.json(shown(await resumeCampaign({ ctx: c.var.ctx, input: { id: c.req.valid("param").id } })), 200),
  );
