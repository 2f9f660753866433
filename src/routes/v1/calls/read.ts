import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { and, desc, eq, type SQL } from "drizzle-orm";
import type { Context } from "hono";
import type { AppEnv } from "../../../context";
import { calls } from "../../../db/schema";
import { ApiError } from "../../../lib/errors";
import { bearerSecurity, errorResponses, idParam, jsonResponse } from "../../../lib/openapi";
import { pageOf, pageQuery } from "../../../lib/pagination";
import { originOf } from "../webhook-endpoints/deps";
import { toCallView, usageOf } from "./mapper";
import { callPageSchema, callSchema, listCallsQuerySchema } from "./schema";

export const callNotFound = () => new ApiError("not_found", "No call with that id in this workspace.");

async function ownCall(c: Context<AppEnv>, id: string) {
  const [row] = await c.var.db
    .select()
    .from(calls)
    .where(and(eq(calls.id, id), eq(calls.organizationId, c.var.auth.organizationId)));
  if (!row) throw callNotFound();
  return row;
}

export const getCallRoute = createRoute({
  method: "get",
  path: "/v1/calls/{id}",
  tags: ["Calls"],
  operationId: "getCall",
  summary: "Read a call: status, duration, transcript, analysis, cost",
  security: bearerSecurity,
  request: { params: idParam("Call") },
  responses: { 200: jsonResponse(callSchema, "The call."), ...errorResponses(400, 404) },
});

export const listCallsRoute = createRoute({
  method: "get",
  path: "/v1/calls",
  tags: ["Calls"],
  operationId: "listCalls",
  summary: "List the workspace's calls",
  description: "Newest first; filter by agent, status, direction, type and creation time (createdAfter/createdBefore).",
  security: bearerSecurity,
  request: { query: listCallsQuerySchema },
  responses: { 200: jsonResponse(callPageSchema, "A page of calls."), ...errorResponses(400) },
});

export const getRecordingRoute = createRoute({
  method: "get",
  path: "/v1/calls/{id}/recording",
  tags: ["Calls"],
  operationId: "getCallRecording",
  summary: "The call's recording: a stereo WAV (left the caller, right the agent)",
  security: bearerSecurity,
  request: { params: idParam("Call") },
  responses: {
    200: { description: "audio/wav", content: { "audio/wav": { schema: { type: "string", format: "binary" } } } },
    ...errorResponses(400, 404),
  },
});

export function registerReadCalls(app: OpenAPIHono<AppEnv>): void {
  app.openapi(getCallRoute, async (c) => {
    const call = await ownCall(c, c.req.valid("param").id);
    const usage = await usageOf(c.var.db, [call.id]);
    return c.json(toCallView(call, usage.get(call.id), originOf(c)), 200);
  });

  app.openapi(listCallsRoute, async (c) => {
    const query = c.req.valid("query");
    const page = pageQuery(query);
    const conditions: SQL[] = [eq(calls.organizationId, c.var.auth.organizationId), ...page.where(calls)];
    if (query.agentId) conditions.push(eq(calls.agentId, query.agentId));
    if (query.status) conditions.push(eq(calls.status, query.status));
    if (query.direction) conditions.push(eq(calls.direction, query.direction));
    if (query.type) conditions.push(eq(calls.type, query.type));
    const rows = await c.var.db
      .select()
      .from(calls)
      .where(and(...conditions))
      .orderBy(desc(calls.id))
      .limit(page.limit + 1);
    const usage = await usageOf(
      c.var.db,
      rows.map((r) => r.id),
    );
    const origin = originOf(c);
    return c.json(
      pageOf(rows, page.limit, (r) => toCallView(r, usage.get(r.id), origin)),
      200,
    );
  });

  app.openapi(getRecordingRoute, async (c) => {
    const call = await ownCall(c, c.req.valid("param").id);
    const object = call.recordingKey ? await c.env.RECORDINGS?.get(call.recordingKey) : null;
    if (!object) throw new ApiError("not_found", "This call has no recording (yet).");
    return c.body(object.body, 200, { "content-type": "audio/wav", "content-length": String(object.size) });
  });
}
