import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { campaignSchema, updateCampaignSchema } from "../../../campaigns/schema";
import { updateCampaign } from "../../../campaigns/service";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, idParam, jsonBody, jsonResponse } from "../../../lib/openapi";
import { shown, TAG } from "./schema";

export const updateCampaignRoute = createRoute({
  method: "patch",
  path: "/campaigns/{id}",
  tags: TAG,
  operationId: "updateCampaign",
  summary: "Change a draft or paused campaign",
  description:
    "Its name, caller ids, schedule, retries (the fields named; the others kept), limit on calls in flight or metadata. " +
    "Only while it is a draft or paused (409 otherwise: pause a running campaign first). Its recipients and agent are fixed.",
  security: bearerSecurity,
  request: { params: idParam("Campaign"), ...jsonBody(updateCampaignSchema) },
  responses: { 200: jsonResponse(campaignSchema, "The campaign as changed."), ...errorResponses(400, 404, 409) },
});

export const registerUpdateCampaign = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(updateCampaignRoute, async (c) => {
    const updated = await updateCampaign({ ctx: c.var.ctx, input: { id: c.req.valid("param").id, patch: c.req.valid("json") } });
    return c.json(shown(updated), 200);
  });
