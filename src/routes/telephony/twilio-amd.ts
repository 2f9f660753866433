import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { recordMachineVerdict } from "../../calls/machine-verdict";
import { findCall } from "../../calls/queries/calls";
import type { AppEnv } from "../../context";
import { ApiError } from "../../lib/errors";
import { isUuid } from "../../lib/ids";
import { errorResponses, publicSecurity } from "../../lib/openapi";
import { parseMachineVerdict } from "../../telephony/amd";
import { callIdParam, unknownCall } from "./shared";

export const twilioAmdRoute = createRoute({
  method: "post",
  path: "/telephony/twilio/amd/{callId}",
  tags: ["Telephony"],
  operationId: "twilioAmdStatusCallback",
  security: publicSecurity,
  summary: "Twilio's answering-machine detection verdict, AsyncAmdStatusCallback (form-encoded, X-Twilio-Signature)",
  request: { params: callIdParam },
  responses: { 204: { description: "Stored, and acted on while the call runs (or already stored)." }, ...errorResponses(401, 404, 503) },
});

export const registerTwilioAmd = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(twilioAmdRoute, async (c) => {
    const callId = c.req.param("callId");
    const { services } = c.var;
    const params = new URLSearchParams(await c.req.text());
    const url = `${services.publicOrigin}${new URL(c.req.url).pathname}${new URL(c.req.url).search}`;
    if (!(await services.telephony().verifyCallback(url, params, c.req.header("x-twilio-signature"))))
      throw new ApiError("unauthorized", "The X-Twilio-Signature does not match this request.");
    if (!isUuid(callId)) throw unknownCall();
    const verdict = parseMachineVerdict(params);
    const call = await findCall(c.var.db, callId);
    if (call?.type !== "phone" || !verdict || !call.providerCallId || verdict.callSid !== call.providerCallId) throw unknownCall();
    const outcome = await recordMachineVerdict({
      ctx: { db: c.var.db, callSessions: services.callSessions },
      input: { call, answeredBy: verdict.answeredBy },
    });
    console.log(
      JSON.stringify({
        level: "info",
        msg: "answering-machine detection",
        callId,
        answeredBy: verdict.answeredBy,
        ms: verdict.durationMs,
        outcome,
      }),
    );
    return c.body(null, 204);
  });
