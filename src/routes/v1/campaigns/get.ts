import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { campaignSchema } from "../../../campaigns/schema";
import { getCampaign } from "../../../campaigns/service";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, idParam, jsonResponse } from "../../../lib/openapi";
import { shown, TAG } from "./schema";

export const getCampaignRoute = createRoute({
  method: "get",
  path: "/campaigns/{id}",
  tags: TAG,
  operationId: "getCampaign",
  summary: "Get a campaign and its progress",
  description: "The campaign with `counts`: its recipients in each state (`pending`, `calling`, then the final states).",
  security: bearerSecurity,
  request: { params: idParam("Campaign") },
  responses: { 200: jsonResponse(campaignSchema, "The campaign and its progress."), ...errorResponses(400, 404) },
});

export const registerGetCampaign = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(getCampaignRoute, async (c) =>
    c.json(shown(await getCampaign({ ctx: c.var.ctx, input: { id: c.req.valid("param").id } })), 200),
  );
