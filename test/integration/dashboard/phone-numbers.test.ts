// The Phone Numbers screen over HTTP: admins add a caller id (one the Twilio stand-in knows), route
// its inbound calls to an agent or to none, and remove it, through the API's own operations
// (src/calls/phone-numbers.ts): a number Twilio does not know, a malformed one and one already
// added are told on the form; members see the numbers and where they go, and cannot change them;
// the test-call form offers them as its From and says the carrier is the sandbox.
import { describe, expect, it } from "vitest";
import { addCallerId, createAgent, freshNumber, sandboxCallsFrom, twilioHas, waitForCall } from "../../support/calls";
import { addMemberTo, createWorkspace, json } from "../../support/harness";
import { pagesAs } from "../../support/pages";

interface NumberView {
  id: string;
  number: string;
  label: string | null;
  agentId: string | null;
}

describe("the Phone Numbers screen", () => {
  it("adds, routes and removes a number; refusals on the form; members look only", async () => {
    const ws = await createWorkspace("Phone numbers page");
    const agent = await createAgent(ws, { name: "Front desk" });
    const admin = await pagesAs(ws.admin.email, ws.admin.password);
    const number = await twilioHas(freshNumber(), "incoming");

    const empty = await admin("/dashboard/phone-numbers");
    expect(empty.html).toContain("No phone numbers yet.");
    expect(empty.html).toContain("Twilio stand-in");

    const added = await admin("/dashboard/phone-numbers", { number, label: "Main line", agentId: agent.id });
    expect([added.status, added.location]).toEqual([303, "/dashboard/phone-numbers?notice=added"]);
    const listed = await json<{ data: NumberView[] }>(await ws.api("/v1/phone-numbers"));
    expect(listed.data).toMatchObject([{ number, label: "Main line", agentId: agent.id }]);
    const id = listed.data[0]?.id as string;
    const page = (await admin("/dashboard/phone-numbers?notice=added")).html;
    expect(page).toContain("Number added.");
    expect(page).toContain(`<option value="${agent.id}" selected="">Front desk</option>`);

    // Refusals, on the form, the typing kept.
    const again = await admin("/dashboard/phone-numbers", { number, label: "", agentId: "" });
    expect(again.status).toBe(409);
    expect(again.html).toContain(`${number} is already one of this workspace&#39;s phone numbers.`);
    const unknown = await admin("/dashboard/phone-numbers", { number: freshNumber(), label: "", agentId: "" });
    expect(unknown.status).toBe(400);
    expect(unknown.html).toContain("is neither a phone number of this platform&#39;s Twilio account nor a caller id verified there");
    const malformed = await admin("/dashboard/phone-numbers", { number: "0800 CALL ME", label: "", agentId: "" });
    expect(malformed.status).toBe(400);
    expect(malformed.html).toContain('value="0800 CALL ME"');

    // Route to no agent, then remove.
    expect((await admin(`/dashboard/phone-numbers/${id}`, { agentId: "" })).location).toBe("/dashboard/phone-numbers?notice=saved");
    expect((await json<NumberView>(await ws.api(`/v1/phone-numbers/${id}`))).agentId ?? null).toBeNull();
    expect((await admin(`/dashboard/phone-numbers/${id}`, { agentId: "not-an-id" })).status).toBe(400);

    // A member sees the numbers and where they go, and cannot change them.
    const member = await addMemberTo(ws, "member");
    const asMember = await pagesAs(member.email, member.password);
    const look = (await asMember("/dashboard/phone-numbers")).html;
    expect(look).toContain(number);
    expect(look).toContain("Admins add, route and remove numbers.");
    expect(look).not.toContain(`action="/dashboard/phone-numbers/${id}/remove"`);
    expect((await asMember(`/dashboard/phone-numbers/${id}/remove`, {})).status).toBe(403);

    // The test call's From offers it.
    const calls = (await admin("/dashboard/calls")).html;
    expect(calls).toContain(`<option value="${number}">${number}</option>`);
    expect(calls).toContain("Calls go to the local telephony sandbox");

    expect((await admin(`/dashboard/phone-numbers/${id}/remove`, {})).location).toBe("/dashboard/phone-numbers?notice=removed");
    expect((await json<{ data: NumberView[] }>(await ws.api("/v1/phone-numbers"))).data).toEqual([]);
  });

  it("places the test call from the From number chosen on the form", async () => {
    const ws = await createWorkspace("Test call from");
    const agent = await createAgent(ws, { name: "Caller desk", firstMessage: "Hello from the test call." });
    await addCallerId(ws); // another of the workspace's numbers: the form's first choice is not the one taken
    const chosen = await addCallerId(ws);
    const admin = await pagesAs(ws.admin.email, ws.admin.password);
    expect((await admin("/dashboard/calls")).html).toContain(`<option value="${chosen.number}">${chosen.number}</option>`);

    const placed = await admin("/dashboard/calls/test", { agentId: agent.id, phoneNumber: "+12025550100", fromNumber: chosen.number });
    expect(placed.status).toBe(303);
    const callId = /^\/dashboard\/calls\/([0-9a-f-]{36})$/.exec(placed.location ?? "")?.[1] ?? "";
    const call = await waitForCall(ws, callId, (c) => c.status !== "queued");
    expect(call).toMatchObject({ fromNumber: chosen.number, toNumber: "+12025550100", direction: "outbound" });
    // The carrier was asked to call from it.
    expect((await sandboxCallsFrom(chosen.number)).map((c) => c.to)).toEqual(["+12025550100"]);

    // A From the workspace does not have is refused on the form, and nothing is placed.
    const stranger = freshNumber();
    const refused = await admin("/dashboard/calls/test", { agentId: agent.id, phoneNumber: "+12025550100", fromNumber: stranger });
    expect(refused.status).toBe(400);
    expect(await sandboxCallsFrom(stranger)).toEqual([]);
  }, 40_000);
});
