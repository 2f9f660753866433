/** @jsxImportSource hono/jsx */
// Calls (everyone), under /dashboard/calls: the list with filters, "place a test call", a call's
// page and its recording. Reads through the calls service; the test call through the API's own
// placement (calls/place.ts) and schema.
import type { Context } from "hono";
import { z } from "zod";
import { findAgent, listAgentNames } from "../../agents/service";
import { toCallView } from "../../calls/mapper";
import { placePhoneCall } from "../../calls/place";
import { type CallFilters, getCallRecording, getCallWithUsage, listCalls } from "../../calls/service";
import { ACTIVE_STATUSES, CALL_STATUSES, type CallStatus } from "../../calls/states";
import type { AppEnv } from "../../context";
import { CALL_DIRECTIONS, type CallDirection } from "../../db/schema";
import { ApiError } from "../../lib/errors";
import { isUuid } from "../../lib/ids";
import { callCtx } from "../../routes/v1/calls/place";
import { phoneNumber } from "../../routes/v1/calls/schema";
import { deliveriesOf } from "../../webhooks/log";
import { one, validate } from "../forms";
import { screenRouter } from "../routers";
import { type FieldErrors, shellOf, when } from "../ui";
import { CallPage } from "./detail";
import { CallList, type FilterValues } from "./list";

const testCallSchema = z.object({ agentId: z.uuid({ message: "choose an agent" }), phoneNumber: phoneNumber("phoneNumber") });

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

async function listPage(
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

export function callPages() {
  const app = screenRouter();

  app.get("/", (c) => listPage(c));

  app.post("/test", async (c) => {
    const values = { agentId: one(c.var.form, "agentId"), phoneNumber: one(c.var.form, "phoneNumber") };
    const checked = validate(testCallSchema, values);
    if (!checked.ok) return listPage(c, { errors: checked.errors, values }, 400);
    const agent = await findAgent({ ctx: c.var.ctx, input: { id: checked.data.agentId } });
    if (!agent) return listPage(c, { errors: { agentId: "no such agent in this workspace" }, values }, 400);
    try {
      const { call } = await placePhoneCall(callCtx(c), agent, { phoneNumber: checked.data.phoneNumber }, undefined);
      return c.redirect(`/dashboard/calls/${call.id}`, 303);
    } catch (err) {
      if (err instanceof ApiError && err.status < 500) return listPage(c, { errors: { form: err.message }, values }, 400);
      throw err;
    }
  });

  app.get("/:id", async (c) => {
    const { call, usage } = await getCallWithUsage({ ctx: c.var.ctx, input: { id: c.req.param("id") } });
    const shell = await shellOf(c, `Call ${when(call.createdAt)}`, "calls");
    const deliveries = await deliveriesOf(c.var.db, c.var.auth.organizationId, call.id);
    const live = ACTIVE_STATUSES.includes(call.status);
    return c.html(<CallPage shell={shell} call={call} v={toCallView(call, usage, "")} live={live} deliveries={deliveries} />);
  });

  app.get("/:id/recording", async (c) => {
    const object = await getCallRecording({ ctx: { ...c.var.ctx, recordings: c.env.RECORDINGS }, input: { id: c.req.param("id") } });
    if (!object) throw new ApiError("not_found", "This call has no recording.");
    return c.body(object.body, 200, {
      "content-type": "audio/wav",
      "content-length": String(object.size),
      "cache-control": "private, no-store",
    });
  });

  return app;
}
