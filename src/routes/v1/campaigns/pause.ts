import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { campaignSchema } from "../../../campaigns/schema";
import { pauseCampaign } from "../../../campaigns/service";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, idParam, jsonResponse } from "../../../lib/openapi";
import { shown, TAG } from "./schema";

export const pauseCampaignRoute = createRoute({
  method: "post",
  path: "/campaigns/{id}/pause",
  tags: TAG,
  operationId: "pauseCampaign",
  summary: "Pause a running campaign",
  description: "running → paused: no new call is placed; calls in flight finish. 409 for a campaign that is not running.",
  security: bearerSecurity,
  request: { params: idParam("Campaign") },
  responses: { 200: jsonResponse(campaignSchema, "The campaign in its new state."), ...errorResponses(400, 404, 409) },
});

export const registerPauseCampaign = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(pauseCampaignRoute, async (c) =>
    c.json(shown(await pauseCampaign({ ctx: c.var.ctx, input: { id: c.req.valid("param").id } })), 200),
  );
