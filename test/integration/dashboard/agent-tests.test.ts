// The agent's Tests page over HTTP (docs/dashboard.md, "Agent tests"): tests created through the
// page's form (a refused one drawn again with its problems), Run all against the live version and
// one test against a draft, the results side by side per version once the runs end (the sandbox
// echoes the caller and judges by the phrases a criterion quotes: docs/sandbox.md), a failing
// criterion's cell, the live JSON the page's script follows, a run's page, and another workspace's
// agent as a 404 everywhere.
import { describe, expect, it } from "vitest";
import { testAgent } from "../../support/agent-tests";
import { createWorkspace, json } from "../../support/harness";
import { pagesAs } from "../../support/pages";

const cell = (html: string, key: string) => new RegExp(`data-cell="${key}" data-status="(\\w*)"`).exec(html)?.[1];

describe("the agent's Tests page", () => {
  it("creates tests from the form, runs them per version, shows the results side by side and each run's page", async () => {
    const ws = await createWorkspace("Tests page");
    const page = await pagesAs(ws.admin.email, ws.admin.password);
    const agent = await testAgent(ws, { firstMessage: "Hello, how can I help?" });
    const base = `/dashboard/agents/${agent.id}`;
    expect((await page(base)).html).toContain(`href="${base}/tests"`);
    expect((await page(`${base}/tests`)).html).toContain("No tests yet.");

    // A refused form is drawn again with what was typed and the problem on its field.
    const refused = await page(`${base}/tests`, { name: "Empty script", kind: "script", turns: "", criteria: "" });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('id="f-turns" name="turns"');
    expect(refused.html).toMatch(/id="f-turns-error"/);
    expect(refused.html).toContain('value="Empty script"');

    const passing = await page(`${base}/tests`, {
      name: "Order status",
      kind: "script",
      turns: "Where is my order 7?",
      criteria: 'The agent says "order 7"',
    });
    expect([passing.status, passing.location]).toEqual([303, `${base}/tests?created=1`]);
    const failing = await page(`${base}/tests`, {
      name: "Refund",
      kind: "simulated",
      persona: "A customer in a hurry.",
      goal: "Ask for a refund.",
      maxTurns: "3",
      criteria: 'The agent says "refund approved"',
    });
    expect(failing.status).toBe(303);
    const tests = (
      await json<{ data: Array<{ id: string; name: string; scenario: { kind: string } }> }>(await ws.api(`/v1/agents/${agent.id}/tests`))
    ).data;
    const order = tests.find((t) => t.name === "Order status")?.id as string;
    const refund = tests.find((t) => t.name === "Refund")?.id as string;
    expect(tests.find((t) => t.id === refund)?.scenario.kind).toBe("simulated");

    const listed = (await page(`${base}/tests?created=1`)).html;
    expect(listed).toContain("Script, 1 turn");
    expect(listed).toContain("Simulated caller, up to 3 turns");
    expect(listed).toContain(`formaction="${base}/tests/${order}/run"`);
    expect(listed).toContain("No runs yet");

    // Run all against the live version (1): both cells end, side by side in its column.
    const started = await page(`${base}/tests/run`, { version: "1" });
    expect([started.status, started.location]).toEqual([303, `${base}/tests?started=1`]);
    await expect.poll(async () => cell((await page(`${base}/tests`)).html, `${order}:1`)).toBe("passed");
    await expect.poll(async () => cell((await page(`${base}/tests`)).html, `${refund}:1`)).toBe("failed");
    const live = JSON.parse((await page(`${base}/tests/live`)).html) as {
      active: boolean;
      cells: Array<{ testId: string; version: string; status: string; runId: string }>;
    };
    expect(live.active).toBe(false);
    expect(live.cells.map((c) => [c.testId, c.version, c.status]).sort()).toEqual(
      [
        [order, "1", "passed"],
        [refund, "1", "failed"],
      ].sort(),
    );

    // One test against a draft (version 2): a second column beside the first.
    const draft = await ws.api(`/v1/agents/${agent.id}?draft=true`, { method: "PATCH", json: { systemPrompt: "A draft." } });
    expect(draft.status).toBe(200);
    expect((await page(`${base}/tests/${order}/run`, { version: "2" })).status).toBe(303);
    await expect.poll(async () => cell((await page(`${base}/tests`)).html, `${order}:2`)).toBe("passed");
    const matrix = (await page(`${base}/tests`)).html;
    expect(matrix).toContain("Version 2</th>");
    expect(matrix).toContain("Version 1 (live)</th>");
    expect(cell(matrix, `${refund}:2`)).toBe(""); // never run at version 2: an empty cell
    expect(matrix).toContain(`<a href="${base}/test-runs/`);

    // The failing run's page: the criterion failed with the judge's reason, the transcript, the cost.
    const failedRun = live.cells.find((c) => c.testId === refund)?.runId as string;
    const run = (await page(`${base}/test-runs/${failedRun}`)).html;
    expect(run).toContain("Refund");
    expect(run).toContain('<span class="badge bad">failed</span>');
    expect(run).toContain("The agent says &quot;refund approved&quot;");
    expect(run).toContain("Ask for a refund.");
    expect(run).toContain("Version 1");
    expect(run).toContain("credits");
    const passedRun = live.cells.find((c) => c.testId === order)?.runId as string;
    expect((await page(`${base}/test-runs/${passedRun}`)).html).toContain('<span class="badge good">passed</span>');

    // Delete: the test and its row go.
    const deleted = await page(`${base}/tests/${refund}/delete`, {});
    expect([deleted.status, deleted.location]).toEqual([303, `${base}/tests?deleted=1`]);
    expect((await page(`${base}/tests`)).html).not.toContain(`data-cell="${refund}:1"`);
  });

  it("runs a test as a voice call when Play as says so, and refuses a mode that is neither", async () => {
    const ws = await createWorkspace("Tests page voice");
    const page = await pagesAs(ws.admin.email, ws.admin.password);
    const agent = await testAgent(ws, { firstMessage: "Hello, how can I help?" });
    const base = `/dashboard/agents/${agent.id}`;
    expect((await page(`${base}/tests`)).html).toContain('<option value="voice">');
    const created = await page(`${base}/tests`, {
      name: "Spoken order",
      kind: "script",
      turns: "Where is my order number seven?",
      criteria: 'The agent says "order number seven"',
    });
    expect(created.status).toBe(303);
    const testId = (await json<{ data: Array<{ id: string }> }>(await ws.api(`/v1/agents/${agent.id}/tests`))).data[0]?.id as string;

    const refused = await page(`${base}/tests/${testId}/run`, { version: "", mode: "video" });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain("must be chat or voice");
    const none = await json<{ data: unknown[] }>(await ws.api(`/v1/agents/${agent.id}/test-runs`));
    expect(none.data).toHaveLength(0);

    expect((await page(`${base}/tests/${testId}/run`, { version: "", mode: "voice" })).status).toBe(303);
    const runs = async () =>
      (
        await json<{ data: Array<{ id: string; mode: string; status: string; callId: string | null }> }>(
          await ws.api(`/v1/agents/${agent.id}/test-runs`),
        )
      ).data;
    await expect.poll(async () => (await runs())[0]?.status, { timeout: 90_000 }).toMatch(/^(passed|failed|error)$/);
    const [run] = await runs();
    expect([run?.mode, run?.status]).toEqual(["voice", "passed"]);
    expect(run?.callId).toMatch(/^[0-9a-f-]{36}$/);
    expect((await page(`${base}/test-runs/${run?.id}`)).html).toContain(`/dashboard/calls/${run?.callId}`);
  }, 120_000);

  it("is a 404 for another workspace's agent, its tests and its runs", async () => {
    const owner = await createWorkspace("Tests owner");
    const agent = await testAgent(owner);
    const mine = await pagesAs(owner.admin.email, owner.admin.password);
    const base = `/dashboard/agents/${agent.id}`;
    expect((await mine(`${base}/tests`, { name: "Mine", kind: "script", turns: "Hello", criteria: "" })).status).toBe(303);
    const testId = (await json<{ data: Array<{ id: string }> }>(await owner.api(`/v1/agents/${agent.id}/tests`))).data[0]?.id as string;
    const runs = await owner.api(`/v1/agents/${agent.id}/tests/${testId}/runs`, { method: "POST" });
    const runId = (await json<{ data: Array<{ id: string }> }>(runs)).data[0]?.id as string;

    const other = await createWorkspace("Tests stranger");
    const theirs = await pagesAs(other.admin.email, other.admin.password);
    expect((await theirs(`${base}/tests`)).status).toBe(404);
    expect((await theirs(`${base}/tests/live`)).status).toBe(404);
    expect((await theirs(`${base}/test-runs/${runId}`)).status).toBe(404);
    expect((await theirs(`${base}/tests`, { name: "Theirs", kind: "script", turns: "Hi", criteria: "" })).status).toBe(404);
    expect((await theirs(`${base}/tests/run`, { version: "" })).status).toBe(404);
    expect((await theirs(`${base}/tests/${testId}/delete`, {})).status).toBe(404);
    expect((await json<{ data: unknown[] }>(await owner.api(`/v1/agents/${agent.id}/tests`))).data).toHaveLength(1);
  });
});
