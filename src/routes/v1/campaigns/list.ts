import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { campaignPageSchema, listCampaignsQuerySchema } from "../../../campaigns/schema";
import { listCampaigns } from "../../../campaigns/service";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, jsonResponse } from "../../../lib/openapi";
import { shown, TAG } from "./schema";

export const listCampaignsRoute = createRoute({
  method: "get",
  path: "/campaigns",
  tags: TAG,
  operationId: "listCampaigns",
  summary: "List campaigns",
  description: "Newest first, each with its recipients' counts by state; `status` filters. See docs/pagination.md for the cursor contract.",
  security: bearerSecurity,
  request: { query: listCampaignsQuerySchema },
  responses: { 200: jsonResponse(campaignPageSchema, "A page of campaigns."), ...errorResponses(400) },
});

export const registerListCampaigns = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(listCampaignsRoute, async (c) => {
    const page = await listCampaigns({ ctx: c.var.ctx, input: c.req.valid("query") });
    return c.json({ ...page, data: page.data.map(shown) }, 200);
  });
