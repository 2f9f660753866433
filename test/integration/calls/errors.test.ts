// Every way a call request, or telephony traffic, is refused: a number that is not one, a caller
// id of another workspace or one the Twilio account does not have (docs/calls.md, "Caller ids"),
// a race for one number, forged Twilio callbacks and media streams, and another workspace's call,
// on the API and the dashboard alike. Refusals leave no call and dial nothing.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import WebSocket from "ws";
import { answeredDeadline, findAgentOfCall, findAnalysisSettings, findCallAgent, findVoiceFor } from "../../../src/calls/queries/calls";
import { ALLOY_VOICE_ID } from "../../../src/voices/service";
import { accepted, BUSY, dial, finished, place, SILENT } from "../../support/callees";
import {
  addCallerId,
  type CallView,
  createAgent,
  freshNumber,
  postTwilioForm,
  providerCallId,
  sandboxCallsFrom,
  twilioHas,
  twilioReleases,
  twilioSign,
  waitForCall,
} from "../../support/calls";
import { createWorkspace, expectError, json, request, signIn, stack, testDb, type Workspace } from "../../support/harness";

const NO_CALL = "No call with that id in this workspace.";

/** A call to the busy callee from a caller id, or the default one. */
const call = (ws: Workspace, agentId: string, body: Record<string, unknown>) => dial(ws, agentId, { phoneNumber: BUSY, ...body });

const callsOf = async (ws: Workspace) => (await json<{ data: CallView[] }>(await ws.api("/v1/calls"))).data;
const numbersOf = async (ws: Workspace) =>
  (await json<{ data: Array<{ id: string; number: string }> }>(await ws.api("/v1/phone-numbers"))).data;

/** A dashboard error page: its status and its message. */
async function expectPage(res: Response, status: number, message: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toContain("text/html");
  expect(await res.text()).toContain(`<p role="alert">${message}</p>`);
}

describe("placing a call refuses", () => {
  it("validates the number and the caller id", async () => {
    const ws = await createWorkspace();
    const agent = await createAgent(ws, { silenceTimeoutSeconds: 5 });
    for (const phoneNumber of ["2025550100", "+0123456789", "+1 202 555 0100", 12025550100, "", "+1202555010012345"]) {
      await expectError(await ws.api(`/v1/agents/${agent.id}/calls`, { method: "POST", json: { phoneNumber } }), 400, "validation_failed");
    }
    const number = await twilioHas(freshNumber());
    const notOurs = await ws.api(`/v1/agents/${agent.id}/calls`, {
      method: "POST",
      json: { phoneNumber: SILENT, fromNumber: number },
    });
    const err = await expectError(notOurs, 400, "validation_failed");
    expect(err.issues?.[0]?.path).toBe("fromNumber");
    const added = await json<{ id: string }>(await ws.api("/v1/phone-numbers", { method: "POST", json: { number, label: "Sales" } }));
    await expectError(await ws.api("/v1/phone-numbers", { method: "POST", json: { number } }), 409, "conflict");
    const placed = await place(ws, agent.id, { phoneNumber: SILENT, phoneNumberId: added.id });
    expect(placed.fromNumber).toBe(number);
    expect((await waitForCall(ws, placed.id, finished, 30_000)).endedReason).toBe("silence-timeout");
  }, 60_000);
});

describe("caller ids", () => {
  it("refuses another workspace's number: it cannot be added (409) nor called from (400), and nothing is dialled", async () => {
    const a = await createWorkspace("owner");
    const b = await createWorkspace("other");
    const theirs = await addCallerId(a);
    const taken = await expectError(
      await b.api("/v1/phone-numbers", { method: "POST", json: { number: theirs.number } }),
      409,
      "phone_number_taken",
    );
    expect(taken.message).toContain("another workspace");
    const agent = await createAgent(b);
    const byNumber = await expectError(await call(b, agent.id, { fromNumber: theirs.number }), 400, "validation_failed");
    expect(byNumber.issues?.[0]?.path).toBe("fromNumber");
    expect(byNumber.message).toContain("POST /v1/phone-numbers");
    const byId = await expectError(await call(b, agent.id, { phoneNumberId: theirs.id }), 400, "validation_failed");
    expect(byId.issues?.[0]?.path).toBe("phoneNumberId");
    expect(await callsOf(b)).toEqual([]);
    expect(await numbersOf(b)).toEqual([]);
    expect(await sandboxCallsFrom(theirs.number)).toEqual([]);
    // The owner keeps it.
    expect((await accepted(await call(a, (await createAgent(a)).id, { fromNumber: theirs.number }))).fromNumber).toBe(theirs.number);
  });

  it("of two workspaces adding the same number at once, exactly one gets it", async () => {
    const a = await createWorkspace();
    const b = await createWorkspace();
    const number = await twilioHas(freshNumber());
    const results = await Promise.all([a, b].map((ws) => ws.api("/v1/phone-numbers", { method: "POST", json: { number } })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
    const loser = results.find((r) => r.status === 409) as Response;
    await expectError(loser, 409, "phone_number_taken");
  });

  it("refuses a number Twilio does not have: when it is added, and at the call once the account released it", async () => {
    const ws = await createWorkspace();
    const agent = await createAgent(ws);
    const absent = freshNumber();
    const refused = await expectError(
      await ws.api("/v1/phone-numbers", { method: "POST", json: { number: absent } }),
      400,
      "caller_id_not_verified",
    );
    expect(refused.message).toContain(absent);
    expect(refused.message).toContain("buy or verify it");
    expect(await numbersOf(ws)).toEqual([]);

    const released = await addCallerId(ws);
    await twilioReleases(released.number);
    for (const body of [{ fromNumber: released.number }, { phoneNumberId: released.id }, {}]) {
      const err = await expectError(await call(ws, agent.id, body), 400, "caller_id_not_verified");
      expect(err.message).toContain(released.number);
      expect(err.message).toContain("GET /v1/phone-numbers");
    }
    expect(await callsOf(ws)).toEqual([]);
    expect(await sandboxCallsFrom(released.number)).toEqual([]);
    // Verified again: it works at once (nothing is cached).
    await twilioHas(released.number, "verified");
    expect((await accepted(await call(ws, agent.id, { fromNumber: released.number }))).fromNumber).toBe(released.number);
  });
});

describe("forged telephony traffic", () => {
  it("refuses status callbacks without Twilio's signature, with a wrong one, or signed for another URL", async () => {
    const ws = await createWorkspace();
    const agent = await createAgent(ws, { silenceTimeoutSeconds: 5 });
    const placed = await place(ws, agent.id, { phoneNumber: SILENT });
    const sid = await providerCallId(placed.id);
    const path = `/telephony/twilio/status/${placed.id}`;
    const params = new URLSearchParams({ CallSid: sid, CallStatus: "busy", AccountSid: stack().vars.TWILIO_ACCOUNT_SID ?? "" });
    const post = (signature?: string) => postTwilioForm(path, params, signature);
    const token = stack().vars.TWILIO_AUTH_TOKEN ?? "";
    await expectError(await post(), 401, "unauthorized");
    await expectError(await post(twilioSign("not-the-token", `${stack().baseUrl}${path}`, params)), 401, "unauthorized");
    await expectError(await post(twilioSign(token, `${stack().baseUrl}/telephony/twilio/status/${sid}`, params)), 401, "unauthorized");
    // None of them moved the call; a genuine callback would have (busy).
    const call = await waitForCall(ws, placed.id, finished, 30_000);
    expect(call.endedReason).toBe("silence-timeout");
  }, 40_000);

  it("closes a media stream whose start carries the wrong stream token", async () => {
    const ws = await createWorkspace();
    const agent = await createAgent(ws);
    const placed = await place(ws, agent.id, { phoneNumber: SILENT });
    const url = `${stack().baseUrl.replace(/^http/, "ws")}/telephony/twilio/media/${placed.id}`;
    const socket = new WebSocket(url);
    await new Promise((resolve, reject) => {
      socket.once("open", resolve);
      socket.once("error", reject);
    });
    const closed = new Promise<number>((resolve) => socket.once("close", (code) => resolve(code)));
    socket.send(JSON.stringify({ event: "connected", protocol: "Call", version: "1.0.0" }));
    socket.send(
      JSON.stringify({
        event: "start",
        sequenceNumber: "1",
        streamSid: "MZ0",
        start: { streamSid: "MZ0", callSid: "CA0", customParameters: { token: "forged", callId: placed.id }, tracks: ["inbound"] },
      }),
    );
    expect(await closed).toBe(1008);
    const res = await request(`/telephony/twilio/media/${placed.id}`);
    await expectError(res, 426, "upgrade_required");
  }, 30_000);
});

describe("call reads: the API and the dashboard", () => {
  it("show a call's cost the same way, and answer 404 for another workspace's call or a missing one", async () => {
    const ws = await createWorkspace("Call reads, one call");
    const agent = await createAgent(ws);
    const phone = await json<{ id: string }>(await ws.api(`/v1/agents/${agent.id}/calls`, { method: "POST", json: { phoneNumber: BUSY } }));
    const call = await waitForCall(ws, phone.id, (c) => c.status === "busy", 20_000);
    const { cookie } = await signIn(ws.admin.email, ws.admin.password);
    const html = await (await request(`/dashboard/calls/${phone.id}`, { headers: { cookie } })).text();
    expect(html).toContain(`${call.cost.credits} credits`);

    const other = await createWorkspace("Call reads, stranger");
    const stranger = await signIn(other.admin.email, other.admin.password);
    for (const id of [phone.id, randomUUID()]) {
      const res = await expectError(await other.api(`/v1/calls/${id}`), 404, "not_found");
      expect(res.message).toBe(NO_CALL);
      await expectError(await other.api(`/v1/calls/${id}/recording`), 404, "not_found");
      await expectPage(await request(`/dashboard/calls/${id}`, { headers: { cookie: stranger.cookie } }), 404, NO_CALL);
      await expectPage(await request(`/dashboard/calls/${id}/recording`, { headers: { cookie: stranger.cookie } }), 404, NO_CALL);
    }
    await expectPage(await request("/dashboard/calls/not-a-uuid", { headers: { cookie } }), 404, NO_CALL);
    // A call without a recording: each surface in its own words.
    const none = await expectError(await ws.api(`/v1/calls/${phone.id}/recording`), 404, "not_found");
    expect(none.message).toBe("This call has no recording (yet).");
    await expectPage(await request(`/dashboard/calls/${phone.id}/recording`, { headers: { cookie } }), 404, "This call has no recording.");
  });
});

describe("what a call runs with is read in the call's own workspace", () => {
  it("finds the agent and an owned voice only for a call of their workspace; system voices for every workspace", async () => {
    const [a, b] = [await createWorkspace(), await createWorkspace()];
    const voice = await json<{ id: string }>(
      await a.api("/v1/voices", {
        method: "POST",
        json: { name: "Owned", provider: "openai", providerVoiceId: "alloy", language: "en" },
      }),
    );
    const agent = await createAgent(a, { voiceId: voice.id });
    const db = testDb();
    const ofA = { organizationId: a.organizationId, agentId: agent.id, agentVersion: 1 };
    const ofB = { organizationId: b.organizationId, agentId: agent.id, agentVersion: 1 }; // a call row naming another workspace's agent
    expect((await findCallAgent(db, ofA, ALLOY_VOICE_ID))?.voice?.id).toBe(voice.id);
    expect((await findAgentOfCall(db, { ...ofA, agentVersion: null }))?.id).toBe(agent.id); // a call from before versions
    expect(await findCallAgent(db, ofB, ALLOY_VOICE_ID)).toBeNull();
    expect(await findAgentOfCall(db, ofB)).toBeNull();
    expect(await findAnalysisSettings(db, ofB)).toBeNull();
    expect(await findAnalysisSettings(db, ofA)).toMatchObject({ llmModel: "sandbox-chat" });
    expect(await findVoiceFor(db, b.organizationId, voice.id)).toBeNull();
    expect((await findVoiceFor(db, b.organizationId, ALLOY_VOICE_ID))?.id).toBe(ALLOY_VOICE_ID);
    // Another workspace's agent gives no deadline of its own: the 2 h fallback.
    const within = (d: Date, seconds: number) => Math.abs(d.getTime() - Date.now() - seconds * 1000) < 60_000;
    expect(within(await answeredDeadline(db, ofA, 0), 600)).toBe(true);
    expect(within(await answeredDeadline(db, ofB, 0), 7_200)).toBe(true);
  });
});
