// The public routes of live calls, one file per operation. None takes an API key; each proves
// itself another way:
// - POST /telephony/twilio/status/:callId: Twilio's status callbacks, X-Twilio-Signature (twilio-status.ts);
// - POST /telephony/twilio/voice: Twilio's voice webhook for incoming calls, X-Twilio-Signature (twilio-voice.ts);
// - POST /telephony/twilio/amd/:callId: Twilio's answering-machine detection verdict, X-Twilio-Signature (twilio-amd.ts);
// - POST /telephony/twilio/dial/:callId: how a transfer's <Dial> went (its action), X-Twilio-Signature (twilio-dial.ts);
// - GET  /telephony/twilio/media/:callId: Twilio's media stream (WebSocket), the per-call stream
//   token in the stream's `start` message (checked by the call's session; twilio-media.ts);
// - GET  /web-calls/:callId/socket?token=: the browser's socket, the one-time web-call token (web-call-socket.ts).
import { createRouter } from "../../context";
import { registerTwilioAmd } from "./twilio-amd";
import { registerTwilioDial } from "./twilio-dial";
import { registerTwilioMedia } from "./twilio-media";
import { registerTwilioStatus } from "./twilio-status";
import { registerTwilioVoice } from "./twilio-voice";
import { registerWebCallSocket } from "./web-call-socket";

/** The telephony surface (absolute paths: /telephony/… and /web-calls/…; no middleware of its own). */
export function telephonyRoutes() {
  const app = createRouter();
  registerTwilioStatus(app);
  registerTwilioAmd(app);
  registerTwilioDial(app);
  registerTwilioVoice(app);
  registerTwilioMedia(app);
  registerWebCallSocket(app);
  return app;
}
