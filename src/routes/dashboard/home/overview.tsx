/** @jsxImportSource hono/jsx */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { OverviewPage } from "../../../dashboard/overview/views";
import { shellOf } from "../../../dashboard/ui";
import { getOverview } from "../../../overview/service";

/** The days the Overview covers, today included. */
export const OVERVIEW_DAYS = 30;

/** GET /dashboard: the Overview (src/overview/service.ts). */
export const registerOverviewPage = (app: OpenAPIHono<AppEnv>) =>
  app.get("/", async (c) => {
    const [shell, overview] = await Promise.all([
      shellOf(c, "Overview", "overview"),
      getOverview({ ctx: c.var.ctx, input: { days: OVERVIEW_DAYS } }),
    ]);
    return c.html(<OverviewPage shell={shell} overview={overview} days={OVERVIEW_DAYS} />);
  });
