// Twilio: REST call creation with TwiML that connects a bidirectional Media Stream to our media
// route (with async answering-machine detection when asked), hang-up and cancel (Status=completed / canceled), transfer (the live call's TwiML replaced
// by a <Dial>), keys pressed (replaced by <Play digits> and a new <Connect><Stream>), X-Twilio-Signature checks on status callbacks and voice webhooks, whether a number
// is the account's (IncomingPhoneNumbers, OutgoingCallerIds), and pointing a number's incoming calls
// at our voice webhook (IncomingPhoneNumbers/{sid} VoiceUrl). Wire formats from Twilio's docs
// (Calls, IncomingPhoneNumber and OutgoingCallerId resources, paging, "Webhooks security", Media
// Streams, <Dial>); docs/calls.md lists what we use.
import { timingSafeEqual } from "../lib/crypto";
import { type CallOptions, ProviderError, providerFetch } from "../providers/http";
import { type CallerIdSource, CallNotInProgressError, DialError, type PlaceCallRequest, type TelephonyProvider } from "./types";

export const TWILIO_API_VERSION = "2010-04-01";

/** Pages of one list followed when looking a number up (the PhoneNumber filter also matches partially). */
const MAX_LIST_PAGES = 10;

const xml = (s: string) => s.replace(/[<>&"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/** `<Connect><Stream>`: Twilio streams both directions of the call's audio to `url`. */
export function streamTwiml(url: string, parameters: Record<string, string>): string {
  return `<?xml version="1.0" encoding="UTF-8"?><Response>${connectStream(url, parameters)}</Response>`;
}

const connectStream = (url: string, parameters: Record<string, string>) => {
  const params = Object.entries(parameters)
    .map(([name, value]) => `<Parameter name="${xml(name)}" value="${xml(value)}"/>`)
    .join("");
  return `<Connect><Stream url="${xml(url)}">${params}</Stream></Connect>`;
};

/**
 * send_dtmf: `<Play digits>` presses the keys (a `w` pauses half a second), then a new
 * `<Connect><Stream>` brings the call's audio back to us. The update ends the current stream.
 */
export const playDigitsTwiml = (digits: string, url: string, parameters: Record<string, string>) =>
  `<?xml version="1.0" encoding="UTF-8"?><Response><Play digits="${xml(digits)}"/>${connectStream(url, parameters)}</Response>`;

/**
 * `<Dial>` to one number: Twilio calls `to` from `callerId` and bridges the current call to it. The
 * call's previous TwiML (our `<Connect><Stream>`) ends, and with it the media stream. `answerOnBridge`
 * passes the destination's own ringing (early media) to the caller until it picks up (on a call not
 * yet answered it would also hold the answer back until then). `action`: when the leg ends, Twilio
 * POSTs its DialCallStatus there and plays the TwiML it answers (ours: a hang-up after a transfer
 * that went through, an apology then a hang-up after one that did not); nothing after the <Dial>
 * plays. Without it, the document is over and Twilio ends the call.
 */
export const dialTwiml = (to: string, callerId: string, action?: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><Response><Dial callerId="${xml(callerId)}" answerOnBridge="true"${action ? ` action="${xml(action)}" method="POST"` : ""}><Number>${xml(to)}</Number></Dial></Response>`;

/** Turns an incoming call away without answering it (no charge to anyone): `<Reject>`, heard as a busy line. */
export const rejectTwiml = () => `<?xml version="1.0" encoding="UTF-8"?><Response><Reject reason="busy"/></Response>`;

/** Ends the call. */
export const hangUpTwiml = () => `<?xml version="1.0" encoding="UTF-8"?><Response><Hangup/></Response>`;

/** Answers an incoming call only to say why it cannot be taken (or tells a caller why a transfer failed), then hangs up. */
export const sayAndHangUpTwiml = (text: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><Response><Say>${xml(text)}</Say><Hangup/></Response>`;

/** Twilio's request signature: base64 HMAC-SHA1 of the URL followed by each POST param's name and value, sorted. */
export async function twilioSignature(authToken: string, url: string, params: URLSearchParams): Promise<string> {
  const pairs = [...params.entries()].sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0));
  const data = url + pairs.map(([k, v]) => k + v).join("");
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(authToken), { name: "HMAC", hash: "SHA-1" }, false, ["sign"]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(data)));
  return btoa(String.fromCharCode(...mac));
}

interface TwilioError {
  code?: number;
  message?: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Twilio error codes that mean "this number cannot be called", not "Twilio is failing". */
const NUMBER_ERRORS = new Set([13223, 13224, 21210, 21211, 21212, 21214, 21215, 21216, 21217, 21401, 21407, 21421]);

export class Twilio implements TelephonyProvider {
  readonly name = "twilio";

  constructor(
    private readonly baseUrl: string,
    private readonly accountSid: string,
    private readonly authToken: string,
    private readonly call: CallOptions,
  ) {}

  private url(path: string): string {
    return `${this.baseUrl.replace(/\/$/, "")}/${TWILIO_API_VERSION}/Accounts/${encodeURIComponent(this.accountSid)}${path}`;
  }

  private headers(): Record<string, string> {
    return {
      authorization: `Basic ${btoa(`${this.accountSid}:${this.authToken}`)}`,
      "content-type": "application/x-www-form-urlencoded",
      accept: "application/json",
    };
  }

  async placeCall(req: PlaceCallRequest): Promise<{ providerCallId: string }> {
    const body = new URLSearchParams({
      To: req.to,
      From: req.from,
      Twiml: streamTwiml(req.streamUrl, req.streamParameters),
      StatusCallback: req.statusCallbackUrl,
      StatusCallbackMethod: "POST",
      Timeout: String(req.ringTimeoutSeconds),
    });
    for (const event of ["initiated", "ringing", "answered", "completed"]) body.append("StatusCallbackEvent", event);
    // Async AMD: the call connects (and streams) at once; the verdict comes to its own callback (amd.ts).
    if (req.machineDetection) {
      body.set("MachineDetection", req.machineDetection.mode);
      body.set("AsyncAmd", "true");
      body.set("AsyncAmdStatusCallback", req.machineDetection.callbackUrl);
      body.set("AsyncAmdStatusCallbackMethod", "POST");
    }
    // Creating a call is not idempotent at Twilio: never retried, or a timeout could dial twice.
    const res = await fetch(this.url("/Calls.json"), {
      method: "POST",
      headers: this.headers(),
      body,
      signal: AbortSignal.timeout(this.call.timeoutMs),
    }).catch((err: Error) => {
      throw new DialError("unavailable", err.name === "TimeoutError" ? "Twilio did not answer in time" : "Twilio could not be reached");
    });
    const text = await res.text();
    let json: (TwilioError & { sid?: string }) | undefined;
    try {
      json = JSON.parse(text) as TwilioError & { sid?: string };
    } catch {
      json = undefined;
    }
    if (res.ok && typeof json?.sid === "string") return { providerCallId: json.sid };
    const detail = `Twilio answered ${res.status}${json?.code ? ` (error ${json.code})` : ""}${json?.message ? `: ${json.message.slice(0, 200)}` : ""}`;
    if (json?.code && NUMBER_ERRORS.has(json.code)) throw new DialError("invalid-number", detail);
    throw new DialError(res.status >= 500 || res.status === 429 ? "unavailable" : "refused", detail);
  }

  /** `Status=completed`: hangs up a call in progress (Twilio also ends a ringing one with it). */
  hangUp(providerCallId: string): Promise<void> {
    return this.endCall(providerCallId, "completed");
  }

  /** `Status=canceled`: cancels a queued or ringing call; Twilio leaves an answered call as it is. */
  cancel(providerCallId: string): Promise<void> {
    return this.endCall(providerCallId, "canceled");
  }

  private async endCall(providerCallId: string, status: "completed" | "canceled"): Promise<void> {
    try {
      await providerFetch(
        "twilio",
        this.url(`/Calls/${encodeURIComponent(providerCallId)}.json`),
        { method: "POST", headers: this.headers(), body: new URLSearchParams({ Status: status }) },
        this.call,
      );
    } catch (err) {
      // Twilio refuses to end a call that already ended (21220) or that it does not know (20404); that is what we wanted.
      if (err instanceof ProviderError && err.failure === "rejected" && (err.status === 400 || err.status === 404)) return;
      throw err;
    }
  }

  transfer(providerCallId: string, to: string, callerId: string, action?: string): Promise<void> {
    return this.update(providerCallId, dialTwiml(to, callerId, action), "transfer");
  }

  sendDigits(providerCallId: string, digits: string, streamUrl: string, parameters: Record<string, string>): Promise<void> {
    return this.update(providerCallId, playDigitsTwiml(digits, streamUrl, parameters), "press keys on");
  }

  /** Replaces the live call's TwiML (`what` names the operation in a refusal). */
  private async update(providerCallId: string, twiml: string, what: string): Promise<void> {
    const url = this.url(`/Calls/${encodeURIComponent(providerCallId)}.json`);
    const body = new URLSearchParams({ Twiml: twiml });
    // Retried only when Twilio answered that it did nothing (429, 503). Replacing the TwiML twice is
    // harmless before the first update took effect, but not after: a second update restarts the
    // <Dial>, hanging up the leg the first one is ringing or has already bridged (or presses the
    // keys twice). A timeout, a broken connection or another 5xx may hide an update that took
    // effect, so those fail at once.
    const backoff = this.call.backoffMs ?? 250;
    for (let attempt = 0; ; attempt++) {
      try {
        await providerFetch("twilio", url, { method: "POST", headers: this.headers(), body }, { ...this.call, retries: 0 });
        return;
      } catch (err) {
        if (!(err instanceof ProviderError)) throw err;
        const untouched = err.status === 429 || err.status === 503;
        if (untouched && attempt < this.call.retries) {
          const hinted = err.retryAfterSeconds ? err.retryAfterSeconds * 1000 : 0;
          await sleep(Math.min(5000, Math.max(hinted, backoff * 2 ** attempt)));
          continue;
        }
        if (err.failure === "rejected" && (err.status === 400 || err.status === 404))
          throw await this.notInProgress(providerCallId, err, what);
        throw err;
      }
    }
  }

  /**
   * Why Twilio refused to update a call. Its answer's code does not survive providerFetch, so the call
   * is looked up: a call that is not `in-progress` (or unknown, 404) is Twilio's 21220, "Call is not
   * in-progress. Cannot redirect."; anything else keeps Twilio's own refusal.
   */
  private async notInProgress(providerCallId: string, refusal: ProviderError, operation: string): Promise<ProviderError> {
    const what = `Twilio cannot ${operation} call ${providerCallId}`;
    if (refusal.status === 404) return new CallNotInProgressError(`${what}: Twilio does not know it (error 20404)`, 404, null);
    let status: string | null = null;
    try {
      const res = await providerFetch(
        "twilio",
        this.url(`/Calls/${encodeURIComponent(providerCallId)}.json`),
        { method: "GET", headers: this.headers() },
        this.call,
      );
      const json = (await res.json().catch(() => null)) as { status?: unknown } | null;
      status = typeof json?.status === "string" ? json.status : null;
    } catch {
      return refusal; // cannot say more than Twilio's refusal
    }
    if (status === null || status === "in-progress") return refusal;
    return new CallNotInProgressError(`${what}: the call is ${status}, not in progress (error 21220)`, refusal.status, status);
  }

  async callerIdSource(phoneNumber: string): Promise<CallerIdSource | null> {
    // Both lists at once: one round trip of latency next to the call's own POST.
    const [incoming, verified] = await Promise.all([
      this.lists("IncomingPhoneNumbers", "incoming_phone_numbers", phoneNumber),
      this.lists("OutgoingCallerIds", "outgoing_caller_ids", phoneNumber),
    ]);
    return incoming ? "incoming" : verified ? "verified" : null;
  }

  async routeIncomingCalls(phoneNumber: string, voiceUrl: string): Promise<boolean> {
    const number = await this.lists("IncomingPhoneNumbers", "incoming_phone_numbers", phoneNumber);
    if (!number) return false;
    await providerFetch(
      "twilio",
      this.url(`/IncomingPhoneNumbers/${encodeURIComponent(number.sid)}.json`),
      { method: "POST", headers: this.headers(), body: new URLSearchParams({ VoiceUrl: voiceUrl, VoiceMethod: "POST" }) },
      this.call,
    );
    return true;
  }

  /** The list resource's entry for exactly this number (filtered by PhoneNumber, following next_page_uri), or null. */
  private async lists(resource: string, key: string, phoneNumber: string): Promise<{ sid: string } | null> {
    const root = this.baseUrl.replace(/\/$/, "");
    let url: string | null = this.url(`/${resource}.json?${new URLSearchParams({ PhoneNumber: phoneNumber, PageSize: "50" })}`);
    for (let page = 0; url && page < MAX_LIST_PAGES; page++) {
      const res = await providerFetch("twilio", url, { method: "GET", headers: this.headers() }, this.call);
      const body = (await res.json().catch(() => null)) as Record<string, unknown> | null;
      const items = body?.[key];
      if (!Array.isArray(items)) throw new ProviderError("bad_response", `Twilio's ${resource} list could not be read`);
      const hit = items.find((item) => (item as { phone_number?: unknown } | null)?.phone_number === phoneNumber) as
        | { sid?: unknown }
        | undefined;
      if (hit) return { sid: String(hit.sid ?? "") };
      const next = body?.next_page_uri;
      // A path on the same API only: the credentials are never sent to another host.
      url = typeof next === "string" && next.startsWith("/") && !next.startsWith("//") ? `${root}${next}` : null;
    }
    return null;
  }

  async verifyCallback(url: string, params: URLSearchParams, signature: string | undefined): Promise<boolean> {
    if (!signature) return false;
    const expected = await twilioSignature(this.authToken, url, params);
    const enc = new TextEncoder();
    return timingSafeEqual(enc.encode(expected), enc.encode(signature));
  }
}
