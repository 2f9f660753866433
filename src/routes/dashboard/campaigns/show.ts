import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { renderCampaign } from "./shared";

const NOTICES: Record<string, string> = {
  created: "Campaign created as a draft with its recipients. Check them below, then start it.",
  started: "Campaign started: its recipients are called as its schedule and limits allow.",
  paused: "Campaign paused: no new call is placed; calls in flight finish.",
  resumed: "Campaign resumed.",
  canceled: "Campaign canceled: its pending recipients will not be called.",
};

/** GET /dashboard/campaigns/:id: a campaign's page (its recipients by `?state=` and `?cursor=`); another workspace's is the 404 page. */
export const registerShowCampaignPage = (app: OpenAPIHono<AppEnv>) =>
  app.get("/:id", (c) => {
    const notice = Object.keys(NOTICES).find((k) => c.req.query(k) !== undefined);
    return renderCampaign(c, c.req.param("id"), notice ? { kind: "ok", text: NOTICES[notice] as string } : undefined);
  });
