// Caller ids belong to one workspace and to the platform's Twilio account (docs/calls.md, "Caller
// ids"): a workspace calls from a number it added that the account has bought or verified, never
// from another workspace's number, nor from one Twilio does not have (when added, and at each call).
// The telephony sandbox answers Twilio's IncomingPhoneNumbers and OutgoingCallerIds.
import { describe, expect, it } from "vitest";
import {
  addCallerId,
  type CallView,
  createAgent,
  freshNumber,
  providerCallId,
  sandboxCallsFrom,
  settledSandboxCall,
  twilioHas,
  twilioReleases,
} from "../../calls";
import { createWorkspace, expectError, json, stack, type Workspace } from "../../harness";

const BUSY = "+12025550102"; // the sandbox's busy callee: the call ends without a conversation
const PLATFORM = "+15005550006"; // the stack's TWILIO_FROM_NUMBERS

const call = (ws: Workspace, agentId: string, body: Record<string, unknown>) =>
  ws.api(`/v1/agents/${agentId}/calls`, { method: "POST", json: { phoneNumber: BUSY, ...body } });

const placed = async (res: Response) => {
  if (res.status !== 201) throw new Error(`place call: ${res.status} ${await res.text()}`);
  return json<CallView>(res);
};

const callsOf = async (ws: Workspace) => (await json<{ data: CallView[] }>(await ws.api("/v1/calls"))).data;
const numbersOf = async (ws: Workspace) =>
  (await json<{ data: Array<{ id: string; number: string }> }>(await ws.api("/v1/phone-numbers"))).data;

describe("caller ids", () => {
  it("a workspace calls from a number of the Twilio account it added: by number, by id, and by default", async () => {
    const ws = await createWorkspace();
    const agent = await createAgent(ws);
    const own = await addCallerId(ws);
    const byNumber = await placed(await call(ws, agent.id, { fromNumber: own.number }));
    expect(byNumber.fromNumber).toBe(own.number);
    const dialled = await settledSandboxCall(await providerCallId(byNumber.id));
    expect(dialled).toMatchObject({ to: BUSY, status: "busy" });
    expect((await placed(await call(ws, agent.id, { phoneNumberId: own.id }))).fromNumber).toBe(own.number);
    // No caller id named: the workspace's oldest number, not the platform's.
    expect((await placed(await call(ws, agent.id, {}))).fromNumber).toBe(own.number);
    expect(await sandboxCallsFrom(own.number)).toHaveLength(3);
  });

  it("accepts a caller id verified in the Twilio account (OutgoingCallerIds)", async () => {
    const ws = await createWorkspace();
    const agent = await createAgent(ws);
    const verified = await addCallerId(ws, "verified");
    const res = await placed(await call(ws, agent.id, { fromNumber: verified.number }));
    expect(res.fromNumber).toBe(verified.number);
    expect((await settledSandboxCall(await providerCallId(res.id))).status).toBe("busy");
  });

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
    expect((await placed(await call(a, (await createAgent(a)).id, { fromNumber: theirs.number }))).fromNumber).toBe(theirs.number);
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
    expect((await placed(await call(ws, agent.id, { fromNumber: released.number }))).fromNumber).toBe(released.number);
  });

  it("the platform's shared numbers: every workspace calls from them, none can add them as its own", async () => {
    expect(stack().vars.TWILIO_FROM_NUMBERS).toBe(PLATFORM);
    const ws = await createWorkspace();
    const shared = await expectError(
      await ws.api("/v1/phone-numbers", { method: "POST", json: { number: PLATFORM } }),
      409,
      "phone_number_taken",
    );
    expect(shared.message).toContain("shared");
    const agent = await createAgent(ws);
    expect((await placed(await call(ws, agent.id, { fromNumber: PLATFORM }))).fromNumber).toBe(PLATFORM);
    expect((await placed(await call(ws, agent.id, {}))).fromNumber).toBe(PLATFORM);
  });
});
