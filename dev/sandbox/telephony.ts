// The telephony sandbox: a local HTTP server that speaks the subset of Twilio's Programmable
// Voice API the worker uses, and plays a scripted, simulated callee, so a whole outbound phone call
// runs on a laptop and in CI with no network; and an incoming call to one of the account's numbers
// (dialIn, POST /__sandbox/inbound): Twilio's signed voice webhook to the number's VoiceUrl, then the
// TwiML it answers, the media stream included. The worker's Twilio adapter is the real code path:
// it creates the call (POST .../Calls.json with inline <Connect><Stream> TwiML), receives signed
// status callbacks, accepts the Media Streams WebSocket the sandbox opens to it, hangs up
// (POST .../Calls/{sid}.json Status=completed) and transfers the call (the same resource with
// Twiml=<Response><Dial>…: the stream stops, a simulated person answers the transfer leg, and the
// call ends when that conversation does) or presses keys (<Play digits> then a new <Connect><Stream>:
// ivr.ts). The dialled number picks the callee's behaviour
// (callee.ts); the media stream and its measurements are in media-stream.ts; the account's
// numbers (bought and verified, the only allowed `From`s) in phone-numbers.ts. See docs/sandbox.md.
//
//   npx tsx dev/sandbox/telephony.ts   # PORT (default 8791), TWILIO_ACCOUNT_SID / TWILIO_AUTH_TOKEN
//                                      # (default random), PROVIDER_URL + PROVIDER_API_KEY (default:
//                                      # a provider sandbox started in-process)
//   curl -u "$TWILIO_ACCOUNT_SID:$TWILIO_AUTH_TOKEN" -d From=+12025550100 -d To=+1… \
//     http://127.0.0.1:8791/__sandbox/inbound     # an incoming call to one of the account's numbers
import { randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import { realpathSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { fileURLToPath } from "node:url";
import { listenLocal } from "../listen";
import { AnsweringMachine, GREETING, parseAmdRequest, type SandboxAmd, type SandboxMachine } from "./amd";
import { Callee, CalleeVoice, linesOf, type Scenario, scenarioFor } from "./callee";
import { type IvrRecord, PLAYABLE_DIGITS, playMs } from "./ivr";
import { clock, MediaStream, twilioSignature } from "./media-stream";
import { AccountNumbers, API_VERSION, rfc2822, TwilioError } from "./phone-numbers";

export { twilioSignature } from "./media-stream";
export { type AccountNumber, AccountNumbers, API_VERSION, type NumberKind } from "./phone-numbers";

export type CallStatus = "queued" | "initiated" | "ringing" | "in-progress" | "completed" | "busy" | "no-answer" | "canceled" | "failed";

/** Who or what ended the call. */
export type EndedBy =
  | "worker" // POST .../Calls/{sid}.json Status=completed|canceled
  | "callee" // the scripted callee hung up, was busy or did not answer
  | "stream-closed" // the worker closed the media stream (the TwiML ended, so did the call)
  | "stream-refused" // the worker answered the WebSocket upgrade with an HTTP error
  | "network" // the number was unreachable, or the media stream could not connect
  | "twiml-ended" // the TwiML of an update ran out (after its <Dial>, say) or said <Hangup/>
  | "sandbox"; // stop() was called during the call

/** How a <Dial> went: Twilio's DialCallStatus. */
export type DialOutcome = "completed" | "busy" | "no-answer" | "failed" | "canceled";

/** The leg a <Dial> of a call update placed: a call transfer. Times are epoch ms, like the call's. */
export interface SandboxTransfer {
  /** The dialled number, and the scenario it plays (callee.ts): busy, no answer, unreachable and invalid fail; any other answers. */
  to: string;
  scenario: Scenario;
  /** The <Dial callerId>; when absent, Twilio's default: the call's own caller id (`from`). */
  callerId: string;
  answerOnBridge: boolean;
  /** The <Dial timeout>: seconds of ringing before no-answer (Twilio's default 30). */
  timeout: number;
  /** When the update was accepted: the media stream stopped then. */
  requestedAt: number;
  ringingAt?: number;
  /** When the simulated person picked up and the caller was bridged to them. */
  answeredAt?: number;
  endedAt?: number;
  /** Set when the leg ended: `completed` after a conversation, `canceled` when the call ended (or was redirected) while it rang. */
  outcome?: DialOutcome;
  /** DialCallDuration: whole seconds bridged, rounded up (0 when never answered). */
  duration?: number;
}

export interface CallbackAttempt {
  status: CallStatus;
  url: string;
  sequenceNumber: number;
  /** When the attempt finished (epoch ms). */
  at: number;
  httpStatus?: number;
  error?: string;
  /** Sent by redeliver(), not by the call's progress. */
  redelivery: boolean;
}

/** One call and everything measured on it; times are epoch milliseconds (fractional, monotonic). */
export interface SandboxCall {
  sid: string;
  to: string;
  from: string;
  /** `outbound-api`: created through POST Calls.json; `inbound`: dialled in to one of the account's numbers (dialIn). */
  direction: "outbound-api" | "inbound";
  /** Inbound calls: the TwiML the number's VoiceUrl answered, and what its <Say> said (and an update's <Say>s). */
  answerTwiml?: string;
  platformSaid: string[];
  /** The TwiML the worker set on the live call (POST Calls/{sid}.json Twiml=…), as received. */
  twimlUpdates: Array<{ at: number; twiml: string }>;
  /** The latest <Dial> of such an update: the call's transfer. */
  transfer?: SandboxTransfer;
  /** The keys the worker pressed (an update's <Play digits>, `w` pauses kept), when each began to play. */
  digitsPlayed: Array<{ digits: string; at: number }>;
  /** The keys the callee pressed (`dtmf` stream messages sent; the keypad callee). */
  dtmfSent: Array<{ digit: string; at: number }>;
  /** The IVR callee: menus said, keys heard, choices made (ivr.ts). */
  ivr?: IvrRecord;
  scenario: Scenario;
  status: CallStatus;
  statuses: Array<{ status: CallStatus; at: number }>;
  /** Every status callback attempted, in order. */
  callbacks: CallbackAttempt[];
  statusCallback?: string;
  statusCallbackEvents: string[];
  /** The request's Timeout (seconds of ringing). */
  timeout: number;
  createdAt: number;
  answeredAt?: number;
  endedAt?: number;
  /** CallDuration: whole seconds from answer to hang-up, rounded up (0 when never answered). */
  duration?: number;
  endedBy?: EndedBy;
  /** The <Stream url> of the TwiML, as given. */
  streamUrl?: string;
  /** The <Parameter>s of the <Stream>. */
  customParameters: Record<string, string>;
  streamSid?: string;
  /** The callee's lines as sent: first and last frame. `cut` when the call ended mid-line. */
  said: Array<{ text: string; startAt: number; endAt?: number; cut?: boolean }>;
  /** 20 ms μ-law frames' worth of audio received from the worker. */
  heardFrames: number;
  /**
   * The agent's utterances: one starts with the first audio after the agent was silent and ends
   * when its playback ran dry and no audio came for 250 ms. First and last frame are arrival
   * times; `endAt` is when its playback ended; `frames` counts 20 ms of audio; `cleared` when a
   * `clear` cut it.
   */
  agentUtterances: Array<{ firstFrameAt: number; lastFrameAt: number; endAt?: number; frames: number; cleared: boolean }>;
  /** For each callee line: ms from its last frame to the first agent audio that arrived after it. */
  latencies: number[];
  /** Times the playback ran dry inside an agent utterance and then resumed: an audible gap. */
  underruns: number;
  clears: number;
  marksEchoed: number;
  framesSent: number;
  /** Frames sent more than 40 ms after their due time: the sandbox's own lag. */
  lateFrames: number;
  /** Barge-in scenario: when the callee started talking over the agent, and how soon a `clear` followed. */
  bargeIn?: { at: number; clearAfterMs?: number };
  errors: string[];
  closeCode?: number;
  closeReason?: string;
  /** The HTTP status of a refused WebSocket upgrade. */
  rejectStatus?: number;
  /** Answering-machine detection, when the call asked for it (MachineDetection, AsyncAmd): its verdict (amd.ts). */
  amd?: SandboxAmd;
  /** The answering machine's greeting, beep and recording (the machine number only; amd.ts). */
  machine?: SandboxMachine;
}

export interface TelephonySandbox {
  /** The API base, http://127.0.0.1:PORT: what https://api.twilio.com is to the worker. */
  url: string;
  accountSid: string;
  authToken: string;
  /** Every call created, in order. */
  calls: SandboxCall[];
  /** The account's numbers: bought (IncomingPhoneNumbers) and verified caller ids (OutgoingCallerIds). */
  numbers: AccountNumbers;
  /** Sends the call's last status callback again, verbatim (same signature and idempotency token). */
  redeliver(callSid: string): Promise<CallbackAttempt>;
  /**
   * An incoming call from `from` (whose number picks the caller's script, as for outbound callees)
   * to `to`, one of the account's bought numbers: its VoiceUrl gets Twilio's signed voice webhook,
   * and the TwiML answered is played (<Connect><Stream>, <Say>, <Hangup>, <Reject>). Resolves once
   * the webhook was answered. Also `POST /__sandbox/inbound` (From, To).
   */
  dialIn(from: string, to: string): Promise<SandboxCall>;
  /**
   * With a call sid: resolves when that call has ended and its last status callback was attempted.
   * With a predicate: resolves with the first call for which it holds (checked every 10 ms).
   */
  waitFor(target: string | ((call: SandboxCall) => boolean), timeoutMs?: number): Promise<SandboxCall>;
  /**
   * Resolves once every line of the scenario's callee is synthesized (each text is made once per
   * sandbox). A call makes them while it rings; on a busy machine that can take seconds, so a
   * test that times what the callee says against the agent's audio warms them first.
   */
  warm(scenario: Scenario): Promise<void>;
  stop(): Promise<void>;
}

export const DEFAULT_TELEPHONY_PORT = 8791;
/** The number the account has unless told otherwise (Twilio's test "From" number; the stack's TWILIO_FROM_NUMBERS). */
export const DEFAULT_FROM_NUMBER = "+15005550006";
/** Time from `initiated` to `ringing`, and from `ringing` to answer (or busy). */
export const RING_AFTER_MS = 100;
export const ANSWER_AFTER_MS = 300;
/** A call to the no-answer number rings for min(Timeout, this) seconds, so tests stay quick. */
export const NO_ANSWER_MAX_SECONDS = 3;
/** How long the person a call is transferred to talks before hanging up (option `transferTalkMs`). */
export const TRANSFER_TALK_MS = 1_000;
/** <Dial timeout>: Twilio's default and range, in seconds. */
const DIAL_TIMEOUT = { default: 30, min: 5, max: 600 };
const CALLBACK_TIMEOUT_MS = 15_000; // Twilio's webhook timeout
const BODY_LIMIT = 64 * 1024;
const E164 = /^\+[1-9]\d{1,14}$/;
const EVENTS = ["initiated", "ringing", "answered", "completed"];

const hex = (bytes: number) => randomBytes(bytes).toString("hex");

// ---------------------------------------------------------------------------------------------
// TwiML: the sandbox plays <Response><Connect><Stream url="…"><Parameter name value/>…

const decodeXml = (s: string) =>
  s.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (_, e: string) => {
    const lower = e.toLowerCase();
    if (lower.startsWith("#x")) return String.fromCodePoint(Number.parseInt(lower.slice(2), 16));
    if (lower.startsWith("#")) return String.fromCodePoint(Number(lower.slice(1)));
    return { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" }[lower] ?? "";
  });

const attributes = (raw: string): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const m of raw.matchAll(/([A-Za-z_][\w.-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) out[m[1] as string] = decodeXml(m[2] ?? m[3] ?? "");
  return out;
};

export function parseStreamTwiml(twiml: string): { url: string; parameters: Record<string, string> } {
  const doc = twiml.replace(/<\?xml[\s\S]*?\?>/, "").replace(/<!--[\s\S]*?-->/g, "");
  if (!/^\s*<Response\s*>[\s\S]*<\/Response>\s*$/.test(doc))
    throw new TwilioError(400, 12100, "Document parse failure: Twiml must be a <Response> document.");
  const connect = /<Connect\b[^>]*>([\s\S]*?)<\/Connect>/.exec(doc);
  if (!connect)
    throw new TwilioError(
      400,
      12100,
      /<Start\b/.test(doc)
        ? "The telephony sandbox plays <Connect><Stream> (a bidirectional stream) only; <Start><Stream> is not supported."
        : "The telephony sandbox plays <Connect><Stream> only: the Twiml has no <Connect>.",
    );
  const stream = /<Stream\b([^>]*?)(?:\/>|>([\s\S]*?)<\/Stream>)/.exec(connect[1] ?? "");
  if (!stream) throw new TwilioError(400, 12100, "Document parse failure: <Connect> has no <Stream>.");
  const url = attributes(stream[1] ?? "").url;
  if (!url || !/^wss?:\/\/[^/\s]+/.test(url))
    throw new TwilioError(400, 12100, `<Stream> url must be an absolute wss:// (or, locally, ws://) URL; got ${url ?? "none"}.`);
  const parameters: Record<string, string> = {};
  for (const p of (stream[2] ?? "").matchAll(/<Parameter\b([^>]*?)\/?>/g)) {
    const a = attributes(p[1] ?? "");
    if (a.name !== undefined) parameters[a.name] = a.value ?? "";
  }
  return { url, parameters };
}

/** A verb of TwiML set on a live call (POST Calls/{sid}.json Twiml=…), as the sandbox plays it. */
export type UpdateVerb =
  | { verb: "Dial"; number: string; callerId?: string; answerOnBridge: boolean; timeout: number; action?: string }
  | { verb: "Connect"; url: string; parameters: Record<string, string> }
  | { verb: "Say"; text: string }
  | { verb: "Play"; digits: string }
  | { verb: "Pause"; seconds: number }
  | { verb: "Hangup" };

const PLAYED_IN_UPDATES = "<Dial><Number>, <Connect><Stream>, <Play digits>, <Say>, <Pause> and <Hangup/>";
/** A child element: `<Name attrs/>` or `<Name attrs>inner</Name>`. */
const ELEMENT = /<([A-Za-z]+)\b([^>]*?)(?:\/>|>([\s\S]*?)<\/\1\s*>)/g;

/** The elements of `body` in order; text between them is an error (TwiML verbs hold no loose text). */
function elements(body: string, where: string): Array<{ name: string; attrs: Record<string, string>; inner: string }> {
  const out: Array<{ name: string; attrs: Record<string, string>; inner: string }> = [];
  let last = 0;
  for (const m of body.matchAll(ELEMENT)) {
    if (body.slice(last, m.index).trim()) throw new TwilioError(400, 12100, `Document parse failure: text outside a verb in ${where}.`);
    last = m.index + m[0].length;
    out.push({ name: m[1] as string, attrs: attributes(m[2] ?? ""), inner: m[3] ?? "" });
  }
  if (body.slice(last).trim()) throw new TwilioError(400, 12100, `Document parse failure: text outside a verb in ${where}.`);
  return out;
}

function parseDial(attrs: Record<string, string>, inner: string): UpdateVerb {
  // action: requested (POST, signed) when the leg ends; its answer plays instead of the verbs after the <Dial>.
  let action: string | undefined;
  if (attrs.action !== undefined) {
    action = decodeXml(attrs.action).trim();
    if (!/^https?:\/\//.test(action))
      throw new TwilioError(400, 12100, "The telephony sandbox requests an absolute http(s) <Dial action> URL only.");
    if ((attrs.method ?? "POST").toUpperCase() !== "POST")
      throw new TwilioError(400, 12100, "The telephony sandbox requests a <Dial action> with POST only.");
  }
  const bridge = attrs.answerOnBridge ?? "false";
  if (bridge !== "true" && bridge !== "false")
    throw new TwilioError(400, 13219, `Dial: Invalid answerOnBridge value: ${bridge}. It must be "true" or "false".`);
  const rawTimeout = Number(attrs.timeout ?? DIAL_TIMEOUT.default);
  const timeout = Number.isInteger(rawTimeout) ? Math.min(DIAL_TIMEOUT.max, Math.max(DIAL_TIMEOUT.min, rawTimeout)) : DIAL_TIMEOUT.default;
  let callerId: string | undefined;
  if (attrs.callerId !== undefined) {
    callerId = attrs.callerId.trim();
    if (!E164.test(callerId))
      throw new TwilioError(400, 13214, `Dial: Invalid callerId value: ${JSON.stringify(attrs.callerId)} is not an E.164 phone number.`);
  }
  // The number: a <Number> noun, or the bare number as the <Dial>'s text.
  let number: string;
  if (/</.test(inner)) {
    const nouns = elements(inner, "<Dial>");
    const other = nouns.find((n) => n.name !== "Number");
    if (other)
      throw new TwilioError(
        400,
        12100,
        `<Dial><${other.name}> is not supported: the telephony sandbox dials phone numbers (<Number>) only.`,
      );
    if (nouns.length > 1)
      throw new TwilioError(400, 12100, "The telephony sandbox dials one <Number> per <Dial>; it does not ring several at once.");
    number = decodeXml(nouns[0]?.inner ?? "").trim();
  } else number = decodeXml(inner).trim();
  if (!E164.test(number))
    throw new TwilioError(
      400,
      13223,
      `Dial: Invalid phone number format: ${number ? JSON.stringify(number) : "no number in the <Dial>"}. Phone numbers must be in E.164 format: +, the country code and the number, at most 15 digits.`,
    );
  return { verb: "Dial", number, callerId, answerOnBridge: bridge === "true", timeout, ...(action && { action }) };
}

/**
 * The TwiML of a call update, as verbs: it must hold a <Dial> (one <Number>, E.164: else 13223) or a
 * <Connect><Stream> (the last verb: the call ends with its stream), and may also hold <Play digits>
 * (keys), <Say>, <Pause> and <Hangup/>. Anything else is refused (12100); so are a <Dial action> that is no absolute URL or
 * not POST, and a callerId that is no E.164 number (13214). Whether the account may show that
 * callerId is checked against the call. `{ requireTransfer: false }`: the answer of a <Dial action>,
 * which may hold only <Say>, <Pause> and <Hangup/>.
 */
export function parseUpdateTwiml(twiml: string, opts: { requireTransfer?: boolean } = {}): UpdateVerb[] {
  const doc = twiml.replace(/<\?xml[\s\S]*?\?>/, "").replace(/<!--[\s\S]*?-->/g, "");
  const response = /^\s*<Response\s*>([\s\S]*)<\/Response>\s*$/.exec(doc);
  if (!response) throw new TwilioError(400, 12100, "Document parse failure: Twiml must be a <Response> document.");
  const verbs: UpdateVerb[] = [];
  for (const { name, attrs, inner } of elements(response[1] ?? "", "<Response>")) {
    switch (name) {
      case "Dial":
        verbs.push(parseDial(attrs, inner));
        break;
      case "Connect":
        verbs.push({ verb: "Connect", ...parseStreamTwiml(`<Response><Connect>${inner}</Connect></Response>`) });
        break;
      case "Say":
        verbs.push({ verb: "Say", text: decodeXml(inner).trim() });
        break;
      case "Play": {
        // Keys only (DTMF): the sandbox fetches no audio URL.
        const digits = attrs.digits;
        if (digits === undefined || inner.trim())
          throw new TwilioError(400, 12100, 'The telephony sandbox plays <Play digits="…"/> (keys) only, not audio URLs.');
        if (!PLAYABLE_DIGITS.test(digits))
          throw new TwilioError(400, 12100, `<Play digits> may hold only 0-9, *, # and w; got ${JSON.stringify(digits)}.`);
        verbs.push({ verb: "Play", digits });
        break;
      }
      case "Pause": {
        const length = Number(attrs.length ?? 1);
        verbs.push({ verb: "Pause", seconds: Number.isInteger(length) && length > 0 ? length : 1 });
        break;
      }
      case "Hangup":
        verbs.push({ verb: "Hangup" });
        break;
      default:
        throw new TwilioError(
          400,
          12100,
          `<${name}> is not played by the telephony sandbox in a call update; it plays ${PLAYED_IN_UPDATES}.`,
        );
    }
  }
  if (opts.requireTransfer !== false && !verbs.some((v) => v.verb === "Dial" || v.verb === "Connect"))
    throw new TwilioError(
      400,
      12100,
      "The telephony sandbox redirects a live call to a <Dial> or a <Connect><Stream> only; this Twiml has neither.",
    );
  const connect = verbs.findIndex((v) => v.verb === "Connect");
  if (connect !== -1 && connect !== verbs.length - 1)
    throw new TwilioError(400, 12100, "The telephony sandbox ends the call with its <Connect><Stream>: no verb may follow it.");
  return verbs;
}

// ---------------------------------------------------------------------------------------------

interface Delivery {
  url: string;
  method: "GET" | "POST";
  params: Record<string, string>;
  token: string;
}

interface Live {
  call: SandboxCall;
  events: Set<string>;
  method: "GET" | "POST";
  sequence: number;
  /** Status callbacks go out one after another. */
  chain: Promise<unknown>;
  pending: number;
  last?: Delivery;
  timers: Set<NodeJS.Timeout>;
  stream?: MediaStream;
  callee?: Callee;
  /** Answering-machine detection, and the machine or fax callee (amd.ts). */
  answering?: AnsweringMachine;
  /** The transfer leg ringing or bridged, and how to end it. */
  dial?: { transfer: SandboxTransfer; finish(outcome: DialOutcome): void };
  /** Which TwiML document plays: each update starts a new one, and the one before stops. */
  document: number;
  ended: boolean;
}

/** `POST /__sandbox/inbound`: an incoming call (form From, To). */
const INBOUND_PATH = "/__sandbox/inbound";
/** `GET /__sandbox/calls[/{sid}[/settled]]`, `POST /__sandbox/calls/{sid}/redeliver`. */
const INSPECT_PATH = /^\/__sandbox\/calls(?:\/(CA[0-9a-f]{32})(?:\/(redeliver|settled))?)?\/?$/;
const ACCOUNT_PATH = /^\/2010-04-01\/Accounts\/([^/]+)(\/.*)$/;
const CALL_PATH = /^\/Calls(?:\/([^/]+))?\.json$/;

export async function startTelephonySandbox(opts: {
  port?: number;
  accountSid?: string;
  authToken?: string;
  provider: { url: string; apiKey: string };
  /** The callee's voice at the provider (default "nova"). */
  voice?: string;
  /** The account's bought numbers (default: DEFAULT_FROM_NUMBER) and verified caller ids (default none). */
  incomingNumbers?: string[];
  verifiedCallerIds?: string[];
  /** How long the person a call is transferred to talks before hanging up (default TRANSFER_TALK_MS). */
  transferTalkMs?: number;
}): Promise<TelephonySandbox> {
  const transferTalkMs = opts.transferTalkMs ?? TRANSFER_TALK_MS;
  const accountSid = opts.accountSid ?? `AC${hex(16)}`;
  const numbers = new AccountNumbers(accountSid, {
    incoming: opts.incomingNumbers ?? [DEFAULT_FROM_NUMBER],
    verified: opts.verifiedCallerIds ?? [],
  });
  const authToken = opts.authToken ?? hex(16);
  const expectedAuth = Buffer.from(`Basic ${Buffer.from(`${accountSid}:${authToken}`).toString("base64")}`);
  const voice = new CalleeVoice(opts.provider, opts.voice ?? "nova");
  const calls: SandboxCall[] = [];
  const lives = new Map<string, Live>();
  const stopping = new AbortController();

  // --- status callbacks ---------------------------------------------------------------------

  const deliver = async (live: Live, d: Delivery, redelivery: boolean): Promise<CallbackAttempt> => {
    const target = new URL(d.url);
    if (d.method === "GET") for (const [k, v] of Object.entries(d.params)) target.searchParams.append(k, v);
    const signedUrl = d.method === "GET" ? target.toString() : d.url;
    const attempt: CallbackAttempt = {
      status: d.params.CallStatus as CallStatus,
      url: d.url,
      sequenceNumber: Number(d.params.SequenceNumber),
      at: 0,
      redelivery,
    };
    try {
      const res = await fetch(target, {
        method: d.method,
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          "x-twilio-signature": twilioSignature(authToken, signedUrl, d.method === "POST" ? d.params : {}),
          "i-twilio-idempotency-token": d.token,
          "user-agent": "TwilioProxy/1.1",
        },
        body: d.method === "POST" ? new URLSearchParams(d.params).toString() : undefined,
        redirect: "manual",
        signal: AbortSignal.any([AbortSignal.timeout(CALLBACK_TIMEOUT_MS), stopping.signal]),
      });
      attempt.httpStatus = res.status;
      await res.arrayBuffer().catch(() => undefined);
    } catch (err) {
      attempt.error =
        err instanceof Error ? (err.cause instanceof Error ? `${err.message}: ${err.cause.message}` : err.message) : String(err);
    }
    attempt.at = clock();
    live.call.callbacks.push(attempt);
    return attempt;
  };

  const enqueue = (live: Live, d: Delivery, redelivery: boolean): Promise<CallbackAttempt> => {
    live.pending++;
    const run = live.chain.then(() => deliver(live, d, redelivery));
    live.chain = run.finally(() => live.pending--);
    return run;
  };

  /** Sends the status callback for this status if the request subscribed to its event. */
  const notify = (live: Live, status: CallStatus, event: string, extra: Record<string, string> = {}) => {
    const { call } = live;
    if (!call.statusCallback || !live.events.has(event) || stopping.signal.aborted) return;
    const params: Record<string, string> = {
      AccountSid: accountSid,
      ApiVersion: API_VERSION,
      CallSid: call.sid,
      CallStatus: status,
      Called: call.to,
      Caller: call.from,
      Direction: "outbound-api",
      From: call.from,
      To: call.to,
      Timestamp: rfc2822(Date.now()),
      SequenceNumber: String(live.sequence++),
      CallbackSource: "call-progress-events",
      ...extra,
    };
    const d: Delivery = { url: call.statusCallback, method: live.method, params, token: randomUUID() };
    live.last = d;
    void enqueue(live, d, false);
  };

  const setStatus = (live: Live, status: CallStatus) => {
    live.call.status = status;
    live.call.statuses.push({ status, at: clock() });
  };

  // --- the call's progress ------------------------------------------------------------------

  const after = (live: Live, ms: number, fn: () => void) => {
    if (live.ended) return;
    const t = setTimeout(() => {
      live.timers.delete(t);
      if (!live.ended) fn();
    }, ms);
    live.timers.add(t);
  };
  const wait = (live: Live, ms: number) => new Promise<void>((resolve) => after(live, ms, resolve)); // never resolves once the call ended

  const end = (live: Live, status: CallStatus, endedBy: EndedBy) => {
    if (live.ended) return;
    live.ended = true;
    for (const t of live.timers) clearTimeout(t);
    live.timers.clear();
    // Twilio hangs up a <Dial>'s leg with its parent call.
    live.dial?.finish(live.dial.transfer.answeredAt === undefined ? "canceled" : "completed");
    live.stream?.stop();
    live.answering?.ended();
    const { call } = live;
    call.endedAt = clock();
    call.endedBy = endedBy;
    call.duration = call.answeredAt === undefined ? 0 : Math.ceil((call.endedAt - call.answeredAt) / 1000);
    setStatus(live, status);
    // Duration: billed minutes, rounded up (Twilio sends both).
    notify(live, status, "completed", { CallDuration: String(call.duration), Duration: String(Math.ceil(call.duration / 60)) });
  };

  const answer = (live: Live) => {
    const { call } = live;
    call.answeredAt = clock();
    setStatus(live, "in-progress");
    notify(live, "in-progress", "answered");
    connect(live, call.streamUrl as string, call.customParameters);
  };

  /** <Connect><Stream>: the callee on a media stream to `url`. When the stream ends, so does the call. */
  const connect = (live: Live, url: string, parameters: Record<string, string>) => {
    const { call } = live;
    call.streamUrl = url;
    call.customParameters = parameters;
    const callee = live.callee as Callee;
    const stream = new MediaStream(
      call,
      { url, accountSid, authToken, customParameters: parameters },
      {
        started: () => {
          callee.connected();
          live.answering?.started();
        },
        heard: (bytes, at) => live.answering?.heard(bytes, at),
        agentStarted: () => callee.agentStarted(),
        agentFinished: () => callee.agentFinished(),
        lost: (endedBy) => end(live, "completed", endedBy),
      },
    );
    live.stream = stream;
    stream.connect();
  };

  // --- a call update's TwiML ------------------------------------------------------------------

  /**
   * Replaces the TwiML the call plays, as Twilio does on POST Calls/{sid}.json Twiml=…: the current
   * document ends (its <Dial> leg is hung up; its <Connect><Stream> stops: `stop`, then the socket
   * closes) and the new one plays from its first verb.
   */
  const redirect = (live: Live, twiml: string, verbs: UpdateVerb[]) => {
    live.call.twimlUpdates.push({ at: clock(), twiml });
    const document = ++live.document;
    live.dial?.finish(live.dial.transfer.answeredAt === undefined ? "canceled" : "completed");
    live.stream?.stop();
    live.stream = undefined;
    void play(live, verbs, document);
  };

  const play = async (live: Live, verbs: UpdateVerb[], document: number): Promise<void> => {
    const playing = () => !live.ended && live.document === document;
    for (const v of verbs) {
      if (!playing()) return;
      switch (v.verb) {
        case "Say":
          live.call.platformSaid.push(v.text);
          break;
        case "Play":
          // The keys play on the line (the callee hears them once played), then the document goes on.
          live.call.digitsPlayed.push({ digits: v.digits, at: clock() });
          await wait(live, playMs(v.digits));
          live.callee?.heardDigits(v.digits);
          break;
        case "Pause":
          await wait(live, v.seconds * 1000);
          break;
        case "Hangup":
          return end(live, "completed", "twiml-ended");
        case "Dial": {
          const transfer = await dial(live, v);
          // Without an action, the document goes on with its next verb whatever the outcome; with one,
          // what the action answers plays instead.
          if (v.action && playing()) return dialAction(live, v.action, transfer, document);
          break;
        }
        case "Connect":
          return connect(live, v.url, v.parameters); // the last verb: the call ends with the stream
      }
    }
    if (playing()) end(live, "completed", "twiml-ended");
  };

  /**
   * A <Dial> leg to a simulated person: it rings (RING_AFTER_MS), then fails as the number's scenario
   * says (unreachable or invalid: failed; busy: busy after ANSWER_AFTER_MS; no answer: after the
   * Dial's timeout, capped like a call's) or picks up after ANSWER_AFTER_MS, talks for
   * `transferTalkMs` and hangs up. Resolves when the leg has ended.
   */
  /**
   * The <Dial action>: POSTs how the leg went (Twilio's parameters, signed like a callback) and plays
   * the TwiML it answers. An answer that fails or does not parse ends the call, as Twilio's
   * "application error" does (11200 / 12100), noted in the call's errors.
   */
  const dialAction = async (live: Live, action: string, transfer: SandboxTransfer, document: number): Promise<void> => {
    const { call } = live;
    const params: Record<string, string> = {
      AccountSid: accountSid,
      ApiVersion: API_VERSION,
      CallSid: call.sid,
      CallStatus: "in-progress",
      Called: call.to,
      Caller: call.from,
      Direction: "outbound-api",
      From: call.from,
      To: call.to,
      DialCallStatus: transfer.outcome ?? "failed",
      DialCallSid: `CA${randomUUID().replaceAll("-", "")}`,
      DialCallDuration: String(transfer.duration ?? 0),
    };
    let verbs: UpdateVerb[];
    try {
      const res = await fetch(action, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          "x-twilio-signature": twilioSignature(authToken, action, params),
          "i-twilio-idempotency-token": randomUUID(),
          "user-agent": "TwilioProxy/1.1",
        },
        body: new URLSearchParams(params).toString(),
        redirect: "manual",
        signal: AbortSignal.any([AbortSignal.timeout(CALLBACK_TIMEOUT_MS), stopping.signal]),
      });
      const twiml = await res.text();
      if (!res.ok) throw new Error(`the <Dial action> answered ${res.status}`);
      call.twimlUpdates.push({ at: clock(), twiml });
      verbs = parseUpdateTwiml(twiml, { requireTransfer: false });
    } catch (err) {
      call.errors.push(`<Dial action> failed: ${err instanceof Error ? err.message : String(err)}`);
      return end(live, "completed", "twiml-ended");
    }
    return play(live, verbs, document);
  };

  const dial = (live: Live, v: Extract<UpdateVerb, { verb: "Dial" }>) =>
    new Promise<SandboxTransfer>((resolve) => {
      const transfer: SandboxTransfer = {
        to: v.number,
        scenario: scenarioFor(v.number),
        callerId: v.callerId ?? live.call.from,
        answerOnBridge: v.answerOnBridge,
        timeout: v.timeout,
        requestedAt: clock(),
      };
      live.call.transfer = transfer;
      const timers = new Set<NodeJS.Timeout>();
      const later = (ms: number, fn: () => void) => {
        const t = setTimeout(() => {
          timers.delete(t);
          fn();
        }, ms);
        timers.add(t);
      };
      const finish = (outcome: DialOutcome) => {
        if (transfer.outcome) return;
        for (const t of timers) clearTimeout(t);
        transfer.outcome = outcome;
        transfer.endedAt = clock();
        transfer.duration = transfer.answeredAt === undefined ? 0 : Math.ceil((transfer.endedAt - transfer.answeredAt) / 1000);
        if (live.dial?.transfer === transfer) live.dial = undefined;
        resolve(transfer);
      };
      live.dial = { transfer, finish };
      later(RING_AFTER_MS, () => {
        if (transfer.scenario === "unreachable" || transfer.scenario === "invalid") return finish("failed");
        transfer.ringingAt = clock();
        if (transfer.scenario === "no-answer") return later(Math.min(v.timeout, NO_ANSWER_MAX_SECONDS) * 1000, () => finish("no-answer"));
        later(ANSWER_AFTER_MS, () => {
          if (transfer.scenario === "busy") return finish("busy");
          transfer.answeredAt = clock();
          later(transferTalkMs, () => finish("completed"));
        });
      });
    });

  const progress = async (live: Live) => {
    const { call } = live;
    await wait(live, 0);
    setStatus(live, "initiated");
    notify(live, "initiated", "initiated");
    await wait(live, RING_AFTER_MS);
    if (call.scenario === "unreachable") return end(live, "failed", "network");
    setStatus(live, "ringing");
    notify(live, "ringing", "ringing");
    if (call.scenario === "no-answer") {
      await wait(live, Math.min(call.timeout, NO_ANSWER_MAX_SECONDS) * 1000);
      return end(live, "no-answer", "callee");
    }
    await wait(live, ANSWER_AFTER_MS);
    if (call.scenario === "busy") return end(live, "busy", "callee");
    answer(live);
  };

  // --- REST ---------------------------------------------------------------------------------

  const callJson = (call: SandboxCall) => {
    const uri = `/${API_VERSION}/Accounts/${accountSid}/Calls/${call.sid}.json`;
    const started = call.statuses.find((s) => s.status === "initiated")?.at;
    return {
      account_sid: accountSid,
      annotation: null,
      answered_by: call.amd?.answeredBy ?? null,
      api_version: API_VERSION,
      caller_name: null,
      date_created: rfc2822(call.createdAt),
      date_updated: rfc2822(call.statuses.at(-1)?.at ?? call.createdAt),
      direction: call.direction,
      duration: call.duration === undefined ? null : String(call.duration),
      end_time: call.endedAt === undefined ? null : rfc2822(call.endedAt),
      forwarded_from: null,
      from: call.from,
      from_formatted: call.from,
      group_sid: null,
      parent_call_sid: null,
      phone_number_sid: null,
      price: null,
      price_unit: "USD",
      queue_time: "0",
      sid: call.sid,
      start_time: started === undefined ? null : rfc2822(started),
      status: call.status,
      subresource_uris: {
        notifications: uri.replace(/\.json$/, "/Notifications.json"),
        recordings: uri.replace(/\.json$/, "/Recordings.json"),
        payments: uri.replace(/\.json$/, "/Payments.json"),
        events: uri.replace(/\.json$/, "/Events.json"),
        siprec: uri.replace(/\.json$/, "/Siprec.json"),
        streams: uri.replace(/\.json$/, "/Streams.json"),
        transcriptions: uri.replace(/\.json$/, "/Transcriptions.json"),
        user_defined_message_subscriptions: uri.replace(/\.json$/, "/UserDefinedMessageSubscriptions.json"),
        user_defined_messages: uri.replace(/\.json$/, "/UserDefinedMessages.json"),
      },
      to: call.to,
      to_formatted: call.to,
      trunk_sid: null,
      uri,
    };
  };

  const createCall = (form: URLSearchParams): SandboxCall => {
    const to = form.get("To")?.trim();
    const from = form.get("From")?.trim();
    if (!to) throw new TwilioError(400, 21201, "No 'To' number is specified");
    if (!E164.test(to) || scenarioFor(to) === "invalid")
      throw new TwilioError(400, 21217, `The 'To' number ${to} is not a valid phone number.`);
    if (!from) throw new TwilioError(400, 21603, "A 'From' phone number is required.");
    if (!E164.test(from))
      throw new TwilioError(400, 21212, `The 'From' number ${from} is not a valid phone number, shortcode, or alphanumeric sender ID.`);
    if (!numbers.canCallFrom(from))
      throw new TwilioError(
        400,
        21210,
        `The source phone number provided, ${from}, is not yet verified for your account. You may only make calls from phone numbers that you've verified or purchased from Twilio.`,
      );
    const twiml = form.get("Twiml");
    if (!twiml) {
      throw new TwilioError(
        400,
        21205,
        form.get("Url")
          ? "The telephony sandbox plays inline Twiml only; it does not fetch Url."
          : "A 'Url', 'Twiml' or 'ApplicationSid' parameter is required.",
      );
    }
    const stream = parseStreamTwiml(twiml);
    const statusCallback = form.get("StatusCallback") || undefined;
    if (statusCallback && !/^https?:\/\/[^/\s]+/.test(statusCallback))
      throw new TwilioError(400, 21609, `Invalid StatusCallback: ${statusCallback}`);
    const method = (form.get("StatusCallbackMethod") || "POST").toUpperCase();
    if (method !== "GET" && method !== "POST") throw new TwilioError(400, 21609, `Invalid StatusCallbackMethod: ${method}`);
    const events = form.getAll("StatusCallbackEvent").flatMap((e) =>
      e
        .trim()
        .split(/[\s,]+/)
        .filter(Boolean),
    );
    const unknown = events.find((e) => !EVENTS.includes(e));
    if (unknown) throw new TwilioError(400, 21626, `Invalid StatusCallbackEvent: ${unknown}. Use ${EVENTS.join(", ")}.`);
    const amd = parseAmdRequest(form);
    const rawTimeout = form.get("Timeout");
    const timeout = rawTimeout === null || rawTimeout === "" ? 60 : Number(rawTimeout);
    if (!Number.isInteger(timeout)) throw new TwilioError(400, 20001, `Timeout must be an integer number of seconds; got ${rawTimeout}.`);

    const live = register({
      to,
      from,
      direction: "outbound-api",
      scenario: scenarioFor(to),
      statusCallback,
      statusCallbackEvents: events.length > 0 ? [...new Set(events)] : ["completed"], // Twilio's default
      timeout: Math.min(600, Math.max(1, timeout)),
      streamUrl: stream.url,
      customParameters: stream.parameters,
    });
    live.method = method;
    answering(live, amd);
    void progress(live);
    return live.call;
  };

  /** A new call and its live state: the callee (its lines made at once, while the phone rings). */
  const register = (
    fields: Pick<
      SandboxCall,
      "to" | "from" | "direction" | "scenario" | "statusCallback" | "statusCallbackEvents" | "timeout" | "streamUrl" | "customParameters"
    >,
  ): Live => {
    const call: SandboxCall = {
      sid: `CA${hex(16)}`,
      ...fields,
      status: "queued",
      statuses: [],
      callbacks: [],
      platformSaid: [],
      twimlUpdates: [],
      digitsPlayed: [],
      dtmfSent: [],
      createdAt: clock(),
      said: [],
      heardFrames: 0,
      agentUtterances: [],
      latencies: [],
      underruns: 0,
      clears: 0,
      marksEchoed: 0,
      framesSent: 0,
      lateFrames: 0,
      errors: [],
    };
    const live: Live = {
      call,
      events: new Set(call.statusCallbackEvents),
      method: "POST",
      sequence: 0,
      chain: Promise.resolve(),
      pending: 0,
      timers: new Set(),
      document: 0,
      ended: false,
    };
    // The callee talks to the agent on the media stream; once an update took the call off the stream
    // (a transfer), its script is over: it talks to the person it was transferred to instead.
    live.callee = new Callee(call.scenario, voice, {
      play: (text, audio, o) => live.stream?.play(text, audio, o) ?? Promise.resolve(),
      agentSpeaking: () => live.stream?.agentSpeaking ?? false,
      hangUp: () => {
        if (live.stream) end(live, "completed", "callee");
      },
      after: (ms, fn) =>
        after(live, ms, () => {
          if (live.stream) fn();
        }),
      error: (message) => call.errors.push(message),
      press: (digit) => live.stream?.sendDigit(digit),
    });
    if (live.callee.ivr) call.ivr = live.callee.ivr.record;
    live.callee.prepare(); // synthesize the lines while the phone rings
    setStatus(live, "queued");
    calls.push(call);
    lives.set(call.sid, live);
    return live;
  };

  /** The call's answering-machine detection (when asked) and, on their numbers, the machine or the fax (amd.ts). */
  const answering = (live: Live, request: ReturnType<typeof parseAmdRequest>) => {
    const { call } = live;
    const kind = call.scenario === "machine" || call.scenario === "fax" || call.scenario === "silent" ? call.scenario : "person";
    if (request) call.amd = { ...request };
    const machine = new AnsweringMachine(
      {
        call,
        accountSid,
        authToken,
        provider: opts.provider,
        kind,
        greeting: () => voice.audio(GREETING),
        play: (text, audio) => live.stream?.play(text, audio) ?? Promise.resolve(),
        after: (ms, fn) => after(live, ms, fn),
        track: (work) => {
          live.pending++;
          void work.finally(() => live.pending--);
        },
        error: (message) => call.errors.push(message),
        live: () => !live.ended,
        aborted: stopping.signal,
      },
      call.amd,
    );
    call.machine = machine.machine;
    live.answering = machine;
  };

  const dialIn = async (from: string, to: string): Promise<SandboxCall> => {
    if (!E164.test(from)) throw new TwilioError(400, 21212, `The 'From' number ${from} is not a valid phone number.`);
    if (!E164.test(to)) throw new TwilioError(400, 21217, `The 'To' number ${to} is not a valid phone number.`);
    const number = numbers.find("incoming", to);
    if (!number) throw new TwilioError(404, 20404, `${to} is not a number of this account: a call to it never reaches the account.`);
    if (!number.voiceUrl)
      throw new TwilioError(400, 21502, `${to} has no VoiceUrl: set one (POST IncomingPhoneNumbers/${number.sid}.json) to receive calls.`);
    const live = register({
      to,
      from,
      direction: "inbound",
      scenario: scenarioFor(from),
      statusCallbackEvents: [],
      timeout: 60,
      customParameters: {},
    });
    const { call } = live;
    setStatus(live, "ringing");
    // Twilio's voice webhook: the incoming call's parameters, signed like any Twilio request.
    const params: Record<string, string> = {
      AccountSid: accountSid,
      ApiVersion: API_VERSION,
      CallSid: call.sid,
      CallStatus: "ringing",
      Called: to,
      Caller: from,
      Direction: "inbound",
      From: from,
      To: to,
    };
    const target = new URL(number.voiceUrl);
    if (number.voiceMethod === "GET") for (const [k, v] of Object.entries(params)) target.searchParams.append(k, v);
    let twiml = "";
    try {
      const res = await fetch(target, {
        method: number.voiceMethod,
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          "x-twilio-signature": twilioSignature(
            authToken,
            number.voiceMethod === "GET" ? target.toString() : number.voiceUrl,
            number.voiceMethod === "POST" ? params : {},
          ),
          "i-twilio-idempotency-token": randomUUID(),
          "user-agent": "TwilioProxy/1.1",
        },
        body: number.voiceMethod === "POST" ? new URLSearchParams(params).toString() : undefined,
        redirect: "manual",
        signal: AbortSignal.any([AbortSignal.timeout(CALLBACK_TIMEOUT_MS), stopping.signal]),
      });
      twiml = await res.text();
      if (!res.ok) throw new Error(`the voice webhook answered ${res.status}`);
    } catch (err) {
      // Twilio plays "an application error has occurred" and hangs up (error 11200).
      call.errors.push(`voice webhook failed: ${err instanceof Error ? err.message : String(err)}`);
      end(live, "failed", "network");
      return call;
    }
    call.answerTwiml = twiml;
    const doc = twiml.replace(/<\?xml[\s\S]*?\?>/, "");
    if (/<Reject\b/.test(doc)) {
      end(live, "busy", "worker");
      return call;
    }
    if (/<Connect\b/.test(doc)) {
      try {
        const stream = parseStreamTwiml(twiml);
        call.streamUrl = stream.url;
        call.customParameters = stream.parameters;
      } catch (err) {
        call.errors.push(`voice webhook TwiML: ${err instanceof Error ? err.message : String(err)}`);
        end(live, "failed", "network");
        return call;
      }
      answer(live);
      return call;
    }
    // <Say> … <Hangup/>: answered, spoken to, hung up.
    for (const m of doc.matchAll(/<Say\b[^>]*>([\s\S]*?)<\/Say>/g)) call.platformSaid.push(decodeXml(m[1] ?? "").trim());
    call.answeredAt = clock();
    setStatus(live, "in-progress");
    end(live, "completed", "worker");
    return call;
  };

  const updateCall = (live: Live, form: URLSearchParams) => {
    const status = form.get("Status");
    if (status === null) {
      if (form.has("Url")) throw new TwilioError(400, 21205, "The telephony sandbox plays inline Twiml only; it does not fetch Url.");
      const twiml = form.get("Twiml");
      if (twiml === null) return;
      const { call } = live;
      if (live.ended || call.status !== "in-progress") throw new TwilioError(400, 21220, "Call is not in-progress. Cannot redirect.");
      const verbs = parseUpdateTwiml(twiml);
      for (const v of verbs) {
        // Twilio's rule for a <Dial callerId>: the calling number, the called number, or one the account may call from.
        if (v.verb === "Dial" && v.callerId && v.callerId !== call.from && v.callerId !== call.to && !numbers.canCallFrom(v.callerId))
          throw new TwilioError(
            400,
            13214,
            `Dial: Invalid callerId value: ${v.callerId} is neither the call's own number nor one of the account's numbers (bought or verified).`,
          );
      }
      redirect(live, twiml, verbs);
      return;
    }
    if (status !== "completed" && status !== "canceled")
      throw new TwilioError(400, 20001, `Invalid Status: ${status}. Use completed or canceled.`);
    if (live.ended) return; // already over: nothing to do
    const answered = live.call.answeredAt !== undefined;
    if (answered && status === "canceled") return; // Twilio: canceled applies to queued or ringing calls only
    end(live, answered ? "completed" : "canceled", "worker");
  };

  const readForm = async (req: IncomingMessage): Promise<URLSearchParams> => {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > BODY_LIMIT) throw new TwilioError(413, 20001, "Request body too large.");
      chunks.push(chunk as Buffer);
    }
    return new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
  };

  const settled = (live: Live | undefined) => live?.ended === true && live.pending === 0;

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      if (res.headersSent || res.destroyed) return;
      if (status === 204) return res.writeHead(204, { "twilio-request-id": `RQ${hex(16)}`, ...headers }).end();
      const buf = Buffer.from(JSON.stringify(body));
      res
        .writeHead(status, {
          "content-type": "application/json; charset=utf-8",
          "content-length": String(buf.length),
          "twilio-request-id": `RQ${hex(16)}`,
          ...headers,
        })
        .end(buf);
    };
    try {
      const method = req.method ?? "GET";
      const path = (req.url ?? "/").split("?")[0] ?? "/";
      const auth = Buffer.from(req.headers.authorization ?? "");
      if (auth.length !== expectedAuth.length || !timingSafeEqual(auth, expectedAuth)) {
        return send(401, new TwilioError(401, 20003, "Authenticate", { detail: "Your AccountSid or AuthToken was incorrect." }).body(), {
          "www-authenticate": 'Basic realm="Twilio API"',
        });
      }
      // Sandbox only (not Twilio's API): what the simulated callee saw, for tests and benches in
      // other processes than the one that started the sandbox. Same Basic auth.
      if (path === INBOUND_PATH) {
        if (method !== "POST") throw new TwilioError(405, 20004, "Method not allowed");
        const form = await readForm(req);
        return send(201, await dialIn(form.get("From")?.trim() ?? "", form.get("To")?.trim() ?? ""));
      }
      const inspect = INSPECT_PATH.exec(path);
      if (inspect) {
        const [, sid, action] = inspect;
        if (!sid) return send(200, calls);
        const live = lives.get(sid);
        if (!live) throw new TwilioError(404, 20404, `No sandbox call ${sid}`);
        if (action === "redeliver" && method === "POST") {
          if (!live.last) throw new TwilioError(409, 20409, `Call ${sid} has sent no status callback to redeliver`);
          return send(200, await enqueue(live, live.last, true));
        }
        if (action === "settled") return send(200, { settled: settled(live), call: live.call });
        return send(200, live.call);
      }
      const account = ACCOUNT_PATH.exec(path);
      if (!account || account[1] !== accountSid) throw new TwilioError(404, 20404, `The requested resource ${path} was not found`);
      const query = new URLSearchParams((req.url ?? "").split("?")[1] ?? "");
      const handled = await numbers.handle({ method, path: account[2] as string, query, form: () => readForm(req) });
      if (handled) return send(handled.status, handled.body);
      const match = CALL_PATH.exec(account[2] as string);
      if (!match) throw new TwilioError(404, 20404, `The requested resource ${path} was not found`);
      const sid = match[1];
      if (!sid) {
        if (method !== "POST") throw new TwilioError(405, 20004, "Method not allowed");
        const call = createCall(await readForm(req));
        return send(201, callJson(call));
      }
      const live = lives.get(sid);
      if (!live) throw new TwilioError(404, 20404, `The requested resource ${path} was not found`);
      if (method === "GET") return send(200, callJson(live.call));
      if (method !== "POST") throw new TwilioError(405, 20004, "Method not allowed");
      updateCall(live, await readForm(req));
      return send(200, callJson(live.call));
    } catch (err) {
      if (err instanceof TwilioError) return send(err.status, err.body());
      const message = err instanceof Error ? err.message : String(err);
      return send(500, new TwilioError(500, 20500, `The telephony sandbox failed: ${message}`).body());
    }
  };

  const server: Server = createServer((req, res) => {
    void handle(req, res);
  });
  server.keepAliveTimeout = 5_000;
  const port = await listenLocal(server, opts.port ?? 0, "telephony sandbox");

  return {
    url: `http://127.0.0.1:${port}`,
    accountSid,
    authToken,
    calls,
    numbers,
    dialIn,
    async warm(scenario) {
      await Promise.all(linesOf(scenario).map((text) => voice.audio(text)));
    },
    async redeliver(callSid) {
      const live = lives.get(callSid);
      if (!live?.last) throw new Error(`call ${callSid} has sent no status callback to redeliver`);
      return enqueue(live, live.last, true);
    },
    async waitFor(target, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found =
          typeof target === "string" ? (settled(lives.get(target)) ? lives.get(target)?.call : undefined) : calls.find((c) => target(c));
        if (found) return found;
        if (Date.now() >= deadline)
          throw new Error(
            typeof target === "string"
              ? `call ${target} did not end within ${timeoutMs} ms (status: ${lives.get(target)?.call.status ?? "unknown call"})`
              : `no call matched within ${timeoutMs} ms`,
          );
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    async stop() {
      stopping.abort();
      for (const live of lives.values()) end(live, "completed", "sandbox");
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.all([...lives.values()].map((l) => l.chain.catch(() => undefined)));
    },
  };
}

// ---------------------------------------------------------------------------------------------
// CLI: `tsx dev/sandbox/telephony.ts`

const isMain = (() => {
  try {
    return process.argv[1] !== undefined && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
})();

if (isMain) {
  const { startProviderSandbox } = await import("./openai");
  const own = process.env.PROVIDER_URL ? undefined : await startProviderSandbox();
  const provider = own
    ? { url: own.url, apiKey: own.apiKey }
    : { url: process.env.PROVIDER_URL as string, apiKey: process.env.PROVIDER_API_KEY ?? "" };
  const sandbox = await startTelephonySandbox({
    port: Number(process.env.PORT ?? DEFAULT_TELEPHONY_PORT),
    accountSid: process.env.TWILIO_ACCOUNT_SID || undefined,
    authToken: process.env.TWILIO_AUTH_TOKEN || undefined,
    provider,
  });
  const fromNumbers = sandbox.numbers
    .list("incoming")
    .map((n) => n.phoneNumber)
    .join(", ");
  process.stdout.write(
    [
      "Telephony sandbox (Twilio Programmable Voice stand-in, scripted callee) listening.",
      `  API base:    ${sandbox.url}`,
      `  Account SID: ${sandbox.accountSid}`,
      `  Auth token:  ${sandbox.authToken}`,
      `  Numbers:     ${fromNumbers} (POST …/IncomingPhoneNumbers.json or OutgoingCallerIds.json for more)`,
      `  Voice from:  ${own ? `a provider sandbox started here (${own.url})` : provider.url}`,
      `  Inbound:     curl -u SID:TOKEN -d From=+12025550100 -d To=<a number with a VoiceUrl> ${sandbox.url}/__sandbox/inbound`,
      "  For the worker:",
      `    TWILIO_API_BASE_URL=${sandbox.url} TWILIO_ACCOUNT_SID=${sandbox.accountSid} TWILIO_AUTH_TOKEN=${sandbox.authToken}`,
      "",
    ].join("\n"),
  );
  const shutdown = () => {
    void sandbox
      .stop()
      .then(() => own?.stop())
      .then(() => process.exit(0));
  };
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
}
