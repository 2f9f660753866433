// Calls in flight (docs/campaigns.md, "Calls in flight"): a workspace at its limit has a single call
// refused with 429 calls_in_flight_limit and nothing dialled, GET /v1/concurrency shows the figures,
// a web call counts like a phone call, and once a call ends the next is accepted. And a call placed
// with `variables` must give every {{name}} its agent's templates use.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { organizations } from "../../../src/db/schema";
import { dial, finished, PLATFORM, place, SILENT } from "../../support/callees";
import { type CallView, createAgent, freshNumber, sandboxCallsFrom, waitForCall } from "../../support/calls";
import { createWorkspace, expectError, json, testDb, type Workspace } from "../../support/harness";

const concurrency = async (ws: Workspace) => json<{ callsInFlight: number; maxCallsInFlight: number }>(await ws.api("/v1/concurrency"));

const endCall = async (ws: Workspace, id: string) => {
  expect([200, 202]).toContain((await ws.api(`/v1/calls/${id}/end`, { method: "POST" })).status);
  await waitForCall(ws, id, finished);
};

describe("calls in flight", () => {
  it("refuses a call over the workspace's limit with 429 and dials nothing; web calls count; an ended call frees its place", async () => {
    const ws = await createWorkspace();
    const agent = await createAgent(ws);
    await testDb().update(organizations).set({ maxCallsInFlight: 1 }).where(eq(organizations.id, ws.organizationId));
    expect(await concurrency(ws)).toEqual({ callsInFlight: 0, maxCallsInFlight: 1 });

    const first = await place(ws, agent.id, { phoneNumber: SILENT });
    expect(await concurrency(ws)).toEqual({ callsInFlight: 1, maxCallsInFlight: 1 });

    const refusedNumber = freshNumber();
    const refused = await dial(ws, agent.id, { phoneNumber: refusedNumber });
    expect(refused.headers.get("retry-after")).toBe("5");
    expect((await expectError(refused, 429, "calls_in_flight_limit")).message).toMatch(/as many calls in flight as it may/);
    const webRefused = await ws.api(`/v1/agents/${agent.id}/web-call`, { method: "POST", json: {} });
    await expectError(webRefused, 429, "calls_in_flight_limit");
    // Nothing was dialled and no call was written for either.
    expect((await sandboxCallsFrom(PLATFORM)).filter((c) => c.to === refusedNumber)).toEqual([]);
    expect((await json<{ data: CallView[] }>(await ws.api("/v1/calls"))).data.map((c) => c.id)).toEqual([first.id]);

    await endCall(ws, first.id);
    await expect.poll(() => concurrency(ws)).toEqual({ callsInFlight: 0, maxCallsInFlight: 1 });

    // A web call (never joined) holds the place as a phone call does, until it ends.
    const web = await json<{ call: { id: string } }>(await ws.api(`/v1/agents/${agent.id}/web-call`, { method: "POST", json: {} }));
    expect(await concurrency(ws)).toEqual({ callsInFlight: 1, maxCallsInFlight: 1 });
    await expectError(await dial(ws, agent.id, { phoneNumber: refusedNumber }), 429, "calls_in_flight_limit");
    await endCall(ws, web.call.id);
    await expect.poll(() => concurrency(ws)).toEqual({ callsInFlight: 0, maxCallsInFlight: 1 });

    const next = await place(ws, agent.id, { phoneNumber: refusedNumber });
    expect(await concurrency(ws)).toEqual({ callsInFlight: 1, maxCallsInFlight: 1 });
    await endCall(ws, next.id);
  });
});

describe("a call's variables", () => {
  it("must give every {{name}} the agent's prompt and first message use: 400 variables_missing naming each", async () => {
    const ws = await createWorkspace();
    const agent = await createAgent(ws, {
      systemPrompt: "Remind {{first_name}} of {{appointment}}.",
      firstMessage: "Hello {{first_name}}!",
    });
    const res = await dial(ws, agent.id, { phoneNumber: SILENT, variables: { first_name: "Ada" } });
    const body = await expectError(res, 400, "variables_missing");
    expect(body.message).toMatch(/\{\{appointment\}\}/);
    expect(body.issues).toEqual([{ path: "variables.appointment", message: "Required by the agent's templates ({{appointment}})." }]);
    expect((await json<{ data: CallView[] }>(await ws.api("/v1/calls"))).data).toEqual([]);
  });
});
