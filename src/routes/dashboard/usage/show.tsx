/** @jsxImportSource hono/jsx */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { shellOf } from "../../../dashboard/ui";
import { UsagePage } from "../../../dashboard/usage/views";
import { toCostlyCallView, toUsageReport } from "../../../usage/mapper";
import { getUsage, topCalls } from "../../../usage/service";

/** The ranges the page offers, in days back from today (another value is the default). */
export const USAGE_RANGES = [7, 30, 90] as const;
const DEFAULT_DAYS = 30;
/** Request log rows a page. */
const LOG_PAGE = 50;
/** The costliest calls shown. */
const TOP_CALLS = 10;

/**
 * GET /dashboard/usage: the report over ?days= (7, 30 or 90), a day per column, with each agent's
 * figures and the costliest calls; the request log paged (?cursor=), each row linked to its call or chat.
 */
export const registerUsagePage = (app: OpenAPIHono<AppEnv>) =>
  app.get("/", async (c) => {
    const wanted = Number(c.req.query("days"));
    const span = (USAGE_RANGES as readonly number[]).includes(wanted) ? wanted : DEFAULT_DAYS;
    const { ctx } = c.var;
    const [shell, usage, costliest] = await Promise.all([
      shellOf(c, "Usage", "usage"),
      getUsage({ ctx, input: { days: span, limit: LOG_PAGE, cursor: c.req.query("cursor") } }),
      topCalls({ ctx, input: { days: span, limit: TOP_CALLS } }),
    ]);
    const report = toUsageReport(usage);
    const subjects = new Map(usage.requests.data.map((r) => [r.id, { callId: r.callId, chatId: r.chatId }]));
    const rows = report.requests.data.map((r) => ({ ...r, ...(subjects.get(r.id) ?? { callId: null, chatId: null }) }));
    const days = Array.from({ length: span }, (_, i) => new Date(Date.now() - (span - 1 - i) * 86_400_000).toISOString().slice(0, 10));
    const older = report.requests.nextCursor
      ? `/dashboard/usage?${new URLSearchParams({ days: String(span), cursor: report.requests.nextCursor })}`
      : null;
    return c.html(
      <UsagePage
        shell={shell}
        report={report}
        rows={rows}
        topCalls={costliest.map(toCostlyCallView)}
        days={days}
        ranges={USAGE_RANGES}
        older={older}
      />,
    );
  });
