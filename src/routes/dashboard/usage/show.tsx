/** @jsxImportSource hono/jsx */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { shellOf } from "../../../dashboard/ui";
import { UsagePage } from "../../../dashboard/usage/views";
import { toUsageReport } from "../../../usage/mapper";
import { getUsage } from "../../../usage/service";

const DAYS = 30;

/** GET /dashboard/usage: the report, a day per column. */
export const registerUsagePage = (app: OpenAPIHono<AppEnv>) =>
  app.get("/", async (c) => {
    const shell = await shellOf(c, "Usage", "usage");
    const report = toUsageReport(await getUsage({ ctx: c.var.ctx, input: { days: DAYS, limit: 50 } }));
    const days = Array.from({ length: DAYS }, (_, i) => new Date(Date.now() - (DAYS - 1 - i) * 86_400_000).toISOString().slice(0, 10));
    return c.html(<UsagePage shell={shell} report={report} days={days} />);
  });
