import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { findCall } from "../../calls/queries/calls";
import type { AppEnv } from "../../context";
import { isUuid } from "../../lib/ids";
import { errorResponses, publicSecurity } from "../../lib/openapi";
import { callIdParam, requireUpgrade, switching, toSession, unknownCall } from "./shared";

export const twilioMediaRoute = createRoute({
  method: "get",
  path: "/telephony/twilio/media/{callId}",
  tags: ["Telephony"],
  operationId: "twilioMediaStream",
  security: publicSecurity,
  summary: "Twilio Media Streams (WebSocket); the stream token arrives in `start`",
  request: { params: callIdParam },
  responses: { ...switching, ...errorResponses(404, 426) },
});

export const registerTwilioMedia = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(twilioMediaRoute, async (c) => {
    requireUpgrade(c);
    const callId = c.req.param("callId");
    if (!isUuid(callId)) throw unknownCall();
    const call = await findCall(c.var.db, callId);
    if (call?.type !== "phone") throw unknownCall();
    return (await toSession(c, callId, "twilio")) as never;
  });
