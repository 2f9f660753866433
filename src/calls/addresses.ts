// Where the carrier and the browser reach a call: the paths of our own routes that Twilio's
// callbacks, its media stream and the web call's socket are sent to (src/routes/telephony/), and
// the headers with which those routes hand a socket to the call's Durable Object. In one module so
// that placing, answering and transferring a call, the routes and the object name them alike.

/** Twilio's voice webhook of an incoming call (set on each of the workspace's numbers). */
export const TWILIO_VOICE_PATH = "/telephony/twilio/voice";
export const TWILIO_MEDIA_PATH = (callId: string) => `/telephony/twilio/media/${callId}`;
export const TWILIO_STATUS_PATH = (callId: string) => `/telephony/twilio/status/${callId}`;
/** Where Twilio tells how a transfer's <Dial> went (its `action`), and takes what the caller hears next. */
export const TWILIO_DIAL_PATH = (callId: string) => `/telephony/twilio/dial/${callId}`;
/** Where Twilio posts its answering-machine detection verdict (AsyncAmdStatusCallback). */
export const TWILIO_AMD_PATH = (callId: string) => `/telephony/twilio/amd/${callId}`;
export const WEB_CALL_SOCKET_PATH = (callId: string) => `/web-calls/${callId}/socket`;

/** Set by the routes on a socket they hand to the call's Durable Object: which call, and which transport. */
export const CALL_ID_HEADER = "x-call-id";
export const TRANSPORT_HEADER = "x-call-transport";
