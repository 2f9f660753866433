// Twilio: REST call creation with TwiML that connects a bidirectional Media Stream to our media
// route, hang-up, and X-Twilio-Signature checks on status callbacks. Wire formats from Twilio's
// docs (Calls resource, "Webhooks security", Media Streams); docs/calls.md lists what we use.
import { timingSafeEqual } from "../lib/crypto";
import { type CallOptions, ProviderError, providerFetch } from "../providers/http";
import { DialError, type PlaceCallRequest, type TelephonyProvider } from "./types";

export const TWILIO_API_VERSION = "2010-04-01";

const xml = (s: string) => s.replace(/[<>&"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/** `<Connect><Stream>`: Twilio streams both directions of the call's audio to `url`. */
export function streamTwiml(url: string, parameters: Record<string, string>): string {
  const params = Object.entries(parameters)
    .map(([name, value]) => `<Parameter name="${xml(name)}" value="${xml(value)}"/>`)
    .join("");
  return `<?xml version="1.0" encoding="UTF-8"?><Response><Connect><Stream url="${xml(url)}">${params}</Stream></Connect></Response>`;
}

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

  async hangUp(providerCallId: string): Promise<void> {
    try {
      await providerFetch(
        "twilio",
        this.url(`/Calls/${encodeURIComponent(providerCallId)}.json`),
        { method: "POST", headers: this.headers(), body: new URLSearchParams({ Status: "completed" }) },
        this.call,
      );
    } catch (err) {
      // Twilio refuses to complete a call that already ended (21220); that is what we wanted.
      if (err instanceof ProviderError && err.failure === "rejected" && (err.status === 400 || err.status === 404)) return;
      throw err;
    }
  }

  async verifyCallback(url: string, params: URLSearchParams, signature: string | undefined): Promise<boolean> {
    if (!signature) return false;
    const expected = await twilioSignature(this.authToken, url, params);
    const enc = new TextEncoder();
    return timingSafeEqual(enc.encode(expected), enc.encode(signature));
  }
}
