/** @jsxImportSource hono/jsx */
// What the call pages share: the list's filters as the query string gives them (the list page,
// its CSV export), and the list page itself (also the test call's form, shown again when the call
// cannot be placed).
import type { Context } from "hono";
import { listAgentNames } from "../../../agents/service";
import { listPhoneNumbers } from "../../../calls/phone-numbers";
import { type CallFilters, listCallSummaries } from "../../../calls/service";
import { CALL_STATUSES, type CallStatus } from "../../../calls/states";
import type { AppEnv } from "../../../context";
import { CallList, FILTER_NAMES, type FilterValues } from "../../../dashboard/calls/list";
import { type FieldErrors, shellOf } from "../../../dashboard/ui";
import { CALL_DIRECTIONS, type CallDirection } from "../../../db/schema";
import { isUuid } from "../../../lib/ids";
import type { PageParams } from "../../../lib/pagination";
import { carrierOf } from "../../../telephony/registry";

const DAY_RE = /^\d{4}-\d{2}-\d{2}$/;
/** The instant a YYYY-MM-DD day starts (UTC), `plusDays` later; undefined for anything else. */
function dayStart(day: string, plusDays = 0): string | undefined {
  if (!DAY_RE.test(day)) return undefined;
  const at = Date.parse(`${day}T00:00:00Z`);
  return Number.isNaN(at) ? undefined : new Date(at + plusDays * 86_400_000).toISOString();
}

/** The filters as the form sent them (query strings; "" is any). */
export const filterValuesOf = (c: Context<AppEnv>): FilterValues =>
  Object.fromEntries(FILTER_NAMES.map((name) => [name, c.req.query(name) ?? ""])) as FilterValues;

/** The list's filters; a value the form does not offer filters nothing. `from` and `to` are days, both included. */
export function filtersOf(q: FilterValues): CallFilters & Pick<PageParams, "createdAfter" | "createdBefore"> {
  const after = dayStart(q.from);
  return {
    agentId: isUuid(q.agentId) ? q.agentId : undefined,
    status: (CALL_STATUSES as readonly string[]).includes(q.status) ? (q.status as CallStatus) : undefined,
    type: q.type === "phone" || q.type === "web" ? q.type : undefined,
    direction: (CALL_DIRECTIONS as readonly string[]).includes(q.direction) ? (q.direction as CallDirection) : undefined,
    search: q.search.trim() || undefined,
    // createdAfter is exclusive: a millisecond before the day starts.
    createdAfter: after ? new Date(Date.parse(after) - 1).toISOString() : undefined,
    createdBefore: dayStart(q.to, 1),
  };
}

/** A page of the list. */
export const LIST_LIMIT = 50;

export async function listPage(
  c: Context<AppEnv>,
  extra: { errors?: FieldErrors; values?: Record<string, string> } = {},
  status: 200 | 400 = 200,
) {
  const shell = await shellOf(c, "Calls", "calls");
  const q = filterValuesOf(c);
  const { ctx } = c.var;
  const [page, agents, numbers] = await Promise.all([
    listCallSummaries({ ctx, input: { limit: LIST_LIMIT, cursor: c.req.query("cursor"), ...filtersOf(q) } }),
    listAgentNames({ ctx }),
    listPhoneNumbers({ ctx, input: { limit: 100 } }),
  ]);
  const { config } = c.var;
  const callerIds = [
    ...numbers.data.map((n) => n.number),
    ...config.TWILIO_FROM_NUMBERS.filter((n) => !numbers.data.some((w) => w.number === n)),
  ];
  const { sandbox } = carrierOf(config);
  const kept = Object.entries(q).filter(([, v]) => v !== "");
  const next = page.nextCursor ? `/dashboard/calls?${new URLSearchParams([...kept, ["cursor", page.nextCursor]])}` : null;
  const csv = `/dashboard/calls/export.csv${kept.length ? `?${new URLSearchParams(kept)}` : ""}`;
  return c.html(
    <CallList
      shell={shell}
      calls={page.data}
      agents={agents}
      callerIds={callerIds}
      sandbox={sandbox}
      q={q}
      next={next}
      csv={csv}
      {...extra}
    />,
    status,
  );
}
