import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { TWILIO_VOICE_PATH } from "../../calls/addresses";
import { answerIncomingCall } from "../../calls/inbound";
import type { AppEnv } from "../../context";
import { ApiError } from "../../lib/errors";
import { errorResponses, publicSecurity } from "../../lib/openapi";

export const twilioVoiceRoute = createRoute({
  method: "post",
  path: TWILIO_VOICE_PATH,
  tags: ["Telephony"],
  operationId: "twilioVoiceWebhook",
  security: publicSecurity,
  summary: "Twilio's voice webhook for an incoming call to a workspace's number (form-encoded, X-Twilio-Signature); answers TwiML",
  responses: {
    200: {
      description: "TwiML: the media stream to the number's agent, or the call turned away.",
      content: { "text/xml": { schema: z.string() } },
    },
    ...errorResponses(401, 503),
  },
});

export const registerTwilioVoice = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(twilioVoiceRoute, async (c) => {
    const telephony = c.var.services.telephony();
    const params = new URLSearchParams(await c.req.text());
    const url = `${c.var.services.publicOrigin}${new URL(c.req.url).pathname}${new URL(c.req.url).search}`;
    if (!(await telephony.verifyCallback(url, params, c.req.header("x-twilio-signature"))))
      throw new ApiError("unauthorized", "The X-Twilio-Signature does not match this request.");
    const incoming = { callSid: params.get("CallSid") ?? "", from: params.get("From") ?? "", to: params.get("To") ?? "" };
    if (!incoming.callSid || !incoming.to)
      throw new ApiError("bad_request", "A voice webhook carries CallSid, From and To (Twilio's incoming call parameters).");
    const { services } = c.var;
    const answer = await answerIncomingCall({
      ctx: { db: c.var.db, config: c.var.config, publicOrigin: services.publicOrigin, callSessions: services.callSessions },
      input: incoming,
    });
    console.log(
      JSON.stringify({
        level: "info",
        msg: "incoming call",
        answer: answer.kind,
        ...(answer.kind === "stream" ? { callId: answer.call.id } : { reason: answer.reason }),
      }),
    );
    return c.body(answer.twiml, 200, { "content-type": "text/xml; charset=utf-8" }) as never;
  });
