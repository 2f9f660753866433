import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { endCall } from "../../../calls/hang-up";
import { toCallView } from "../../../calls/mapper";
import { emptyUsage, usageOfCalls } from "../../../calls/service";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, idParam, jsonResponse } from "../../../lib/openapi";
import { callSchema } from "./schema";

export const endCallRoute = createRoute({
  method: "post",
  path: "/calls/{id}/end",
  tags: ["Calls"],
  operationId: "endCall",
  summary: "End a call: hang up one in progress, cancel one still queued or ringing",
  description:
    "A call in progress is hung up by its live session, which ends it with `endedReason: ended-via-api` " +
    "(status `completed`): the carrier hangs up, the transcript and recording are kept and `call.completed` " +
    "fires. The answer is 202 with the call as it is now (it may still read `in-progress`). A call that " +
    "has not connected (queued or ringing; a web call nobody joined) is canceled at once: 200 with the " +
    "call `canceled` / `call-canceled`, and `call.failed` fires. A call that has ended answers 409 " +
    '`conflict`. docs/calls.md, "Ending a call".',
  security: bearerSecurity,
  request: { params: idParam("Call") },
  responses: {
    200: jsonResponse(callSchema, "Ended by this request: canceled before it connected (or ended `ended-via-api` when no session ran)."),
    202: jsonResponse(callSchema, "Its live session is ending it (`ended-via-api`); the terminal webhook follows."),
    ...errorResponses(400, 404, 409, 502),
  },
});

export const registerEndCall = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(endCallRoute, async (c) => {
    const { ctx } = c.var;
    const { call, outcome } = await endCall({ ctx, input: { id: c.req.valid("param").id } });
    const usage = (await usageOfCalls({ ctx, input: { callIds: [call.id] } })).get(call.id) ?? emptyUsage();
    const view = toCallView(call, usage, ctx.publicOrigin);
    if (outcome === "ending") return c.json(view, 202);
    return c.json(view, 200);
  });
