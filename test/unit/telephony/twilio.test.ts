// The Twilio adapter's transfer, hang-up and cancel against a stand-in of Twilio's Calls resource:
// what goes on the wire (Basic auth, the form body, the TwiML escaped), when it is retried, and how
// refusals are mapped.
// The sandbox end of a transfer (the stream stopped, the leg answered) is in test/dev/sandbox/telephony.test.ts.
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ProviderError } from "../../../src/providers/http";
import { dialTwiml, playDigitsTwiml, streamTwiml, Twilio } from "../../../src/telephony/twilio";
import { CallNotInProgressError } from "../../../src/telephony/types";

const SID = `AC${"a".repeat(32)}`;
const TOKEN = "b".repeat(32);
const CALL = `CA${"c".repeat(32)}`;

interface Seen {
  method: string;
  path: string;
  authorization: string | undefined;
  contentType: string | undefined;
  body: string;
}

/** One answer of the stand-in: a status and Twilio's JSON, or none at all (the request hangs). */
type Answer = { status: number; json?: unknown; headers?: Record<string, string> } | "hang";

let server: Server;
let base: string;
let seen: Seen[] = [];
let answers: Answer[] = [];

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    seen.push({
      method: req.method ?? "",
      path: req.url ?? "",
      authorization: req.headers.authorization,
      contentType: req.headers["content-type"],
      body: Buffer.concat(chunks).toString("utf8"),
    });
    const answer = answers.shift() ?? { status: 200, json: { sid: CALL, status: "in-progress" } };
    if (answer === "hang") return;
    res.writeHead(answer.status, { "content-type": "application/json", ...answer.headers }).end(JSON.stringify(answer.json ?? {}));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});
beforeEach(() => {
  seen = [];
  answers = [];
});

const twilio = (opts: { retries?: number; timeoutMs?: number } = {}) =>
  new Twilio(base, SID, TOKEN, { timeoutMs: opts.timeoutMs ?? 2000, retries: opts.retries ?? 2, backoffMs: 10 });
const twilioError = (status: number, code: number, message: string) => ({
  status,
  json: { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status },
});

describe("dialTwiml", () => {
  it("dials one number from the caller id, answering on bridge, with every attribute and text XML-escaped", () => {
    expect(dialTwiml("+14155550100", "+15005550006")).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><Response><Dial callerId="+15005550006" answerOnBridge="true"><Number>+14155550100</Number></Dial></Response>',
    );
    const odd = dialTwiml(`+1<Number>&`, `a"<b>&'`);
    expect(odd).toContain('callerId="a&#34;&#60;b&#62;&#38;&#39;"');
    expect(odd).toContain("<Number>+1&#60;Number&#62;&#38;</Number>");
    expect(odd.match(/<Number>/g)).toHaveLength(1);
  });
});

describe("Twilio.transfer", () => {
  it("POSTs the Twiml to the call's resource with the account's Basic credentials, and nothing else", async () => {
    await twilio().transfer(CALL, "+14155550100", "+15005550006");
    expect(seen).toHaveLength(1);
    const [request] = seen as [Seen];
    expect(request.method).toBe("POST");
    expect(request.path).toBe(`/2010-04-01/Accounts/${SID}/Calls/${CALL}.json`);
    expect(request.authorization).toBe(`Basic ${Buffer.from(`${SID}:${TOKEN}`).toString("base64")}`);
    expect(request.contentType).toMatch(/^application\/x-www-form-urlencoded/);
    // The exact body: one field, Twiml, form-encoded.
    expect(request.body).toBe(
      "Twiml=%3C%3Fxml+version%3D%221.0%22+encoding%3D%22UTF-8%22%3F%3E%3CResponse%3E%3CDial+callerId%3D%22%2B15005550006%22+" +
        "answerOnBridge%3D%22true%22%3E%3CNumber%3E%2B14155550100%3C%2FNumber%3E%3C%2FDial%3E%3C%2FResponse%3E",
    );
    expect(new URLSearchParams(request.body).get("Twiml")).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><Response><Dial callerId="+15005550006" answerOnBridge="true"><Number>+14155550100</Number></Dial></Response>',
    );
  });

  it("escapes what it puts in the TwiML, and the form encoding carries it intact", async () => {
    await twilio().transfer("CA/../x?y", "+14155550100", `+1"><Hangup/>`);
    const [request] = seen as [Seen];
    expect(request.path).toBe(`/2010-04-01/Accounts/${SID}/Calls/CA%2F..%2Fx%3Fy.json`);
    const twiml = new URLSearchParams(request.body).get("Twiml");
    expect(twiml).toContain('callerId="+1&#34;&#62;&#60;Hangup/&#62;"');
    expect(twiml).not.toContain("<Hangup/>");
  });

  it("retries when Twilio answered that it did nothing (429, 503), honouring Retry-After", async () => {
    answers = [{ status: 429, json: { code: 20429, message: "Too Many Requests" }, headers: { "retry-after": "0" } }, { status: 503 }];
    await twilio({ retries: 2 }).transfer(CALL, "+14155550100", "+15005550006");
    expect(seen).toHaveLength(3);
    expect(new Set(seen.map((s) => s.body)).size).toBe(1);
  });

  it("does not retry what may have taken effect: a timeout or a 500 fails at once", async () => {
    answers = ["hang"];
    const timedOut = await twilio({ retries: 2, timeoutMs: 200 })
      .transfer(CALL, "+14155550100", "+15005550006")
      .catch((e: unknown) => e);
    expect(timedOut).toBeInstanceOf(ProviderError);
    expect((timedOut as ProviderError).failure).toBe("timeout");
    expect(seen).toHaveLength(1);

    seen = [];
    answers = [{ status: 500 }];
    const failed = await twilio({ retries: 2 })
      .transfer(CALL, "+14155550100", "+15005550006")
      .catch((e: unknown) => e);
    expect(failed).toMatchObject({ name: "ProviderError", failure: "upstream", status: 500 });
    expect(seen).toHaveLength(1);
  });

  it("maps 21220 (the call is no longer in progress) to a CallNotInProgressError with the call's status", async () => {
    answers = [
      twilioError(400, 21220, "Call is not in-progress. Cannot redirect."),
      { status: 200, json: { sid: CALL, status: "completed" } },
    ];
    const err = await twilio()
      .transfer(CALL, "+14155550100", "+15005550006")
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CallNotInProgressError);
    expect(err).toBeInstanceOf(ProviderError); // still a ProviderError for code that treats refusals alike
    expect(err).toMatchObject({ failure: "rejected", status: 400, callStatus: "completed" });
    expect((err as Error).message).toBe(`Twilio cannot transfer call ${CALL}: the call is completed, not in progress (error 21220)`);
    expect(seen.map((s) => s.method)).toEqual(["POST", "GET"]); // the refusal, then the call looked up
    expect(seen[1]?.path).toBe(`/2010-04-01/Accounts/${SID}/Calls/${CALL}.json`);
    expect(seen[1]?.authorization).toBe(seen[0]?.authorization);
  });

  it("an unknown call is not in progress either (404), and other refusals keep Twilio's message", async () => {
    answers = [twilioError(404, 20404, "The requested resource was not found")];
    const unknown = await twilio()
      .transfer(CALL, "+14155550100", "+15005550006")
      .catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(CallNotInProgressError);
    expect(unknown).toMatchObject({ status: 404, callStatus: null });
    expect(seen).toHaveLength(1);

    seen = [];
    answers = [twilioError(400, 13214, "Dial: Invalid callerId value"), { status: 200, json: { sid: CALL, status: "in-progress" } }];
    const refused = await twilio()
      .transfer(CALL, "+14155550100", "+19999999999")
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ProviderError);
    expect(refused).not.toBeInstanceOf(CallNotInProgressError);
    expect(refused).toMatchObject({ failure: "rejected", status: 400 });
    expect((refused as Error).message).toContain("Dial: Invalid callerId value");
  });
});

describe("Twilio.hangUp and Twilio.cancel", () => {
  it("follow Twilio's rule: Status=completed hangs up a call in progress, Status=canceled cancels one queued or ringing", async () => {
    await twilio().hangUp(CALL);
    await twilio().cancel(CALL);
    expect(seen.map((s) => [s.method, s.path, s.body])).toEqual([
      ["POST", `/2010-04-01/Accounts/${SID}/Calls/${CALL}.json`, "Status=completed"],
      ["POST", `/2010-04-01/Accounts/${SID}/Calls/${CALL}.json`, "Status=canceled"],
    ]);
    expect(seen[1]?.authorization).toBe(`Basic ${Buffer.from(`${SID}:${TOKEN}`).toString("base64")}`);
  });

  it("take a call that already ended (21220) or that Twilio does not know (20404) as done, and fail when Twilio does", async () => {
    answers = [twilioError(400, 21220, "Call is not in-progress."), twilioError(404, 20404, "The requested resource was not found")];
    await expect(twilio().cancel(CALL)).resolves.toBeUndefined();
    await expect(twilio().hangUp(CALL)).resolves.toBeUndefined();
    answers = [{ status: 500 }, { status: 500 }, { status: 500 }];
    await expect(twilio({ retries: 2 }).cancel(CALL)).rejects.toMatchObject({ name: "ProviderError", status: 500 });
  });
});

describe("Twilio.sendDigits", () => {
  const url = "wss://api.example.com/telephony/twilio/media/0193";
  const twiml =
    '<?xml version="1.0" encoding="UTF-8"?><Response><Play digits="1w#"/><Connect><Stream url="wss://api.example.com/telephony/twilio/media/0193">' +
    '<Parameter name="token" value="t0k"/><Parameter name="callId" value="0193"/></Stream></Connect></Response>';

  it("plays the keys, then streams the call to us again with the new parameters, escaped", () => {
    expect(playDigitsTwiml("1w#", url, { token: "t0k", callId: "0193" })).toBe(twiml);
    expect(playDigitsTwiml('1"/><Hangup/>', url, { token: 'a"&' })).toContain('<Play digits="1&#34;/&#62;&#60;Hangup/&#62;"/><Connect>');
    expect(playDigitsTwiml("1", url, { token: 'a"&' })).toContain('<Parameter name="token" value="a&#34;&#38;"/>');
    // The stream part is the one a call is placed with.
    expect(playDigitsTwiml("1", url, { token: "t" }).replace('<Play digits="1"/>', "")).toBe(streamTwiml(url, { token: "t" }));
  });

  it("updates the live call with it, retrying only what did nothing (429), and maps a call that ended", async () => {
    answers = [{ status: 429, json: { code: 20429, message: "Too Many Requests" }, headers: { "retry-after": "0" } }];
    await twilio({ retries: 2 }).sendDigits(CALL, "1w#", url, { token: "t0k", callId: "0193" });
    expect(seen).toHaveLength(2);
    expect(seen[1]?.path).toBe(`/2010-04-01/Accounts/${SID}/Calls/${CALL}.json`);
    expect(new URLSearchParams(seen[1]?.body).get("Twiml")).toBe(twiml);

    seen = [];
    answers = [{ status: 500 }];
    await expect(twilio({ retries: 2 }).sendDigits(CALL, "1", url, {})).rejects.toMatchObject({ failure: "upstream", status: 500 });
    expect(seen).toHaveLength(1); // the keys may have been pressed: never twice

    answers = [
      twilioError(400, 21220, "Call is not in-progress. Cannot redirect."),
      { status: 200, json: { sid: CALL, status: "completed" } },
    ];
    const err = await twilio()
      .sendDigits(CALL, "1", url, {})
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CallNotInProgressError);
    expect((err as Error).message).toBe(`Twilio cannot press keys on call ${CALL}: the call is completed, not in progress (error 21220)`);
  });
});
