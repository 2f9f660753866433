import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { getAgent } from "../../../agents/service";
import { toCallView } from "../../../calls/mapper";
import { startWebCall } from "../../../calls/place";
import { WEB_CALL_RATE } from "../../../calls/transports";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, idParam, jsonBody, jsonResponse } from "../../../lib/openapi";
import { createWebCallSchema, webCallSchema } from "./schema";

export const createWebCallRoute = createRoute({
  method: "post",
  path: "/agents/{id}/web-call",
  tags: ["Calls"],
  operationId: "createWebCall",
  summary: "Start an in-browser voice session with the agent",
  description:
    "Answers the call (type `web`) and a one-time session token with the WebSocket URL to open from the browser. " +
    "The token works once and expires after WEB_CALL_TOKEN_TTL_SECONDS (120 s by default); docs/calls.md describes the socket's protocol.",
  security: bearerSecurity,
  request: { params: idParam("Agent"), ...jsonBody(createWebCallSchema) },
  responses: { 201: jsonResponse(webCallSchema, "The web call and how to join it."), ...errorResponses(400, 402, 404) },
});

export const registerCreateWebCall = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(createWebCallRoute, async (c) => {
    const agent = await getAgent({ ctx: c.var.ctx, input: { id: c.req.valid("param").id } });
    const { ctx } = c.var;
    const session = await startWebCall({ ctx, input: { ...c.req.valid("json"), agent } });
    c.header("Location", `/v1/calls/${session.call.id}`);
    return c.json(
      {
        call: toCallView(session.call, undefined, ctx.publicOrigin),
        webCall: {
          url: session.url,
          token: session.token,
          expiresAt: session.expiresAt.toISOString(),
          sampleRate: WEB_CALL_RATE,
          encoding: "pcm_s16le" as const,
        },
      },
      201,
    );
  });
