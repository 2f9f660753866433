// The test-call form and the Phone Numbers screen say which carrier calls go through: with the
// configuration of a real deployment (TWILIO_API_BASE_URL left to Twilio's API), neither speaks of a
// sandbox or offers its scripted callees; with the local stack's stand-in, both say so.
import { describe, expect, it } from "vitest";
import { CallList, type FilterValues } from "../../../../src/dashboard/calls/list";
import { PhoneNumbersPage } from "../../../../src/dashboard/phone-numbers/views";
import type { Shell } from "../../../../src/dashboard/ui";
import { type Bindings, parseEnv } from "../../../../src/env";
import { carrierOf } from "../../../../src/telephony/registry";

const deployment: Bindings = {
  DATABASE_URL: "postgres://u:p@db.example/x",
  UPSTASH_REDIS_REST_URL: "https://redis.example",
  UPSTASH_REDIS_REST_TOKEN: "tok",
  SECRETS_KEK: `k1:${btoa("0123456789abcdef0123456789abcdef")}`,
  TWILIO_ACCOUNT_SID: "AC0123456789abcdef0123456789abcdef",
  TWILIO_AUTH_TOKEN: "token",
};

const shell: Shell = {
  title: "Calls",
  nonce: "n",
  active: "calls",
  user: { email: "admin@example.com" },
  role: "admin",
  csrf: "c",
  organizationId: "o",
  organizations: [{ id: "o", name: "Acme", role: "admin" }],
};
const q = Object.fromEntries(["search", "agentId", "status", "type", "direction", "from", "to"].map((k) => [k, ""])) as FilterValues;

function pages(carrier: { sandbox: boolean; url: string }) {
  const calls = String(
    CallList({
      shell,
      calls: [],
      agents: [{ id: "a", name: "Front desk" }],
      callerIds: ["+14155550100"],
      sandbox: carrier.sandbox,
      q,
      next: null,
      csv: "/dashboard/calls/export.csv",
    }),
  );
  const numbers = String(PhoneNumbersPage({ shell, numbers: [], agents: [], shared: ["+14155550100"], carrier }));
  return { calls, numbers };
}

describe("the carrier the call pages name", () => {
  it("a real carrier (Twilio's API, the default): the word sandbox is nowhere, no scripted callee is offered", () => {
    const carrier = carrierOf(parseEnv(deployment));
    expect(carrier).toEqual({ sandbox: false, url: "https://api.twilio.com" });
    expect(carrierOf({ TWILIO_API_BASE_URL: "https://api.twilio.com/" }).sandbox).toBe(false);
    const { calls, numbers } = pages(carrier);
    expect(calls).toContain("Place a test call");
    expect(calls).toContain('<option value="+14155550100">+14155550100</option>');
    expect(calls).toContain("Calls go out through Twilio to a real phone");
    expect(calls).not.toMatch(/sandbox/i);
    expect(calls).not.toContain("+12025550100"); // no callee filled in for the user
    expect(numbers).toContain("Calls go through the platform&#39;s Twilio account.");
    expect(numbers).not.toMatch(/sandbox|stand-in/i);
  });

  it("the local stack's stand-in: both pages say calls go to the sandbox", () => {
    const carrier = carrierOf(parseEnv({ ...deployment, TWILIO_API_BASE_URL: "http://127.0.0.1:8790" }));
    expect(carrier.sandbox).toBe(true);
    const { calls, numbers } = pages(carrier);
    expect(calls).toContain("Calls go to the local telephony sandbox");
    expect(numbers).toContain("Twilio stand-in (http://127.0.0.1:8790)");
  });
});
