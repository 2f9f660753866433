import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { toCallView } from "../../../calls/mapper";
import { getCallWithUsage } from "../../../calls/service";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, idParam, jsonResponse } from "../../../lib/openapi";
import { callSchema } from "./schema";

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

export const registerGetCall = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(getCallRoute, async (c) => {
    const { call, usage } = await getCallWithUsage({ ctx: c.var.ctx, input: { id: c.req.valid("param").id } });
    return c.json(toCallView(call, usage, c.var.services.publicOrigin), 200);
  });
