import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { finishCall, startCall } from "../../calls/lifecycle";
import { answeredDeadline, findCall, moveCall } from "../../calls/queries/calls";
import type { EndedReason } from "../../calls/states";
import { leaveHangUpToSession } from "../../calls/stub";
import type { AppEnv } from "../../context";
import { ApiError } from "../../lib/errors";
import { isUuid } from "../../lib/ids";
import { errorResponses, publicSecurity } from "../../lib/openapi";
import { callIdParam, sessionNamespace, unknownCall } from "./shared";

const TWILIO_ENDINGS: Record<string, EndedReason> = {
  busy: "customer-busy",
  "no-answer": "customer-did-not-answer",
  canceled: "call-canceled",
  failed: "dial-failed",
};

export const twilioStatusRoute = createRoute({
  method: "post",
  path: "/telephony/twilio/status/{callId}",
  tags: ["Telephony"],
  operationId: "twilioStatusCallback",
  security: publicSecurity,
  summary: "Twilio's call status callbacks (form-encoded, X-Twilio-Signature)",
  request: { params: callIdParam },
  responses: { 204: { description: "Applied (or already applied)." }, ...errorResponses(401, 404, 503) },
});

export const registerTwilioStatus = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(twilioStatusRoute, async (c) => {
    const callId = c.req.param("callId");
    const { config, db } = c.var;
    const telephony = c.var.services.telephony();
    const raw = await c.req.text();
    const params = new URLSearchParams(raw);
    const url = `${c.var.services.publicOrigin}${new URL(c.req.url).pathname}${new URL(c.req.url).search}`;
    if (!(await telephony.verifyCallback(url, params, c.req.header("x-twilio-signature"))))
      throw new ApiError("unauthorized", "The X-Twilio-Signature does not match this request.");
    if (!isUuid(callId)) throw unknownCall();
    const call = await findCall(db, callId);
    if (call?.type !== "phone" || (call.providerCallId && params.get("CallSid") !== call.providerCallId)) throw unknownCall();
    const deps = c.var.services.webhooks;
    const status = params.get("CallStatus") ?? "";
    if (status === "ringing") await moveCall(db, callId, "ringing");
    else if (status === "in-progress") {
      await startCall(deps, callId, await answeredDeadline(db, call, config.CALL_WATCHDOG_GRACE_SECONDS));
    } else if (status === "completed") {
      if (call.status === "in-progress") {
        // The callee hung up: the call's session ends it with its whole transcript and recording,
        // also when it is already ending (202: left to it, this callback writes nothing). Only
        // when no session runs (it died, or the stream never started) is it ended here; a session
        // that finished meanwhile has already written the end, and this write then changes nothing.
        if (!(await leaveHangUpToSession(sessionNamespace(c), callId))) await finishCall(deps, callId, "customer-ended-call");
      } else if (call.status === "queued" || call.status === "ringing") await finishCall(deps, callId, "media-stream-failed");
    } else if (TWILIO_ENDINGS[status]) await finishCall(deps, callId, TWILIO_ENDINGS[status] as EndedReason);
    return c.body(null, 204);
  });
