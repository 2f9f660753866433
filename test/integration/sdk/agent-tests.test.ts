// The SDK's agent tests resource against the real worker: tests created, read, changed, listed and
// deleted; a run of one and a run of all; runs listed and read; runAndWait telling a failing test
// from a passing one, as a CI script reads it; a replay of a chat. The API's own rules: test/integration/agent-tests/.
import { describe, expect, it } from "vitest";
import { NotFoundError } from "../../../packages/sdk/src/index";
import { testAgent } from "../../support/agent-tests";
import { createWorkspace } from "../../support/harness";
import { sdkFor } from "../../support/sdk";
import { chat, createWidget, visitor } from "../../support/widgets";

const passing = {
  name: "Echoes the order",
  scenario: { kind: "script" as const, turns: ["Where is my order 7?"] },
  criteria: { successCriteria: ['The agent says "order 7"'], extractionFields: [] },
};

describe("SDK agent tests", () => {
  it("create, retrieve, update, list, del, run, runAll, runs.list, runs.retrieve, runAndWait", async () => {
    const ws = await createWorkspace();
    const client = sdkFor(ws);
    const agent = await testAgent(ws);

    const test = await client.agentTests.create(agent.id, passing);
    expect(test).toMatchObject({ name: "Echoes the order", scenario: { kind: "script" }, toolExpectations: [] });
    expect((await client.agentTests.retrieve(agent.id, test.id)).id).toBe(test.id);
    const failing = await client.agentTests.create(agent.id, { ...passing, name: "Expects a booking" });
    const changed = await client.agentTests.update(agent.id, failing.id, {
      criteria: { successCriteria: ['The agent says "booked"'], extractionFields: [] },
    });
    expect(changed.criteria.successCriteria).toEqual(['The agent says "booked"']);
    expect((await client.agentTests.list(agent.id)).data.map((t) => t.id)).toEqual([failing.id, test.id]);

    const one = await client.agentTests.run(agent.id, test.id);
    expect(one).toMatchObject({ batchId: null, data: [{ testId: test.id, status: "queued" }] });
    const all = await client.agentTests.runAll(agent.id);
    expect(all.data).toHaveLength(2);
    await expect
      .poll(async () =>
        (await client.agentTests.runs.list(agent.id, { batchId: all.batchId ?? "" })).data.every(
          (r) => r.status !== "queued" && r.status !== "running",
        ),
      )
      .toBe(true);
    const read = await client.agentTests.runs.retrieve(agent.id, one.data[0]?.id ?? "");
    expect(read.testName).toBe("Echoes the order");

    // As a CI job reads it: the one test passes, all of them do not.
    const alone = await client.agentTests.runAndWait(agent.id, { testId: test.id, intervalMs: 100 });
    expect(alone).toMatchObject({ passed: true, timedOut: false, runs: [{ status: "passed" }] });
    const both = await client.agentTests.runAndWait(agent.id, { intervalMs: 100 });
    expect(both.passed).toBe(false);
    expect(both.runs.map((r) => [r.testName, r.status])).toEqual([
      ["Echoes the order", "passed"],
      ["Expects a booking", "failed"],
    ]);
    expect(both.runs[1]?.results?.criteria[0]?.reason).toBe('The transcript never mentions "booked".');

    await expect(client.agentTests.run(agent.id, test.id, { version: 2 })).rejects.toBeInstanceOf(NotFoundError);
    await expect(client.agentTests.del(agent.id, failing.id)).resolves.toBeUndefined();
    await expect(client.agentTests.retrieve(agent.id, failing.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it("runAndWait in voice mode: the test played as a web call, with its voice-to-voice latency and the call", async () => {
    const ws = await createWorkspace();
    const client = sdkFor(ws);
    const agent = await testAgent(ws);
    const lines = ["Where is my order number seven?"];
    const test = await client.agentTests.create(agent.id, {
      ...passing,
      scenario: { kind: "script", turns: lines },
      criteria: { successCriteria: ['The agent says "order number seven"'], extractionFields: [] },
    });
    const result = await client.agentTests.runAndWait(agent.id, { testId: test.id, mode: "voice", intervalMs: 250, timeoutMs: 60_000 });
    expect(result).toMatchObject({ passed: true, timedOut: false, runs: [{ mode: "voice", status: "passed" }] });
    const run = result.runs[0];
    expect(run?.transcript.filter((t) => t.role === "user").map((t) => t.text)).toEqual(lines);
    expect(run?.latency).toMatchObject({ turns: 1, p50Ms: expect.any(Number) });
    expect(run?.latency?.p50Ms).toBeGreaterThan(0);
    const call = await client.calls.retrieve(run?.callId ?? "");
    expect(call).toMatchObject({ type: "web", status: "completed" });
  }, 90_000);

  it("replay: a widget chat replayed against the live version, read until final", async () => {
    const ws = await createWorkspace();
    const client = sdkFor(ws);
    const agent = await testAgent(ws);
    const { token } = await createWidget(ws, { agentId: agent.id });
    const { sessionId } = await chat(token, { visitorId: visitor(), message: "Where is my order 7?" });

    const queued = await client.agentTests.replay(agent.id, { chatId: sessionId });
    expect(queued).toMatchObject({ mode: "replay", status: "queued", replay: { source: { kind: "chat", id: sessionId } } });
    await expect.poll(async () => (await client.agentTests.runs.retrieve(agent.id, queued.id)).status).toBe("passed");
    const run = await client.agentTests.runs.retrieve(agent.id, queued.id);
    expect(run.replay).toMatchObject({ differingTurns: 0, turns: [{ caller: "Where is my order 7?", differs: false }] });
    await expect(client.agentTests.replay(agent.id, { callId: sessionId })).rejects.toBeInstanceOf(NotFoundError);
  });
});
