// The telephony sandbox's account numbers, as Twilio's REST API has them: the numbers bought
// (IncomingPhoneNumbers) and the verified caller ids (OutgoingCallerIds). A call's `From` must be
// one of them, as at Twilio (error 21210 otherwise). Lists are Twilio's paged JSON (`PageSize`,
// `Page`, `first_page_uri`, `next_page_uri`, …) filtered by `PhoneNumber` (digits, `*` for any
// digit, matched anywhere) and `FriendlyName` (exact). Tests configure the numbers the way one
// would at Twilio: POST IncomingPhoneNumbers.json buys one, POST OutgoingCallerIds.json (a
// validation request) verifies one at once (no verification call: a sandbox difference), DELETE
// releases either; POST IncomingPhoneNumbers/{sid}.json sets where its incoming calls go (VoiceUrl,
// VoiceMethod), which the sandbox's inbound calls follow (telephony.ts). See docs/sandbox.md.
import { randomBytes } from "node:crypto";

export const API_VERSION = "2010-04-01";
const E164 = /^\+[1-9]\d{1,14}$/;

export type NumberKind = "incoming" | "verified";

/** RFC 2822 in UTC, as Twilio writes dates: "Tue, 31 Aug 2010 20:36:28 +0000". */
export const rfc2822 = (ms: number) => new Date(ms).toUTCString().replace(/GMT$/, "+0000");

export class TwilioError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
  body() {
    return {
      code: this.code,
      message: this.message,
      more_info: `https://www.twilio.com/docs/errors/${this.code}`,
      status: this.status,
      ...this.extra,
    };
  }
}

export interface AccountNumber {
  sid: string;
  phoneNumber: string;
  friendlyName: string;
  kind: NumberKind;
  createdAt: number;
  /** Bought numbers: where Twilio sends the number's incoming calls (VoiceUrl, VoiceMethod); null: nowhere. */
  voiceUrl: string | null;
  voiceMethod: "GET" | "POST";
}

const RESOURCE: Record<NumberKind, string> = { incoming: "IncomingPhoneNumbers", verified: "OutgoingCallerIds" };
const LIST_KEY: Record<NumberKind, string> = { incoming: "incoming_phone_numbers", verified: "outgoing_caller_ids" };
/** `/IncomingPhoneNumbers.json`, `/OutgoingCallerIds/{PN…}.json` (the path after `/Accounts/{sid}`). */
const NUMBERS_PATH = /^\/(IncomingPhoneNumbers|OutgoingCallerIds)(?:\/([^/]+))?\.json$/;
const DEFAULT_PAGE_SIZE = 50; // Twilio's
const MAX_PAGE_SIZE = 1000;

/** Twilio's default friendly name: "(415) 555-0100" for a North American number, else the number. */
const formatted = (n: string) => (/^\+1\d{10}$/.test(n) ? `(${n.slice(2, 5)}) ${n.slice(5, 8)}-${n.slice(8)}` : n);

/** `PhoneNumber` filter: its digits and `*` (any digit), matched anywhere in the number. */
function numberFilter(raw: string): (n: string) => boolean {
  const pattern = raw.replace(/[^\d*]/g, "");
  if (!pattern) return () => true;
  const re = new RegExp(pattern.replace(/\*/g, "\\d"));
  return (n) => re.test(n.replace(/^\+/, ""));
}

export interface HandledRequest {
  method: string;
  /** The path after `/2010-04-01/Accounts/{AccountSid}`. */
  path: string;
  query: URLSearchParams;
  form: () => Promise<URLSearchParams>;
}

export class AccountNumbers {
  private readonly entries = new Map<string, AccountNumber>(); // by sid, in order of creation

  constructor(
    private readonly accountSid: string,
    initial: { incoming?: string[]; verified?: string[] } = {},
  ) {
    for (const n of initial.incoming ?? []) this.add("incoming", n);
    for (const n of initial.verified ?? []) this.add("verified", n);
  }

  /** Buys (`incoming`) or verifies (`verified`) a number. Throws TwilioError as Twilio would. */
  add(kind: NumberKind, phoneNumber: string, friendlyName?: string): AccountNumber {
    if (!E164.test(phoneNumber)) throw new TwilioError(400, 21421, `PhoneNumber is invalid: ${phoneNumber}`);
    if (this.find(kind, phoneNumber))
      throw kind === "incoming"
        ? new TwilioError(400, 21422, `PhoneNumber ${phoneNumber} is not available: it is already a number of this account.`)
        : new TwilioError(400, 21450, `Phone number ${phoneNumber} is already verified for your account.`);
    const entry: AccountNumber = {
      sid: `PN${randomBytes(16).toString("hex")}`,
      phoneNumber,
      friendlyName: (friendlyName || formatted(phoneNumber)).slice(0, 64),
      kind,
      createdAt: Date.now(),
      voiceUrl: null,
      voiceMethod: "POST",
    };
    this.entries.set(entry.sid, entry);
    return entry;
  }

  /** Releases a number (both kinds); false when the account did not have it. */
  remove(phoneNumber: string): boolean {
    let removed = false;
    for (const [sid, e] of this.entries) {
      if (e.phoneNumber === phoneNumber) {
        this.entries.delete(sid);
        removed = true;
      }
    }
    return removed;
  }

  find(kind: NumberKind, phoneNumber: string): AccountNumber | undefined {
    for (const e of this.entries.values()) if (e.kind === kind && e.phoneNumber === phoneNumber) return e;
    return undefined;
  }

  /** A number calls may come from: bought or verified. */
  canCallFrom(phoneNumber: string): boolean {
    return Boolean(this.find("incoming", phoneNumber) ?? this.find("verified", phoneNumber));
  }

  list(kind: NumberKind): AccountNumber[] {
    return [...this.entries.values()].filter((e) => e.kind === kind);
  }

  private base(kind: NumberKind) {
    return `/${API_VERSION}/Accounts/${this.accountSid}/${RESOURCE[kind]}`;
  }

  json(e: AccountNumber): Record<string, unknown> {
    const uri = `${this.base(e.kind)}/${e.sid}.json`;
    const common = {
      account_sid: this.accountSid,
      date_created: rfc2822(e.createdAt),
      date_updated: rfc2822(e.createdAt),
      friendly_name: e.friendlyName,
      phone_number: e.phoneNumber,
      sid: e.sid,
      uri,
    };
    if (e.kind === "verified") return common;
    return {
      ...common,
      address_requirements: "none",
      address_sid: null,
      api_version: API_VERSION,
      beta: false,
      bundle_sid: null,
      capabilities: { fax: false, mms: true, sms: true, voice: true },
      emergency_address_sid: null,
      emergency_address_status: "unregistered",
      emergency_status: "Inactive",
      identity_sid: null,
      origin: "twilio",
      sms_application_sid: null,
      sms_fallback_method: "POST",
      sms_fallback_url: "",
      sms_method: "POST",
      sms_url: "",
      status: "in-use",
      status_callback: "",
      status_callback_method: "POST",
      subresource_uris: { assigned_add_ons: uri.replace(/\.json$/, "/AssignedAddOns.json") },
      trunk_sid: null,
      voice_application_sid: null,
      voice_caller_id_lookup: false,
      voice_fallback_method: "POST",
      voice_fallback_url: null,
      voice_method: e.voiceMethod,
      voice_receive_mode: "voice",
      voice_url: e.voiceUrl,
    };
  }

  /** A page of a list, in Twilio's shape. */
  page(kind: NumberKind, query: URLSearchParams): Record<string, unknown> {
    const rawSize = query.get("PageSize");
    const pageSize = rawSize === null ? DEFAULT_PAGE_SIZE : Number(rawSize);
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE)
      throw new TwilioError(400, 20001, `PageSize must be an integer from 1 to ${MAX_PAGE_SIZE}; got ${rawSize}.`);
    const rawPage = query.get("Page");
    const page = rawPage === null ? 0 : Number(rawPage);
    if (!Number.isInteger(page) || page < 0) throw new TwilioError(400, 20001, `Page must be a whole number; got ${rawPage}.`);
    const byNumber = numberFilter(query.get("PhoneNumber") ?? "");
    const friendly = query.get("FriendlyName");
    const matching = this.list(kind).filter((e) => byNumber(e.phoneNumber) && (friendly === null || e.friendlyName === friendly));
    const start = page * pageSize;
    const items = matching.slice(start, start + pageSize);
    const uriOf = (p: number) => {
      const q = new URLSearchParams();
      for (const name of ["PhoneNumber", "FriendlyName"]) {
        const v = query.get(name);
        if (v !== null) q.set(name, v);
      }
      q.set("PageSize", String(pageSize));
      q.set("Page", String(p));
      // Twilio adds a PageToken to the next page's URI; the sandbox reads Page alone.
      const last = items.at(-1);
      if (p === page + 1 && last) q.set("PageToken", `PA${last.sid}`);
      return `${this.base(kind)}.json?${q}`;
    };
    return {
      [LIST_KEY[kind]]: items.map((e) => this.json(e)),
      end: items.length > 0 ? start + items.length - 1 : 0,
      first_page_uri: uriOf(0),
      next_page_uri: start + pageSize < matching.length ? uriOf(page + 1) : null,
      page,
      page_size: pageSize,
      previous_page_uri: page > 0 ? uriOf(page - 1) : null,
      start,
      uri: uriOf(page),
    };
  }

  /** Answers a numbers request, or undefined when the path is not one of ours. */
  async handle(req: HandledRequest): Promise<{ status: number; body?: unknown } | undefined> {
    const match = NUMBERS_PATH.exec(req.path);
    if (!match) return undefined;
    const kind: NumberKind = match[1] === "IncomingPhoneNumbers" ? "incoming" : "verified";
    const sid = match[2];
    if (!sid) {
      if (req.method === "GET") return { status: 200, body: this.page(kind, req.query) };
      if (req.method !== "POST") throw new TwilioError(405, 20004, "Method not allowed");
      const form = await req.form();
      const phoneNumber = form.get("PhoneNumber")?.trim();
      if (!phoneNumber)
        throw new TwilioError(
          400,
          21452,
          kind === "incoming" ? "No 'PhoneNumber' or 'AreaCode' specified" : "A 'PhoneNumber' is required.",
        );
      const added = this.add(kind, phoneNumber, form.get("FriendlyName") ?? undefined);
      if (kind === "incoming") return { status: 201, body: this.json(added) };
      // A validation request: Twilio calls the number and waits for the code; the sandbox verifies at once.
      return {
        status: 201,
        body: {
          account_sid: this.accountSid,
          call_sid: `CA${randomBytes(16).toString("hex")}`,
          friendly_name: added.friendlyName,
          phone_number: added.phoneNumber,
          validation_code: String(100000 + (randomBytes(4).readUInt32BE() % 900000)),
        },
      };
    }
    const entry = this.entries.get(sid);
    if (!entry || entry.kind !== kind) throw new TwilioError(404, 20404, `The requested resource ${req.path} was not found`);
    if (req.method === "GET") return { status: 200, body: this.json(entry) };
    if (req.method === "DELETE") {
      this.entries.delete(sid);
      return { status: 204 };
    }
    if (req.method === "POST") {
      // Updating a number: its friendly name, and for bought numbers where incoming calls go.
      const form = await req.form();
      const friendly = form.get("FriendlyName");
      if (friendly !== null) entry.friendlyName = friendly.slice(0, 64);
      if (kind === "incoming") {
        const url = form.get("VoiceUrl");
        if (url !== null) {
          if (url !== "" && !/^https?:\/\/[^/\s]+/.test(url)) throw new TwilioError(400, 21502, `VoiceUrl is not a valid URL: ${url}`);
          entry.voiceUrl = url || null;
        }
        const method = form.get("VoiceMethod")?.toUpperCase();
        if (method !== undefined) {
          if (method !== "GET" && method !== "POST") throw new TwilioError(400, 21503, `VoiceMethod must be GET or POST; got ${method}`);
          entry.voiceMethod = method;
        }
      }
      return { status: 200, body: this.json(entry) };
    }
    throw new TwilioError(405, 20004, "Method not allowed");
  }
}
