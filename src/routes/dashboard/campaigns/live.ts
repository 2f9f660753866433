import type { OpenAPIHono } from "@hono/zod-openapi";
import { getCampaign } from "../../../campaigns/service";
import { toCampaignView } from "../../../campaigns/views";
import type { AppEnv } from "../../../context";
import { liveOf } from "../../../dashboard/campaigns/format";
import { scriptAction } from "../../../dashboard/json";
import { recipientsShown } from "./shared";

/**
 * GET /dashboard/campaigns/:id/live: what a campaign's page follows while it runs (its script polls
 * every 2 s): the status, counts per state, progress and the rows of the recipients the page shows
 * (the same `?state=` and `?cursor=`), worded as the page words them. JSON; another workspace's
 * campaign is the error body's 404.
 */
export const registerLiveCampaignPage = (app: OpenAPIHono<AppEnv>) =>
  app.get("/:id/live", (c) =>
    scriptAction(c, async () => {
      const id = c.req.param("id");
      // The rows first, then the figures: a recipient that turned final between the two reads is
      // then counted too, so the figures are never older than the rows.
      const { rows } = await recipientsShown(c, id);
      const { campaign, counts } = await getCampaign({ ctx: c.var.ctx, input: { id } });
      return c.json({ ...liveOf(toCampaignView(campaign, counts)), recipients: rows });
    }),
  );
