import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { deleteCampaign } from "../../../campaigns/service";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, idParam } from "../../../lib/openapi";
import { TAG } from "./schema";

export const deleteCampaignRoute = createRoute({
  method: "delete",
  path: "/campaigns/{id}",
  tags: TAG,
  operationId: "deleteCampaign",
  summary: "Delete a campaign",
  description:
    "Deletes a draft, completed or canceled campaign and its recipients (their calls stay). A running or paused campaign answers 409: cancel it first.",
  security: bearerSecurity,
  request: { params: idParam("Campaign") },
  responses: { 204: { description: "Deleted." }, ...errorResponses(400, 404, 409) },
});

export const registerDeleteCampaign = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(deleteCampaignRoute, async (c) => {
    await deleteCampaign({ ctx: c.var.ctx, input: { id: c.req.valid("param").id } });
    return c.body(null, 204);
  });
