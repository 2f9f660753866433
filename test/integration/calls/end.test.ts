// Ending a call on request: POST /v1/calls/{id}/end (docs/calls.md, "Ending a call"). A phone call
// in progress is hung up by its session (202, `ended-via-api`, the carrier hung up, the transcript
// kept, `call.completed`); a ringing one is canceled at the carrier (200, `canceled` /
// `call-canceled`, `call.failed`); a web call in progress ends over its socket; a call that is
// connected on record but has no session is ended by the request itself; an ended call is a 409,
// another workspace's or a missing one a 404, a malformed id a 400. The dashboard's Hang up:
// test/integration/dashboard/calls.test.ts.
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { SCRIPT } from "../../../dev/sandbox/callee";
import { calls } from "../../../src/db/schema";
import { CONVERSATION, NO_ANSWER, place } from "../../support/callees";
import {
  type CallView,
  createAgent,
  joinWebCall,
  providerCallId,
  refusedUpgrade,
  sandboxCallNow,
  settledSandboxCall,
  speech,
  WEB_RATE,
  waitForCall,
} from "../../support/calls";
import { eventsWritten, receiversPerTest } from "../../support/deliveries";
import { createWorkspace, expectError, json, testDb, until, type Workspace } from "../../support/harness";

const { subscribed } = receiversPerTest();

const NO_CALL = "No call with that id in this workspace.";
const ALREADY_ENDED = "The call has already ended.";

const end = (ws: Workspace, id: string) => ws.api(`/v1/calls/${id}/end`, { method: "POST" });

/** The webhook bodies a receiver got, parsed. */
const bodies = (received: Array<{ body: string }>) =>
  received.map((r) => JSON.parse(r.body) as { event: string; call: { id: string; status: string; endedReason: string | null } });

const webCall = async (ws: Workspace, agentId: string) =>
  json<{ call: { id: string; status: string }; webCall: { url: string } }>(
    await ws.api(`/v1/agents/${agentId}/web-call`, { method: "POST", json: {} }),
  );

// The callee's lines and the agent's voice come from the provider sandbox's one speech thread: warm it first.
beforeAll(async () => {
  await speech("Warming up.", WEB_RATE);
}, 30_000);

describe("ending a phone call", () => {
  it("in progress: its session hangs up (202), the carrier hangs up, the transcript is kept and call.completed fires", async () => {
    const ws = await createWorkspace();
    const { receiver } = await subscribed(ws, { channels: ["voice"] });
    const agent = await createAgent(ws, { firstMessage: "Hello, this is Acme Dental." });
    const placed = await place(ws, agent.id, { phoneNumber: CONVERSATION });
    const sid = await providerCallId(placed.id);
    // The callee has said its first line and the agent has started its reply: a conversation under way.
    const talking = await until(
      () => sandboxCallNow(sid),
      (c) => c.said.length >= 1 && c.agentUtterances.length >= 2,
      30_000,
    );
    expect(talking.status).toBe("in-progress");

    const res = await end(ws, placed.id);
    expect(res.status).toBe(202);
    const answered = await json<CallView>(res);
    expect(answered.id).toBe(placed.id);
    expect(["in-progress", "completed"]).toContain(answered.status);

    const callee = await settledSandboxCall(sid);
    expect(callee.status).toBe("completed");
    expect(callee.endedBy).toBe("worker"); // POST Calls/{sid}.json Status=completed
    expect(callee.callbacks.every((cb) => cb.httpStatus === 204)).toBe(true);

    const call = await waitForCall(ws, placed.id, (c) => c.analysis !== null || c.analysisError !== null);
    expect(call).toMatchObject({ status: "completed", endedReason: "ended-via-api", endedReasonCategory: "none" });
    expect(call.transcript.turns[0]).toMatchObject({ role: "agent", text: "Hello, this is Acme Dental." });
    expect(call.transcript.turns.filter((t) => t.role === "user").map((t) => t.text)).toContain(SCRIPT[0]);
    expect(call.recording).not.toBeNull();

    await receiver.waitFor(3);
    expect(await eventsWritten(ws.organizationId)).toEqual(["call.started", "call.completed", "call.analyzed"]);
    const completed = bodies(receiver.received).find((b) => b.event === "call.completed");
    expect(completed?.call).toMatchObject({ id: placed.id, status: "completed", endedReason: "ended-via-api" });

    const again = await expectError(await end(ws, placed.id), 409, "conflict");
    expect(again.message).toBe(ALREADY_ENDED);
  }, 90_000);

  it("ringing: canceled at the carrier (200), `canceled` / `call-canceled`, call.failed fires", async () => {
    const ws = await createWorkspace();
    const { receiver } = await subscribed(ws, { channels: ["voice"] });
    const agent = await createAgent(ws, { firstMessage: "Hello, this is Acme Dental." });
    const placed = await place(ws, agent.id, { phoneNumber: NO_ANSWER });
    const sid = await providerCallId(placed.id);
    await until(
      () => sandboxCallNow(sid),
      (c) => c.status === "ringing",
      10_000,
    );

    const res = await end(ws, placed.id);
    expect(res.status).toBe(200);
    expect(await json<CallView>(res)).toMatchObject({
      id: placed.id,
      status: "canceled",
      endedReason: "call-canceled",
      endedReasonCategory: "customer",
      analysisSkipped: "not-connected",
    });

    const callee = await settledSandboxCall(sid);
    expect(callee.statuses.map((s) => s.status)).toEqual(["queued", "initiated", "ringing", "canceled"]);
    expect(callee.endedBy).toBe("worker"); // POST Calls/{sid}.json Status=canceled
    // The carrier's own `canceled` callback finds the call ended: one ending, one webhook.
    expect(callee.callbacks.every((cb) => cb.httpStatus === 204)).toBe(true);

    await receiver.waitFor(1);
    expect(await eventsWritten(ws.organizationId)).toEqual(["call.failed"]);
    expect(bodies(receiver.received)[0]?.call).toMatchObject({ id: placed.id, status: "canceled", endedReason: "call-canceled" });
    expect(await waitForCall(ws, placed.id, () => true)).toMatchObject({ status: "canceled", endedReason: "call-canceled" });
    await expectError(await end(ws, placed.id), 409, "conflict");
  }, 60_000);
});

describe("ending a web call", () => {
  it("in progress: the session ends it over the socket (202, `ended-via-api`), call.completed fires", async () => {
    const ws = await createWorkspace();
    const { receiver } = await subscribed(ws, { channels: ["voice"] });
    const agent = await createAgent(ws, { firstMessage: "Hello, this is the web agent." });
    const { call, webCall: session } = await webCall(ws, agent.id);
    const client = await joinWebCall(session.url);
    await client.waitForEvent((e) => e.type === "status" && e.status === "in-progress");

    const res = await end(ws, call.id);
    expect(res.status).toBe(202);
    const ended = await client.waitForEvent((e) => e.type === "ended");
    expect(ended.reason).toBe("ended-via-api");
    expect(await client.closed).toEqual({ code: 1000, reason: "ended-via-api" });

    const done = await waitForCall(ws, call.id, (c) => c.status !== "in-progress");
    expect(done).toMatchObject({ status: "completed", endedReason: "ended-via-api", analysisSkipped: "no-caller-speech" });
    await receiver.waitFor(2);
    expect(await eventsWritten(ws.organizationId)).toEqual(["call.started", "call.completed"]);
    await expectError(await end(ws, call.id), 409, "conflict");
  }, 60_000);

  it("nobody joined yet (queued): canceled at once (200), and the socket is then refused", async () => {
    const ws = await createWorkspace();
    const agent = await createAgent(ws);
    const { call, webCall: session } = await webCall(ws, agent.id);
    expect(call.status).toBe("queued");
    const res = await end(ws, call.id);
    expect(res.status).toBe(200);
    expect(await json<CallView>(res)).toMatchObject({ status: "canceled", endedReason: "call-canceled" });
    expect(await eventsWritten(ws.organizationId)).toEqual([]); // no endpoint: nothing written, nothing sent
    expect(await refusedUpgrade(session.url)).toMatchObject({ status: 401, body: { code: "unauthorized" } });
  });

  it("connected on record but with no session (its Durable Object restarted): ended by the request itself (200)", async () => {
    const ws = await createWorkspace();
    const agent = await createAgent(ws);
    const { call } = await webCall(ws, agent.id);
    await testDb().update(calls).set({ status: "in-progress", startedAt: new Date() }).where(eq(calls.id, call.id));
    const res = await end(ws, call.id);
    expect(res.status).toBe(200);
    expect(await json<CallView>(res)).toMatchObject({ status: "completed", endedReason: "ended-via-api", endedReasonCategory: "none" });
  });
});

describe("ending a call refuses", () => {
  it("another workspace's call and a missing one (404, the same answer), a malformed id (400); nothing changes", async () => {
    const owner = await createWorkspace("End owner");
    const agent = await createAgent(owner);
    const { call } = await webCall(owner, agent.id);
    const other = await createWorkspace("End stranger");
    const foreign = await expectError(await end(other, call.id), 404, "not_found");
    const missing = await expectError(await end(other, randomUUID()), 404, "not_found");
    expect(foreign.message).toBe(NO_CALL);
    expect({ ...foreign, requestId: "" }).toEqual({ ...missing, requestId: "" });
    const malformed = await expectError(await end(other, "not-a-uuid"), 400, "validation_failed");
    expect(malformed.message).toContain("Call id must be a UUID");
    expect((await json<CallView>(await owner.api(`/v1/calls/${call.id}`))).status).toBe("queued");
  });
});
