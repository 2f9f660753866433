import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { campaignSchema } from "../../../campaigns/schema";
import { cancelCampaign } from "../../../campaigns/service";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, idParam, jsonResponse } from "../../../lib/openapi";
import { shown, TAG } from "./schema";

export const cancelCampaignRoute = createRoute({
  method: "post",
  path: "/campaigns/{id}/cancel",
  tags: TAG,
  operationId: "cancelCampaign",
  summary: "Cancel a campaign",
  description:
    "draft, running or paused → canceled: its pending recipients are canceled; calls in flight finish. 409 for a completed or canceled campaign.",
  security: bearerSecurity,
  request: { params: idParam("Campaign") },
  responses: { 200: jsonResponse(campaignSchema, "The campaign in its new state."), ...errorResponses(400, 404, 409) },
});

export const registerCancelCampaign = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(cancelCampaignRoute, async (c) =>
    c.json(shown(await cancelCampaign({ ctx: c.var.ctx, input: { id: c.req.valid("param").id } })), 200),
  );
