// Answering-machine detection at the Twilio adapter: what Calls.json carries with and without it
// (against a stand-in of Twilio's Calls resource), and the AsyncAmdStatusCallback's verdict read
// from its form parameters.
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { answererOf, parseMachineVerdict } from "../../../src/telephony/amd";
import { Twilio } from "../../../src/telephony/twilio";
import type { PlaceCallRequest } from "../../../src/telephony/types";

const SID = `AC${"a".repeat(32)}`;
const CALL = `CA${"c".repeat(32)}`;

let server: Server;
let base: string;
let bodies: string[] = [];

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    bodies.push(Buffer.concat(chunks).toString("utf8"));
    res.writeHead(201, { "content-type": "application/json" }).end(JSON.stringify({ sid: CALL, status: "queued" }));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});
beforeEach(() => {
  bodies = [];
});

const request: PlaceCallRequest = {
  to: "+14155550100",
  from: "+15005550006",
  streamUrl: "wss://api.example.com/telephony/twilio/media/1",
  streamParameters: { token: "t" },
  statusCallbackUrl: "https://api.example.com/telephony/twilio/status/1",
  ringTimeoutSeconds: 30,
};
const AMD = ["MachineDetection", "AsyncAmd", "AsyncAmdStatusCallback", "AsyncAmdStatusCallbackMethod"];

const placed = async (req: PlaceCallRequest) => {
  const twilio = new Twilio(base, SID, "b".repeat(32), { timeoutMs: 2000, retries: 0 });
  expect(await twilio.placeCall(req)).toEqual({ providerCallId: CALL });
  return new URLSearchParams(bodies[0]);
};

describe("Twilio.placeCall and machine detection", () => {
  it("asks for async detection with its own signed callback, by POST", async () => {
    const callbackUrl = "https://api.example.com/telephony/twilio/amd/1";
    for (const mode of ["Enable", "DetectMessageEnd"] as const) {
      bodies = [];
      const body = await placed({ ...request, machineDetection: { mode, callbackUrl } });
      expect(Object.fromEntries(AMD.map((k) => [k, body.getAll(k)]))).toEqual({
        MachineDetection: [mode],
        AsyncAmd: ["true"],
        AsyncAmdStatusCallback: [callbackUrl],
        AsyncAmdStatusCallbackMethod: ["POST"],
      });
      // The call itself is placed as without detection.
      expect(body.get("StatusCallback")).toBe(request.statusCallbackUrl);
      expect(body.get("Twiml")).toContain("<Connect><Stream");
    }
  });

  it("sends none of detection's parameters when none is asked for", async () => {
    const body = await placed(request);
    for (const k of AMD) expect(body.has(k), k).toBe(false);
    expect([...body.keys()].some((k) => /machine|amd/i.test(k))).toBe(false);
  });
});

describe("parseMachineVerdict", () => {
  const form = (p: Record<string, string>) => new URLSearchParams(p);

  it("reads Twilio's AnsweredBy, MachineDetectionDuration and CallSid", () => {
    expect(
      parseMachineVerdict(form({ CallSid: CALL, AccountSid: SID, AnsweredBy: "machine_end_beep", MachineDetectionDuration: "4312" })),
    ).toEqual({
      callSid: CALL,
      answeredBy: "machine_end_beep",
      durationMs: 4312,
    });
    for (const v of ["human", "machine_start", "machine_end_silence", "machine_end_other", "fax", "unknown"])
      expect(parseMachineVerdict(form({ CallSid: CALL, AnsweredBy: v }))?.answeredBy).toBe(v);
  });

  it("takes a value it does not know as unknown, a missing duration as null, and refuses a callback without a CallSid", () => {
    expect(parseMachineVerdict(form({ CallSid: CALL, AnsweredBy: "robot", MachineDetectionDuration: "soon" }))).toEqual({
      callSid: CALL,
      answeredBy: "unknown",
      durationMs: null,
    });
    expect(parseMachineVerdict(form({ CallSid: CALL }))?.answeredBy).toBe("unknown");
    expect(parseMachineVerdict(form({ AnsweredBy: "human" }))).toBeNull();
  });

  it("sorts the verdicts into a person, a machine and a fax", () => {
    expect(answererOf("human")).toBe("person");
    expect(answererOf("unknown")).toBe("person");
    for (const v of ["machine_start", "machine_end_beep", "machine_end_silence", "machine_end_other"] as const)
      expect(answererOf(v)).toBe("machine");
    expect(answererOf("fax")).toBe("fax");
  });
});
