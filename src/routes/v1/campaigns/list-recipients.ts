import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { listRecipientsQuerySchema, recipientPageSchema } from "../../../campaigns/schema";
import { listRecipients } from "../../../campaigns/service";
import { toRecipientView } from "../../../campaigns/views";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, idParam, jsonResponse } from "../../../lib/openapi";
import { TAG } from "./schema";

export const listCampaignRecipientsRoute = createRoute({
  method: "get",
  path: "/campaigns/{id}/recipients",
  tags: TAG,
  operationId: "listCampaignRecipients",
  summary: "List a campaign's recipients",
  description:
    "In upload order (row 1 first; the cursor works as on every list, docs/pagination.md), each with its state, attempts and latest call; `state` filters.",
  security: bearerSecurity,
  request: { params: idParam("Campaign"), query: listRecipientsQuerySchema },
  responses: { 200: jsonResponse(recipientPageSchema, "A page of recipients."), ...errorResponses(400, 404) },
});

export const registerListCampaignRecipients = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(listCampaignRecipientsRoute, async (c) => {
    const page = await listRecipients({ ctx: c.var.ctx, input: { id: c.req.valid("param").id, ...c.req.valid("query") } });
    return c.json({ ...page, data: page.data.map(toRecipientView) }, 200);
  });
