import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { renderNew } from "./shared";

/** GET /dashboard/campaigns/new: the new campaign form (the workspace's agents, caller ids and limit of calls in flight). */
export const registerNewCampaignPage = (app: OpenAPIHono<AppEnv>) => app.get("/new", (c) => renderNew(c));
