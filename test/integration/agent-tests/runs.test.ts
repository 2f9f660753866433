// Agent tests through the real worker and the provider sandbox (docs/agent-tests.md), whose chat
// model echoes the caller ("You said: …"), plays the simulated caller by saying its goal's sentences
// then [END], and judges a criterion by whether the transcript has the phrases it quotes
// (docs/sandbox.md, "Agent tests"): a scripted run that passes and is metered; a simulated caller
// with a criterion that fails with the judge's reason; a judge answering prose; the turn cap; tool
// expectations against a real tool server; ten tests run at once; test_run.completed delivered;
// the workspace's limit on runs.
import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { agentTestRuns, usageEvents } from "../../../src/db/schema";
import { createTest, FINAL, finalRun, runToEnd, scriptedTest, startRun, type TestRunView, testAgent } from "../../support/agent-tests";
import { receiversPerTest } from "../../support/deliveries";
import { createWorkspace, expectError, json, testDb } from "../../support/harness";
import { servedContract } from "../../support/openapi";
import { agentWithTools, startToolServer, type ToolServer } from "../../support/tools";

const { subscribed } = receiversPerTest();
const servers: ToolServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

describe("tests of an agent", () => {
  it("are created with their defaults, listed, read, changed and deleted; bad input is a 400", async () => {
    const ws = await createWorkspace();
    const agent = await testAgent(ws);
    const created = await createTest(ws, agent.id, {
      name: "Books a check-up",
      scenario: { kind: "simulated", persona: "A busy parent.", goal: "Book a check-up." },
    });
    expect(created).toMatchObject({
      agentId: agent.id,
      name: "Books a check-up",
      scenario: { kind: "simulated", persona: "A busy parent.", goal: "Book a check-up.", maxTurns: 10 },
      criteria: { successCriteria: [], extractionFields: [] },
      toolExpectations: [],
      judgeModel: null,
    });
    const base = `/v1/agents/${agent.id}/tests`;
    const page = await json<{ data: Array<{ id: string }>; hasMore: boolean }>(await ws.api(base));
    expect(page.data.map((t) => t.id)).toEqual([created.id]);
    const patched = await ws.api(`${base}/${created.id}`, { method: "PATCH", json: { scenario: { kind: "script", turns: ["Hi"] } } });
    expect(patched.status).toBe(200);
    expect(await json(patched)).toMatchObject({ name: "Books a check-up", scenario: { kind: "script", turns: ["Hi"] } });

    await expectError(
      await ws.api(base, { method: "POST", json: { name: "x", scenario: { kind: "script", turns: [] } } }),
      400,
      "validation_failed",
    );
    await expectError(
      await ws.api(base, { method: "POST", json: { name: "x", scenario: { kind: "simulated", persona: "p", goal: "g", maxTurns: 21 } } }),
      400,
      "validation_failed",
    );
    await expectError(await ws.api(`/v1/agents/${crypto.randomUUID()}/tests`), 404, "not_found");
    await expectError(await ws.api(`${base}/${crypto.randomUUID()}`), 404, "not_found");

    expect((await ws.api(`${base}/${created.id}`, { method: "DELETE" })).status).toBe(204);
    await expectError(await ws.api(`${base}/${created.id}`), 404, "not_found");
  });
});

describe("a run", () => {
  it("plays a script against the agent, passes with the judge's reasons, and is metered to the workspace", async () => {
    const ws = await createWorkspace();
    const agent = await testAgent(ws, { firstMessage: "Hello, how can I help?" });
    const test = await createTest(ws, agent.id, scriptedTest("Where is my order 7?"));
    const { data, batchId } = await startRun(ws, agent.id, test.id);
    expect(batchId).toBeNull();
    expect(data).toHaveLength(1);
    expect(data[0]).toMatchObject({ testId: test.id, testName: "A test", status: "queued", mode: "chat", results: null });

    const run = await finalRun(ws, agent.id, (data[0] as TestRunView).id);
    expect(run.status, run.error ?? "").toBe("passed");
    expect(run.transcript.map((t) => [t.role, t.text])).toEqual([
      ["agent", "Hello, how can I help?"],
      ["user", "Where is my order 7?"],
      ["agent", "You said: Where is my order 7?"],
    ]);
    expect(run.results).toEqual({
      criteria: [
        { criterion: 'The agent says "Where is my order 7"', passed: true, reason: 'The transcript mentions "Where is my order 7".' },
      ],
      extractedData: {},
      toolExpectations: [],
    });
    expect(run.latency).toMatchObject({ turns: 1 });
    expect(run.error).toBeNull();
    // The agent's reply and the judge: two model calls, logged under the run, their cost its cost.
    const usage = await testDb().select().from(usageEvents).where(eq(usageEvents.chatId, run.id));
    expect(usage).toHaveLength(2);
    expect(run.costMicro).toBe(usage.reduce((a, u) => a + u.costMicro, 0));
    expect(run.costMicro).toBeGreaterThan(0);

    const listed = await json<{ data: TestRunView[] }>(await ws.api(`/v1/agents/${agent.id}/test-runs?testId=${test.id}`));
    expect(listed.data.map((r) => r.id)).toEqual([run.id]);
  });

  it("with a simulated caller: its goal said turn by turn until [END]; a criterion not met fails with the judge's reason", async () => {
    const ws = await createWorkspace();
    const agent = await testAgent(ws);
    const test = await createTest(ws, agent.id, {
      scenario: { kind: "simulated", persona: "A busy parent.", goal: "I need a check-up for my son. Tuesday morning suits us." },
      criteria: { successCriteria: ['The agent repeats "Tuesday morning"', 'The agent says the visit is "booked"'], extractionFields: [] },
    });
    const run = await runToEnd(ws, agent.id, test.id);
    expect(run.transcript.map((t) => [t.role, t.text])).toEqual([
      ["user", "I need a check-up for my son."],
      ["agent", "You said: I need a check-up for my son."],
      ["user", "Tuesday morning suits us."],
      ["agent", "You said: Tuesday morning suits us."],
    ]);
    expect(run.status).toBe("failed");
    expect(run.results?.criteria).toEqual([
      { criterion: 'The agent repeats "Tuesday morning"', passed: true, reason: 'The transcript mentions "Tuesday morning".' },
      { criterion: 'The agent says the visit is "booked"', passed: false, reason: 'The transcript never mentions "booked".' },
    ]);
    expect(run.error).toBe('Failed: "The agent says the visit is \\"booked\\"".');
  });

  it("whose judge answers something that is not JSON ends as an error that says so", async () => {
    const ws = await createWorkspace();
    const agent = await testAgent(ws);
    const test = await createTest(ws, agent.id, { ...scriptedTest(), judgeModel: "fault-prose" });
    const run = await runToEnd(ws, agent.id, test.id);
    expect(run.status).toBe("error");
    expect(run.error).toMatch(/^the judge's answer could not be read: it was not JSON/);
    expect(run.results).toBeNull();
    expect(run.transcript).toHaveLength(2);
  });

  it("fails at the turn cap when the simulated caller is not done", async () => {
    const ws = await createWorkspace();
    const agent = await testAgent(ws);
    const test = await createTest(ws, agent.id, {
      scenario: { kind: "simulated", persona: "Talkative.", goal: "One. Two. Three. Four. Five.", maxTurns: 2 },
      criteria: { successCriteria: ["Anything"], extractionFields: [] },
    });
    const run = await runToEnd(ws, agent.id, test.id);
    expect(run.status).toBe("failed");
    expect(run.error).toBe("The simulated caller was not done after 2 turns (the scenario's maxTurns).");
    expect(run.transcript.filter((t) => t.role === "user").map((t) => t.text)).toEqual(["One.", "Two."]);
    expect(run.results).toBeNull();
  });

  it("checks the tools the agent called, with their arguments, against a real tool server", async () => {
    const ws = await createWorkspace();
    const server = await startToolServer();
    servers.push(server);
    const agent = await testAgent(ws, agentWithTools(server.url));
    server.secret = agent.toolSecret;
    const turns = ["Can you lookup order 42 for me?"];
    const good = await createTest(ws, agent.id, {
      scenario: { kind: "script", turns },
      toolExpectations: [
        { tool: "lookup_order", arguments: { orderId: { contains: "order 42" } } },
        { tool: "end_call", called: false },
      ],
    });
    const bad = await createTest(ws, agent.id, {
      scenario: { kind: "script", turns },
      toolExpectations: [{ tool: "check_stock" }, { tool: "lookup_order", arguments: { orderId: "7" } }],
    });
    const passed = await runToEnd(ws, agent.id, good.id);
    expect(passed.status, passed.error ?? "").toBe("passed");
    expect(passed.toolsCalled).toEqual([
      { name: "lookup_order", arguments: { orderId: expect.stringContaining("order 42") }, outcome: "ok" },
    ]);
    expect(passed.transcript.map((t) => t.role)).toEqual(["user", "agent", "tool", "agent"]);
    expect(passed.results?.toolExpectations.every((e) => e.passed)).toBe(true);
    // The customer's server was called for real, signed, and told it is a test run.
    expect(server.requests[0]).toMatchObject({ verified: true, status: 200 });
    expect(server.requests[0]?.json).toMatchObject({ chat: { id: passed.id, channel: "test" } });

    const failed = await runToEnd(ws, agent.id, bad.id);
    expect(failed.status).toBe("failed");
    expect(failed.results?.toolExpectations).toEqual([
      { tool: "check_stock", passed: false, reason: "check_stock was never called." },
      {
        tool: "lookup_order",
        passed: false,
        reason: expect.stringMatching(/^lookup_order was called, but not with the expected arguments: orderId was ".*", expected "7"\.$/),
      },
    ]);
    expect(failed.error).toBe('Failed: "check_stock", "lookup_order".');

    // check_stock deleted from the agent: the same test now says the tool is gone, not that it was never called.
    const tools = agentWithTools(server.url).tools.filter((t) => (t as { name?: string }).name !== "check_stock");
    expect((await ws.api(`/v1/agents/${agent.id}`, { method: "PATCH", json: { tools } })).status).toBe(200);
    const gone = await runToEnd(ws, agent.id, bad.id);
    expect(gone.results?.toolExpectations[0]).toEqual({
      tool: "check_stock",
      passed: false,
      reason:
        "The agent has no tool named check_stock at this version (deleted or renamed): it could not be called. Update the test's tool expectations.",
    });
  });

  it("naming a version the agent does not have is a 404", async () => {
    const ws = await createWorkspace();
    const agent = await testAgent(ws);
    const test = await createTest(ws, agent.id, scriptedTest());
    await expectError(
      await ws.api(`/v1/agents/${agent.id}/tests/${test.id}/runs`, { method: "POST", json: { version: 3 } }),
      404,
      "not_found",
    );
  });
});

describe("all of an agent's tests", () => {
  it("run at once: ten tests share a batch and all pass", async () => {
    const ws = await createWorkspace();
    const agent = await testAgent(ws);
    for (let i = 0; i < 10; i++) await createTest(ws, agent.id, { name: `Test ${i}`, ...scriptedTest(`Question number ${i}?`) });
    const t0 = Date.now();
    const { batchId, data } = await startRun(ws, agent.id);
    expect(batchId).toEqual(expect.any(String));
    expect(data).toHaveLength(10);
    expect(new Set(data.map((r) => r.testId)).size).toBe(10);
    let runs: TestRunView[] = [];
    await expect
      .poll(async () => {
        runs = (await json<{ data: TestRunView[] }>(await ws.api(`/v1/agents/${agent.id}/test-runs?batchId=${batchId}&limit=100`))).data;
        return runs.filter((r) => FINAL.includes(r.status)).length;
      })
      .toBe(10);
    console.log(`ten chat-mode tests run in parallel finished in ${Date.now() - t0} ms`);
    expect(runs.map((r) => r.status)).toEqual(Array(10).fill("passed"));
  });

  it("is a 400 when the agent has none", async () => {
    const ws = await createWorkspace();
    const agent = await testAgent(ws);
    await expectError(await ws.api(`/v1/agents/${agent.id}/tests/runs`, { method: "POST" }), 400, "bad_request");
  });

  it("is refused with 429 when the workspace has as many runs queued or running as it may", async () => {
    const ws = await createWorkspace();
    const agent = await testAgent(ws);
    const test = await createTest(ws, agent.id, scriptedTest());
    // Runs whose worker is gone (they stay queued): the limit counts them.
    await testDb()
      .insert(agentTestRuns)
      .values(Array.from({ length: 50 }, () => ({ organizationId: ws.organizationId, testId: test.id, agentId: agent.id })));
    const res = await ws.api(`/v1/agents/${agent.id}/tests/${test.id}/runs`, { method: "POST" });
    const body = await expectError(res, 429, "test_runs_limit");
    expect(body.message).toMatch(/as many test runs queued or running as it may \(50/);
  });
});

describe("test_run.completed", () => {
  it("is delivered with the run as the API shows it, in the shape the document describes", async () => {
    const ws = await createWorkspace();
    const { receiver } = await subscribed(ws, { channels: ["chat"], events: ["test_run.completed"] });
    const agent = await testAgent(ws);
    const test = await createTest(ws, agent.id, scriptedTest());
    const run = await runToEnd(ws, agent.id, test.id);
    const [delivery] = await receiver.waitFor(1);
    const body = JSON.parse(delivery?.body ?? "{}");
    expect(body).toMatchObject({ event: "test_run.completed", channel: "test_run", metadata: null });
    expect(body.testRun).toEqual(run);
    // As the served document describes test_run.completed.
    expect((await servedContract()).checkWebhook("test_run.completed", body)).toEqual([]);
  });
});
