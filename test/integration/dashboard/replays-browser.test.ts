// Editing a test and replaying a chat in Chromium (docs/dashboard.md, "Agent tests", "Agent
// versions"): a user opens a test from the Tests page and sets its tool expectation (a tool of the
// agent's draft, picked from a list) and an extraction field; then, from a finished widget chat's
// page, replays it against the draft. The draft's tool answers after 5 s, so the replay is still
// playing when its page is drawn: the page's script follows it and draws the turns side by side
// once it ends, the differing ones highlighted. Then the two versions compared. Under the pages'
// CSP with no violation and no console error; axe-core finds no critical or serious violation on
// these screens at 1280 and 390 px, and nothing is wider than a phone.
import type { Browser } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createTest, testAgent } from "../../support/agent-tests";
import {
  axeViolations,
  consoleErrors,
  hasBrowser,
  launchBrowser,
  overflow,
  screenshot,
  signInPage,
  takeCspViolations,
} from "../../support/browser";
import { baseUrl, createWorkspace, json, type Workspace } from "../../support/harness";
import { agentWithTools, startToolServer, type ToolServer } from "../../support/tools";
import { chat, createWidget, visitor, widgetRequest } from "../../support/widgets";

const LINES = ["Hi there", "What are your opening hours?", "Can you lookup order 42 for me?"];

let browser: Browser;
let server: ToolServer;
beforeAll(async () => {
  if (hasBrowser) browser = await launchBrowser();
  server = await startToolServer({ delayMs: 5_000 });
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});
afterEach(() => {
  expect(takeCspViolations()).toEqual([]);
});

describe.runIf(hasBrowser)("editing a test and replaying a chat in Chromium", () => {
  let ws: Workspace;
  let agentId = "";
  let testId = "";
  let chatId = "";
  let replayUrl = "";

  beforeAll(async () => {
    ws = await createWorkspace("Replays in Chromium");
    // Version 1 (live): no tools, so the chat is recorded at once; the sandbox echoes the caller.
    const agent = await testAgent(ws, { systemPrompt: "You answer a shop's customers." });
    agentId = agent.id;
    server.secret = agent.toolSecret; // every agent has its signing secret from the start
    testId = (await createTest(ws, agentId, { name: "Order lookup", scenario: { kind: "script", turns: ["Where is order 42?"] } })).id;
    const { token } = await createWidget(ws, { agentId });
    const visitorId = visitor();
    let sessionId: string | null = null;
    for (const message of LINES) sessionId = (await chat(token, { visitorId, sessionId, message })).sessionId;
    chatId = sessionId as string;
    // The visitor closes the widget: the chat is over.
    const ended = await widgetRequest(`/widget/v1/sessions/${chatId}/end`, { token, json: { visitorId } });
    expect(ended.status).toBe(204);
    // Version 2 (a draft): a rule that changes one reply, and the order tool (slow: 5 s).
    const draft = await ws.api(`/v1/agents/${agentId}?draft=true`, {
      method: "PATCH",
      json: {
        systemPrompt: 'You answer a shop\'s customers. When the user says "opening hours", reply "We open at noon."',
        tools: agentWithTools(server.url).tools,
      },
    });
    expect(draft.status, await draft.clone().text()).toBe(200);
  });

  it("edits a test's expectations and extraction fields, replays the chat against the draft and sees the turns side by side", async () => {
    const page = await signInPage(browser, ws.admin.email, ws.admin.password);
    const errors = consoleErrors(page);

    // The test's own page, from the Tests page.
    await page.goto(`${baseUrl()}/dashboard/agents/${agentId}/tests`);
    await page.getByRole("link", { name: "Order lookup", exact: true }).click();
    await page.waitForURL(new RegExp(`/tests/${testId}$`));
    await page.getByLabel("Test name").fill("Order 42 lookup");
    // The draft's tools are offered (what one tests before publishing), the phone-line ones are not.
    const tools = await page.getByLabel("Tool 1", { exact: true }).locator("option").allTextContents();
    expect(tools).toContain("lookup_order");
    expect(tools).not.toContain("transfer_call");
    await page.getByLabel("Tool 1", { exact: true }).selectOption("lookup_order");
    await page.getByLabel("Tool 1 arguments (JSON object, optional)").fill('{"orderId": "42"}');
    await page.getByLabel("Tool 2", { exact: true }).selectOption("end_call");
    await page.getByLabel("Tool 2 is").selectOption("no");
    // A mistake first: told on its field, what was typed kept.
    await page.getByLabel("Extraction fields (JSON array, optional)").fill('[{"name": "order id", "type": "string", "description": "x"}]');
    await page.getByRole("button", { name: "Save test" }).click();
    await page.locator("#f-extractionFields-error").waitFor();
    expect(await page.locator("#f-extractionFields-error").textContent()).toMatch(/^0\.name: must be an identifier/);
    expect(await page.getByLabel("Test name").inputValue()).toBe("Order 42 lookup");
    expect(await page.getByLabel("Tool 1", { exact: true }).inputValue()).toBe("lookup_order");
    await page
      .getByLabel("Extraction fields (JSON array, optional)")
      .fill('[{"name": "order_id", "type": "string", "description": "The order"}]');
    await page.getByRole("button", { name: "Save test" }).click();
    await page.waitForURL(/\?saved=1$/);
    expect(await page.getByText("Test saved.").count()).toBe(1);
    const saved = await json<{ name: string; toolExpectations: unknown[]; criteria: { extractionFields: unknown[] } }>(
      await ws.api(`/v1/agents/${agentId}/tests/${testId}`),
    );
    expect(saved).toMatchObject({
      name: "Order 42 lookup",
      toolExpectations: [
        { tool: "lookup_order", called: true, arguments: { orderId: "42" } },
        { tool: "end_call", called: false },
      ],
      criteria: { extractionFields: [{ name: "order_id", type: "string", description: "The order" }] },
    });

    // The finished chat's page: replay it against the draft.
    await page.goto(`${baseUrl()}/dashboard/chats/${chatId}`);
    expect(await page.getByText("This chat is in progress").count()).toBe(0);
    await page.getByLabel("Version", { exact: true }).selectOption("2");
    await page.getByRole("button", { name: "Replay against this version" }).click();
    await page.waitForURL(/\/test-runs\/[0-9a-f-]{36}$/);
    replayUrl = page.url();
    // The tool answers after 5 s: drawn while it plays, then drawn again by the page's script once it ends.
    expect(["queued", "running"]).toContain(await page.locator("[data-run-status]").getAttribute("data-run-status"));
    expect(await page.locator("[data-replay-summary]").textContent()).toContain("the turns appear here once it has played");
    await expect.poll(() => page.locator("tr.differs").count(), { timeout: 30_000 }).toBeGreaterThan(0);
    // The rule changes the second reply; the tool the draft calls, the third.
    expect(await page.locator("[data-replay-summary] strong").textContent()).toBe("2 of 3 turns differ");
    const rows = page.locator(".replay tbody tr");
    expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.classList.contains("differs")))).toEqual([false, true, true]);
    expect(await page.getByText("lookup_order", { exact: true }).count()).toBeGreaterThan(0); // among the tools called
    const second = rows.nth(1);
    expect(await second.locator("td").nth(1).textContent()).toBe("What are your opening hours?");
    expect(await second.locator("td").nth(2).textContent()).toBe("You said: What are your opening hours?");
    expect(await second.locator("td").nth(3).textContent()).toBe("We open at noon.");
    expect(await second.getByText("differs").count()).toBe(1);
    // Highlighted, not only marked: its cells are drawn on another background than an equal turn's.
    const background = (i: number) =>
      page.evaluate(`getComputedStyle(document.querySelectorAll(".replay tbody tr")[${i}].cells[2]).backgroundColor`) as Promise<string>;
    expect(await background(1)).not.toBe(await background(0));
    await screenshot(page, "replays/turns-1280");

    // Two versions compared, from the agent's versions.
    await page.goto(`${baseUrl()}/dashboard/agents/${agentId}`);
    await page.getByRole("link", { name: "Compare the newest draft with the live version" }).click();
    await page.waitForURL(/\/versions\/diff\?from=1&to=2$/);
    expect(await page.locator("[data-diff-summary]").textContent()).toContain("2 fields changed: systemPrompt, tools.");
    expect(await page.locator("ins").filter({ hasText: "We open at noon." }).count()).toBeGreaterThan(0);
    expect(await page.getByRole("button", { name: "Publish" }).count()).toBe(1);
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);

  it("axe-core finds no critical or serious violation on these screens, at 1280 and 390 px; nothing wider than a phone", async () => {
    expect(replayUrl).not.toBe("");
    const found: string[] = [];
    for (const width of [1280, 390]) {
      const page = await signInPage(browser, ws.admin.email, ws.admin.password, width, { bypassCSP: true });
      const check = async (name: string, path: string) => {
        await page.goto(path.startsWith("http") ? path : `${baseUrl()}${path}`);
        for (const v of await axeViolations(page)) found.push(`${name} @${width}: ${v.id} (${v.help}) ${v.targets.join(", ")}`);
        expect(await overflow(page), `${name} at ${width} px`).toBeLessThanOrEqual(0);
        await screenshot(page, `replays/${name}-${width}`);
      };
      await check("test-edit", `/dashboard/agents/${agentId}/tests/${testId}`);
      await check("tests-with-replays", `/dashboard/agents/${agentId}/tests`);
      await check("chat-with-replay-form", `/dashboard/chats/${chatId}`);
      await check("replay", replayUrl);
      await check("versions-diff", `/dashboard/agents/${agentId}/versions/diff?from=1&to=2`);
      await page.close();
    }
    expect(found).toEqual([]);
  }, 120_000);
});
