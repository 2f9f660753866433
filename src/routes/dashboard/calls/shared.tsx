/** @jsxImportSource hono/jsx */
// What the call pages share: the list page with its filters (also the test call's form, shown
// again when the call cannot be placed).
import type { Context } from "hono";
import { listAgentNames } from "../../../agents/service";
import { type CallFilters, listCalls } from "../../../calls/service";
import { CALL_STATUSES, type CallStatus } from "../../../calls/states";
import type { AppEnv } from "../../../context";
import { CallList, type FilterValues } from "../../../dashboard/calls/list";
import { type FieldErrors, shellOf } from "../../../dashboard/ui";
import { CALL_DIRECTIONS, type CallDirection } from "../../../db/schema";
import { isUuid } from "../../../lib/ids";

/** The list's filters as the form sent them; a value the form does not offer filters nothing. */
function filtersOf(q: FilterValues): CallFilters {
  return {
    agentId: isUuid(q.agentId) ? q.agentId : undefined,
    status: (CALL_STATUSES as readonly string[]).includes(q.status) ? (q.status as CallStatus) : undefined,
    type: q.type === "phone" || q.type === "web" ? q.type : undefined,
    direction: (CALL_DIRECTIONS as readonly string[]).includes(q.direction) ? (q.direction as CallDirection) : undefined,
  };
}

/** The list shows the newest calls, without paging. */
const LIST_LIMIT = 100;

export async function listPage(
  c: Context<AppEnv>,
  extra: { errors?: FieldErrors; values?: Record<string, string> } = {},
  status: 200 | 400 = 200,
) {
  const shell = await shellOf(c, "Calls", "calls");
  const q: FilterValues = {
    agentId: c.req.query("agentId") ?? "",
    status: c.req.query("status") ?? "",
    type: c.req.query("type") ?? "",
    direction: c.req.query("direction") ?? "",
  };
  const { ctx } = c.var;
  const [{ data: calls }, agents] = await Promise.all([
    listCalls({ ctx, input: { limit: LIST_LIMIT, ...filtersOf(q) } }),
    listAgentNames({ ctx }),
  ]);
  return c.html(<CallList shell={shell} calls={calls} agents={agents} q={q} {...extra} />, status);
}
