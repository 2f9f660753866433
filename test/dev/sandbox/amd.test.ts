// The telephony sandbox's answering-machine detection request (dev/sandbox/amd.ts): what it takes
// from Calls.json and what it refuses, as Twilio would. The verdicts on whole calls are in
// test/integration/calls/voicemail.test.ts.
import { describe, expect, it } from "vitest";
import { parseAmdRequest } from "../../../dev/sandbox/amd";
import { TwilioError } from "../../../dev/sandbox/phone-numbers";

const form = (p: Record<string, string>) => new URLSearchParams({ To: "+12025550131", From: "+15005550006", ...p });
const AMD = { AsyncAmd: "true", AsyncAmdStatusCallback: "https://api.example.com/telephony/twilio/amd/1" };

describe("parseAmdRequest", () => {
  it("reads async detection in both modes, POST by default", () => {
    expect(parseAmdRequest(form({ MachineDetection: "Enable", ...AMD }))).toEqual({
      mode: "Enable",
      callbackUrl: AMD.AsyncAmdStatusCallback,
    });
    expect(parseAmdRequest(form({ MachineDetection: "DetectMessageEnd", ...AMD, AsyncAmdStatusCallbackMethod: "post" }))).toEqual({
      mode: "DetectMessageEnd",
      callbackUrl: AMD.AsyncAmdStatusCallback,
    });
  });

  it("is null without MachineDetection", () => {
    expect(parseAmdRequest(form({}))).toBeNull();
    expect(parseAmdRequest(form({ AsyncAmd: "true" }))).toBeNull();
  });

  it("refuses an unknown mode, synchronous detection, no callback, or a GET callback", () => {
    const refused = (p: Record<string, string>) => {
      try {
        parseAmdRequest(form(p));
      } catch (err) {
        return err instanceof TwilioError ? err.body() : err;
      }
      throw new Error("accepted");
    };
    expect(refused({ MachineDetection: "Detect", ...AMD })).toMatchObject({ code: 21215 });
    expect(refused({ MachineDetection: "Enable", AsyncAmdStatusCallback: AMD.AsyncAmdStatusCallback })).toMatchObject({ code: 21215 });
    expect(refused({ MachineDetection: "Enable", AsyncAmd: "true" })).toMatchObject({ code: 21262 });
    expect(refused({ MachineDetection: "Enable", ...AMD, AsyncAmdStatusCallbackMethod: "GET" })).toMatchObject({ code: 21215 });
  });
});
