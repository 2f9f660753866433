/** @jsxImportSource hono/jsx */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { shellOf } from "../../../dashboard/ui";
import { rangeOf, USAGE_PRESETS, type UsageRange } from "../../../dashboard/usage/range";
import { UsagePage } from "../../../dashboard/usage/views";
import { toCostlyCallView, toUsageReport } from "../../../usage/mapper";
import { callsByCost, daysOf, getUsage, instantsOf } from "../../../usage/service";

/** Request log rows a page. */
const LOG_PAGE = 50;
/** Calls a page of the per-call table. */
const CALLS_PAGE = 20;

/** The page's own query, the range kept: `days` for a preset, `from` and `to` for chosen days. */
const rangeParams = (range: UsageRange): Array<[string, string]> =>
  range.preset !== null
    ? [["days", String(range.preset)]]
    : [
        ["from", range.firstDay],
        ["to", range.lastDay],
      ];

/**
 * GET /dashboard/usage: the report over a range (a preset, ?days=7|30|90, or any days, ?from=&to=,
 * checked by rangeOf; 400 with the problems on the date fields, and the last 30 days shown), a day per
 * column, with each agent's figures; the range's calls by cost, paged (?calls=); the request log of
 * the range paged (?cursor=), each row linked to its call or chat.
 */
export const registerUsagePage = (app: OpenAPIHono<AppEnv>) =>
  app.get("/", async (c) => {
    const { range, errors, values } = rangeOf({ days: c.req.query("days"), from: c.req.query("from"), to: c.req.query("to") });
    const valid = Object.keys(errors).length === 0;
    const { since, until } = instantsOf(range);
    const { ctx } = c.var;
    const [shell, usage, calls] = await Promise.all([
      shellOf(c, "Usage", "usage"),
      getUsage({
        ctx,
        input: {
          range,
          limit: LOG_PAGE,
          cursor: valid ? c.req.query("cursor") : undefined,
          // pageQuery's lower bound is exclusive: a millisecond before the first day.
          createdAfter: new Date(since.getTime() - 1).toISOString(),
          createdBefore: until.toISOString(),
        },
      }),
      callsByCost({ ctx, input: { range, limit: CALLS_PAGE, cursor: valid ? c.req.query("calls") : undefined } }),
    ]);
    const report = toUsageReport(usage);
    const subjects = new Map(usage.requests.data.map((r) => [r.id, { callId: r.callId, chatId: r.chatId }]));
    const rows = report.requests.data.map((r) => ({ ...r, ...(subjects.get(r.id) ?? { callId: null, chatId: null }) }));
    // Each pager keeps the range and where the other one is.
    const at = { cursor: valid ? c.req.query("cursor") : undefined, calls: valid ? c.req.query("calls") : undefined };
    const link = (next: Partial<typeof at>) => {
      const params = [...rangeParams(range)];
      for (const [name, value] of Object.entries({ ...at, ...next })) if (value) params.push([name, value]);
      return `/dashboard/usage?${new URLSearchParams(params)}`;
    };
    return c.html(
      <UsagePage
        shell={shell}
        report={report}
        rows={rows}
        calls={calls.data.map(toCostlyCallView)}
        callsFirst={!at.calls}
        moreCalls={calls.nextCursor ? `${link({ calls: calls.nextCursor })}#calls` : null}
        days={daysOf(range)}
        range={range}
        presets={USAGE_PRESETS}
        rangeErrors={errors}
        rangeValues={values}
        older={report.requests.nextCursor ? `${link({ cursor: report.requests.nextCursor })}#request-log` : null}
      />,
      valid ? 200 : 400,
    );
  });
