import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { toCallView } from "../../../calls/mapper";
import { getCallRecording, getCallWithUsage, listCallsWithUsage } from "../../../calls/service";
import type { AppEnv } from "../../../context";
import { ApiError } from "../../../lib/errors";
import { bearerSecurity, errorResponses, idParam, jsonResponse } from "../../../lib/openapi";
import { callPageSchema, callSchema, listCallsQuerySchema } from "./schema";

export const getCallRoute = createRoute({
  method: "get",
  path: "/calls/{id}",
  readsAlongsideTheKeyCheck: true,
  tags: ["Calls"],
  operationId: "getCall",
  summary: "Read a call: status, duration, transcript, analysis, cost",
  security: bearerSecurity,
  request: { params: idParam("Call") },
  responses: { 200: jsonResponse(callSchema, "The call."), ...errorResponses(400, 404) },
});

export const listCallsRoute = createRoute({
  method: "get",
  path: "/calls",
  readsAlongsideTheKeyCheck: true,
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
  path: "/calls/{id}/recording",
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
    const { call, usage } = await getCallWithUsage({ ctx: c.var.ctx, input: { id: c.req.valid("param").id } });
    return c.json(toCallView(call, usage, c.var.services.publicOrigin), 200);
  });

  app.openapi(listCallsRoute, async (c) => {
    const page = await listCallsWithUsage({ ctx: c.var.ctx, input: c.req.valid("query") });
    const origin = c.var.services.publicOrigin;
    return c.json({ ...page, data: page.data.map(({ call, usage }) => toCallView(call, usage, origin)) }, 200);
  });

  app.openapi(getRecordingRoute, async (c) => {
    const object = await getCallRecording({ ctx: { ...c.var.ctx, recordings: c.env.RECORDINGS }, input: { id: c.req.valid("param").id } });
    if (!object) throw new ApiError("not_found", "This call has no recording (yet).");
    return c.body(object.body, 200, { "content-type": "audio/wav", "content-length": String(object.size) });
  });
}
