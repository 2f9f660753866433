/** @jsxImportSource hono/jsx */
// Usage (everyone), at /dashboard/usage: the same report as GET /v1/usage, over the last 30 days.
import { toUsageReport } from "../../usage/mapper";
import { getUsage } from "../../usage/service";
import { screenRouter } from "../routers";
import { shellOf } from "../ui";
import { UsagePage } from "./views";

const DAYS = 30;

export function usagePages() {
  const app = screenRouter();

  app.get("/", async (c) => {
    const shell = await shellOf(c, "Usage", "usage");
    const report = toUsageReport(await getUsage({ ctx: c.var.ctx, input: { days: DAYS, limit: 50 } }));
    const days = Array.from({ length: DAYS }, (_, i) => new Date(Date.now() - (DAYS - 1 - i) * 86_400_000).toISOString().slice(0, 10));
    return c.html(<UsagePage shell={shell} report={report} days={days} />);
  });

  return app;
}
