import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { toCallView } from "../../../calls/mapper";
import { listCallsWithUsage } from "../../../calls/service";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, jsonResponse } from "../../../lib/openapi";
import { callPageSchema, listCallsQuerySchema } from "./schema";

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

export const registerListCalls = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(listCallsRoute, async (c) => {
    const page = await listCallsWithUsage({ ctx: c.var.ctx, input: c.req.valid("query") });
    const origin = c.var.services.publicOrigin;
    return c.json({ ...page, data: page.data.map(({ call, usage }) => toCallView(call, usage, origin)) }, 200);
  });
