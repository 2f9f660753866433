import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { findCall, recordTransferOutcome } from "../../calls/queries/calls";
import type { AppEnv } from "../../context";
import { TRANSFER_OUTCOMES, type TransferOutcome } from "../../db/schema";
import { ApiError } from "../../lib/errors";
import { isUuid } from "../../lib/ids";
import { errorResponses, publicSecurity } from "../../lib/openapi";
import { hangUpTwiml, sayAndHangUpTwiml } from "../../telephony/twilio";
import { callIdParam, unknownCall } from "./shared";

export const twilioDialRoute = createRoute({
  method: "post",
  path: "/telephony/twilio/dial/{callId}",
  tags: ["Telephony"],
  operationId: "twilioDialAction",
  security: publicSecurity,
  summary: "Twilio's <Dial action> after a transfer's leg ended (form-encoded, X-Twilio-Signature); answers TwiML",
  request: { params: callIdParam },
  responses: {
    200: {
      description: "TwiML: a hang-up after a transfer that was answered; after one that was not, a sentence saying so, then a hang-up.",
      content: { "text/xml": { schema: z.string() } },
    },
    ...errorResponses(401, 404, 503),
  },
});

/** What the caller hears when the destination of a transfer did not take the call. */
const TRANSFER_NOT_CONNECTED: Record<Exclude<TransferOutcome, "completed">, string> = {
  busy: "Sorry, the line I tried to transfer you to is busy. Please call again later. Goodbye.",
  "no-answer": "Sorry, nobody answered at the number I tried to transfer you to. Please call again later. Goodbye.",
  failed: "Sorry, I could not connect your call. Please call again later. Goodbye.",
  canceled: "Sorry, I could not connect your call. Please call again later. Goodbye.",
};

export const registerTwilioDial = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(twilioDialRoute, async (c) => {
    const callId = c.req.param("callId");
    const telephony = c.var.services.telephony();
    const params = new URLSearchParams(await c.req.text());
    const url = `${c.var.services.publicOrigin}${new URL(c.req.url).pathname}${new URL(c.req.url).search}`;
    if (!(await telephony.verifyCallback(url, params, c.req.header("x-twilio-signature"))))
      throw new ApiError("unauthorized", "The X-Twilio-Signature does not match this request.");
    if (!isUuid(callId)) throw unknownCall();
    const call = await findCall(c.var.db, callId);
    if (call?.type !== "phone" || !call.transfer || params.get("CallSid") !== call.providerCallId) throw unknownCall();
    const status = params.get("DialCallStatus") ?? "";
    // Twilio's DialCallStatus; `answered` is what it says while a bridged leg is still up.
    const outcome: TransferOutcome =
      status === "answered"
        ? "completed"
        : (TRANSFER_OUTCOMES as readonly string[]).includes(status)
          ? (status as TransferOutcome)
          : "failed";
    const seconds = Number.parseInt(params.get("DialCallDuration") ?? "0", 10);
    if (await recordTransferOutcome(c.var.db, callId, outcome, Number.isFinite(seconds) && seconds > 0 ? seconds : 0))
      console.log(JSON.stringify({ level: "info", msg: "transfer ended", callId, outcome }));
    const twiml = outcome === "completed" ? hangUpTwiml() : sayAndHangUpTwiml(TRANSFER_NOT_CONNECTED[outcome]);
    return c.body(twiml, 200, { "content-type": "text/xml; charset=utf-8" }) as never;
  });
