// The public routes of live calls. None takes an API key; each proves itself another way:
// - POST /telephony/twilio/status/:callId: Twilio's status callbacks, X-Twilio-Signature;
// - POST /telephony/twilio/voice: Twilio's voice webhook for incoming calls, X-Twilio-Signature;
// - POST /telephony/twilio/dial/:callId: how a transfer's <Dial> went (its action), X-Twilio-Signature;
// - GET  /telephony/twilio/media/:callId: Twilio's media stream (WebSocket), the per-call stream
//   token in the stream's `start` message (checked by the call's session);
// - GET  /web-calls/:callId/socket?token=: the browser's socket, the one-time web-call token.
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { CALL_ID_HEADER, TRANSPORT_HEADER, TWILIO_VOICE_PATH } from "../../calls/addresses";
import { answerIncomingCall } from "../../calls/inbound";
import { finishCall, startCall } from "../../calls/lifecycle";
import { redeemWebCallToken } from "../../calls/place";
import { answeredDeadline, findCall, moveCall, recordTransferOutcome } from "../../calls/queries/calls";
import type { EndedReason } from "../../calls/states";
import { callStub, leaveHangUpToSession } from "../../calls/stub";
import { type AppEnv, createRouter } from "../../context";
import { TRANSFER_OUTCOMES, type TransferOutcome } from "../../db/schema";
import { ApiError } from "../../lib/errors";
import { isUuid } from "../../lib/ids";
import { errorResponses, publicSecurity } from "../../lib/openapi";
import { hangUpTwiml, sayAndHangUpTwiml } from "../../telephony/twilio";

const TWILIO_ENDINGS: Record<string, EndedReason> = {
  busy: "customer-busy",
  "no-answer": "customer-did-not-answer",
  canceled: "call-canceled",
  failed: "dial-failed",
};

function sessionNamespace(c: Context<AppEnv>): DurableObjectNamespace {
  const ns = c.env.CALL_SESSIONS;
  if (!ns) throw new ApiError("misconfigured", "The CALL_SESSIONS Durable Object binding is missing (wrangler.toml).");
  return ns;
}

/** Hands the upgrade to the call's Durable Object, which answers 101 with the socket. */
async function toSession(c: Context<AppEnv>, callId: string, transport: "twilio" | "web"): Promise<Response> {
  const headers = new Headers(c.req.raw.headers);
  headers.set(CALL_ID_HEADER, callId);
  headers.set(TRANSPORT_HEADER, transport);
  const res = await callStub(sessionNamespace(c), callId).fetch(new Request(c.req.url, { method: "GET", headers }));
  // A response from a Durable Object has immutable headers; the middleware adds its own.
  return res.webSocket
    ? new Response(null, { status: 101, webSocket: res.webSocket, headers: res.headers })
    : new Response(res.body, { status: res.status, headers: res.headers });
}

const requireUpgrade = (c: Context<AppEnv>) => {
  if (c.req.header("upgrade")?.toLowerCase() !== "websocket")
    throw new ApiError("upgrade_required", "This address takes a WebSocket upgrade (Upgrade: websocket).");
};

const unknownCall = () => new ApiError("not_found", "No such call.");

const callIdParam = z.object({ callId: z.string().openapi({ param: { name: "callId", in: "path" }, description: "The call's id." }) });
const switching = { 101: { description: "Switching protocols: the WebSocket is open." } };

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

export const webCallSocketRoute = createRoute({
  method: "get",
  path: "/web-calls/{callId}/socket",
  tags: ["Calls"],
  operationId: "webCallSocket",
  security: publicSecurity,
  summary: "The browser's web-call WebSocket (one-time token in the query; protocol in docs/calls.md)",
  request: { params: callIdParam, query: z.object({ token: z.string().optional() }) },
  responses: { ...switching, ...errorResponses(401, 426) },
});

/** The telephony surface (absolute paths: /telephony/… and /web-calls/…; no middleware of its own). */
export function telephonyRoutes() {
  const app = createRouter();
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

  app.openapi(twilioVoiceRoute, async (c) => {
    const telephony = c.var.services.telephony();
    const params = new URLSearchParams(await c.req.text());
    const url = `${c.var.services.publicOrigin}${new URL(c.req.url).pathname}${new URL(c.req.url).search}`;
    if (!(await telephony.verifyCallback(url, params, c.req.header("x-twilio-signature"))))
      throw new ApiError("unauthorized", "The X-Twilio-Signature does not match this request.");
    const incoming = { callSid: params.get("CallSid") ?? "", from: params.get("From") ?? "", to: params.get("To") ?? "" };
    if (!incoming.callSid || !incoming.to)
      throw new ApiError("bad_request", "A voice webhook carries CallSid, From and To (Twilio's incoming call parameters).");
    const answer = await answerIncomingCall(
      { db: c.var.db, config: c.var.config, env: c.env, origin: c.var.services.publicOrigin },
      incoming,
    );
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

  app.openapi(twilioMediaRoute, async (c) => {
    requireUpgrade(c);
    const callId = c.req.param("callId");
    if (!isUuid(callId)) throw unknownCall();
    const call = await findCall(c.var.db, callId);
    if (call?.type !== "phone") throw unknownCall();
    return (await toSession(c, callId, "twilio")) as never;
  });

  app.openapi(webCallSocketRoute, async (c) => {
    requireUpgrade(c);
    const callId = c.req.param("callId");
    const token = c.req.query("token") ?? "";
    if (!isUuid(callId) || !token || !(await redeemWebCallToken(c.var.db, callId, token)))
      throw new ApiError("unauthorized", "This web-call token is not valid: it is wrong, expired or already used. Start a new web call.");
    return (await toSession(c, callId, "web")) as never;
  });
  return app;
}
