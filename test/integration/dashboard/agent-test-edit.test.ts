// A test's own page over HTTP (docs/dashboard.md, "Agent tests"): every field drawn from the saved
// test, the expectation's tool picked from the tools a run offers the agent, a refused save drawn
// again with what was typed and each problem on its field (the API's schema's words), a full save
// through updateTest, Delete; CSRF, and another workspace's test or agent as the 404 page.
import { describe, expect, it } from "vitest";
import { createTest, testAgent } from "../../support/agent-tests";
import { createWorkspace, json, request, signIn } from "../../support/harness";
import { pagesAs } from "../../support/pages";

const TOOLS = {
  tools: [
    { type: "function", name: "lookup_order", description: "Looks up an order.", url: "https://tools.example.com/order" },
    { type: "end_call" },
    { type: "transfer_call", destinations: [{ number: "+14155550100" }] },
  ],
};

/** The options of the select named `name`, as [value, selected]. */
function options(html: string, name: string): Array<[string, boolean]> {
  const select = new RegExp(`<select[^>]*name="${name.replace(/\./g, "\\.")}"[^>]*>([\\s\\S]*?)</select>`).exec(html)?.[1] ?? "";
  return [...select.matchAll(/<option value="([^"]*)"( selected="")?/g)].map((m) => [m[1] as string, Boolean(m[2])]);
}

const expectation = (i: number, tool: string, called: "yes" | "no", args: string) => ({
  [`expectTool.${i}`]: tool,
  [`expectCalled.${i}`]: called,
  [`expectArguments.${i}`]: args,
});

interface TestOut {
  name: string;
  scenario: Record<string, unknown>;
  criteria: { successCriteria: string[]; extractionFields: unknown[] };
  toolExpectations: unknown[];
  judgeModel: string | null;
}

describe("a test's own page", () => {
  it("shows every field, refuses a bad save field by field, saves every field and deletes", async () => {
    const ws = await createWorkspace("Edit a test");
    const page = await pagesAs(ws.admin.email, ws.admin.password);
    const agent = await testAgent(ws, TOOLS);
    const test = await createTest(ws, agent.id, {
      name: "Order status",
      scenario: { kind: "script", turns: ["Hi", "Where is my order 7?"] },
      criteria: { successCriteria: ['The agent says "order 7"'], extractionFields: [] },
      toolExpectations: [{ tool: "lookup_order", arguments: { orderId: "7" } }],
    });
    const base = `/dashboard/agents/${agent.id}/tests`;
    const read = async () => json<TestOut>(await ws.api(`/v1/agents/${agent.id}/tests/${test.id}`));

    // The Tests page links each test to its page.
    expect((await page(base)).html).toContain(`<a href="${base}/${test.id}">Order status</a>`);
    const shown = await page(`${base}/${test.id}`);
    expect(shown.status).toBe(200);
    expect(shown.html).toContain('value="Order status"');
    expect(shown.html).toMatch(/<textarea id="f-turns" name="turns"[^>]*>Hi\nWhere is my order 7\?<\/textarea>/);
    expect(shown.html).toContain(`action="${base}/${test.id}"`);
    expect(shown.html).toContain(`action="${base}/${test.id}/delete"`);
    // The expectation's tool, chosen among the tools a test run offers (no phone-line tools), and a blank row.
    expect(options(shown.html, "expectTool.0")).toEqual([
      ["", false],
      ["lookup_order", true],
      ["end_call", false],
    ]);
    expect(shown.html).toMatch(/name="expectArguments\.0"[^>]*>\{\n {2}&quot;orderId&quot;: &quot;7&quot;\n\}<\/textarea>/);
    expect(options(shown.html, "expectTool.1")).toEqual([
      ["", true],
      ["lookup_order", false],
      ["end_call", false],
    ]);

    // Refused: each problem on its field, what was typed kept, nothing saved.
    const refused = await page(`${base}/${test.id}`, {
      name: "Refund",
      kind: "simulated",
      persona: "",
      goal: "Ask for a refund.",
      maxTurns: "30",
      criteria: "",
      extractionFields: '[{"name":"amount","type":"enum","description":"How much"}]',
      judgeModel: "",
      ...expectation(0, "lookup_order", "yes", "{not json"),
      ...expectation(1, "", "yes", ""),
    });
    expect(refused.status).toBe(400);
    for (const field of ["persona", "maxTurns", "extractionFields", "expectArguments-0"])
      expect(refused.html, field).toMatch(new RegExp(`id="f-${field}-error"`));
    expect(refused.html).toMatch(/id="f-expectArguments-0-error">must be valid JSON</);
    expect(refused.html).toMatch(/id="f-extractionFields-error">0\.choices: is required when type is enum</);
    expect(refused.html).toContain('value="Refund"');
    expect(refused.html).toContain('value="Ask for a refund."');
    expect(refused.html).toMatch(/id="f-kind-simulated" name="kind" value="simulated" checked=""/);
    expect((await read()).name).toBe("Order status");

    // Saved: every field replaced, a blank row left out.
    const saved = await page(`${base}/${test.id}`, {
      name: "Refund",
      kind: "simulated",
      persona: "A customer in a hurry.",
      goal: "Ask for a refund.",
      firstMessage: "Hi, I want my money back",
      maxTurns: "3",
      criteria: 'The agent says "refund"\nIt is polite',
      extractionFields: '[{"name":"amount","type":"number","description":"How much"}]',
      judgeModel: "sandbox-chat",
      ...expectation(0, "", "yes", ""),
      ...expectation(1, "end_call", "no", ""),
      ...expectation(2, "lookup_order", "yes", '{"orderId": {"contains": "7"}}'),
    });
    expect([saved.status, saved.location]).toEqual([303, `${base}/${test.id}?saved=1`]);
    expect(await read()).toMatchObject({
      name: "Refund",
      scenario: {
        kind: "simulated",
        persona: "A customer in a hurry.",
        goal: "Ask for a refund.",
        firstMessage: "Hi, I want my money back",
        maxTurns: 3,
      },
      criteria: {
        successCriteria: ['The agent says "refund"', "It is polite"],
        extractionFields: [{ name: "amount", type: "number", description: "How much" }],
      },
      toolExpectations: [
        { tool: "end_call", called: false },
        { tool: "lookup_order", called: true, arguments: { orderId: { contains: "7" } } },
      ],
      judgeModel: "sandbox-chat",
    });
    const again = (await page(`${base}/${test.id}?saved=1`)).html;
    expect(again).toContain("Test saved.");
    expect(again).toContain('value="sandbox-chat"');
    expect(options(again, "expectCalled.0")).toEqual([
      ["yes", false],
      ["no", true],
    ]);

    // A tool the agent no longer has stays named on its row, said to be gone.
    const patched = await ws.api(`/v1/agents/${agent.id}`, { method: "PATCH", json: { tools: [{ type: "end_call" }] } });
    expect(patched.status).toBe(200);
    expect((await page(`${base}/${test.id}`)).html).toContain("lookup_order (not a tool of the agent now)");

    const deleted = await page(`${base}/${test.id}/delete`, {});
    expect([deleted.status, deleted.location]).toEqual([303, `${base}?deleted=1`]);
    expect((await page(`${base}/${test.id}`)).status).toBe(404);
  });

  it("needs the CSRF token, and is the 404 page for another workspace's test or agent", async () => {
    const owner = await createWorkspace("Test owner");
    const agent = await testAgent(owner);
    const test = await createTest(owner, agent.id, { scenario: { kind: "script", turns: ["Hello"] } });
    const path = `/dashboard/agents/${agent.id}/tests/${test.id}`;
    const fields = { name: "Taken over", kind: "script", turns: "Hi", criteria: "" };

    const { cookie } = await signIn(owner.admin.email, owner.admin.password);
    const forged = await request(path, {
      method: "POST",
      headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ ...fields, _csrf: "forged" }),
    });
    expect(forged.status).toBe(403);

    const other = await createWorkspace("Test stranger");
    const theirs = await pagesAs(other.admin.email, other.admin.password);
    expect((await theirs(path)).status).toBe(404);
    expect((await theirs(path, fields)).status).toBe(404);
    // Their own agent with the owner's test id: still no such test.
    const own = await testAgent(other);
    expect((await theirs(`/dashboard/agents/${own.id}/tests/${test.id}`)).status).toBe(404);
    expect((await theirs(`/dashboard/agents/${own.id}/tests/${test.id}`, fields)).status).toBe(404);
    expect((await json<{ name: string }>(await owner.api(`/v1/agents/${agent.id}/tests/${test.id}`))).name).toBe("A test");
  });
});
