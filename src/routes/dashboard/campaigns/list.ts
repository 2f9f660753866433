import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { renderList } from "./shared";

/** GET /dashboard/campaigns: the workspace's campaigns (newest first, paged by `?cursor=`), each with its status and progress. */
export const registerListCampaignsPage = (app: OpenAPIHono<AppEnv>) =>
  app.get("/", (c) => renderList(c, c.req.query("deleted") ? "Campaign deleted." : undefined));
