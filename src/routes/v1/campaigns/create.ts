import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { readCampaignForm } from "../../../campaigns/form";
import { type CreateCampaignJson, campaignSchema, createCampaignFormSchema, createCampaignSchema } from "../../../campaigns/schema";
import { createCampaign } from "../../../campaigns/service";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, jsonResponse } from "../../../lib/openapi";
import { shown, TAG } from "./schema";

export const createCampaignRoute = createRoute({
  method: "post",
  path: "/campaigns",
  tags: TAG,
  operationId: "createCampaign",
  summary: "Create a campaign with its recipients",
  description:
    "A draft campaign: its agent, caller ids, schedule, retries, limit on calls in flight, and its recipients, as JSON rows " +
    "(`recipients`) or a CSV file (multipart/form-data: the other fields as JSON in `campaign`, the file in `csv`; a header row " +
    "with `phone_number`, optional `timezone`, every other column a variable). Everything is checked first and every problem " +
    "answered at once (`issues`, the first 100, path `recipients.<index>.<field>`; CSV rows also name their line); nothing is " +
    "created unless all of it is valid. At most 10,000 recipients and 5 MiB. Start it with POST /v1/campaigns/{id}/start.",
  security: bearerSecurity,
  request: {
    body: {
      // One of the two is required; `required: true` would have each validator run on the other's requests too.
      required: false,
      description: "The campaign as JSON with `recipients`, or as multipart/form-data with a CSV file (one of them is required).",
      content: { "application/json": { schema: createCampaignSchema }, "multipart/form-data": { schema: createCampaignFormSchema } },
    },
  },
  responses: {
    201: jsonResponse(campaignSchema, "The draft campaign, with its recipients' counts."),
    ...errorResponses(400, 404, 413, 415),
  },
});

export const registerCreateCampaign = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(createCampaignRoute, async (c) => {
    const isJson = (c.req.header("content-type") ?? "").toLowerCase().startsWith("application/json");
    const input = isJson ? (c.req.valid("json") as CreateCampaignJson) : await readCampaignForm(c.req.raw);
    const created = await createCampaign({ ctx: c.var.ctx, input });
    c.header("Location", `/v1/campaigns/${created.campaign.id}`);
    return c.json(shown(created), 201);
  });
