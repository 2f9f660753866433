// The agent's Tests page in Chromium (docs/dashboard.md, "Agent tests"): from the agent's page, a
// user opens Tests, creates a scripted test with the form, runs all against the live version and
// sees the cell turn from running to passed without a reload, then opens the run's page. The
// agent's tool server answers after 5 s, so the run is still running when the page is drawn and
// the page's script is what shows it passed. Under the pages' CSP with no violation and no console
// error; axe-core finds no critical or serious violation at 1280 and 390 px, nothing wider than a phone.
import type { Browser } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { testAgent } from "../../support/agent-tests";
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
import { baseUrl, createWorkspace, type Workspace } from "../../support/harness";
import { agentWithTools, startToolServer, type ToolServer } from "../../support/tools";

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

describe.runIf(hasBrowser)("the agent's Tests page in Chromium", () => {
  let ws: Workspace;
  let agentId = "";
  let runUrl = "";

  beforeAll(async () => {
    ws = await createWorkspace("Agent tests in Chromium");
    const agent = await testAgent(ws, agentWithTools(server.url));
    server.secret = agent.toolSecret;
    agentId = agent.id;
  });

  it("creates a test, runs all, sees the cell turn passed without a reload and opens the run", async () => {
    const page = await signInPage(browser, ws.admin.email, ws.admin.password);
    const errors = consoleErrors(page);
    await page.goto(`${baseUrl()}/dashboard/agents/${agentId}`);
    await page.getByRole("link", { name: "Tests", exact: true }).click();
    await page.waitForURL(/\/tests$/);
    expect(await page.getByText("No tests yet.").count()).toBe(1);

    await page.getByLabel("Test name").fill("Order lookup");
    await page.getByLabel("Script turns (one per line)").fill("Can you lookup order 42 for me?");
    await page.getByLabel("Success criteria (one per line)").fill('The agent says "order 42"');
    await page.getByRole("button", { name: "Create test" }).click();
    await page.waitForURL(/\?created=1$/);
    expect(await page.getByLabel("Version to run against").inputValue()).toBe("1");

    await page.getByRole("button", { name: "Run all" }).click();
    await page.waitForURL(/\?started=1$/);
    await page.evaluate("window.stillThisPage = true");
    const cell = page.locator("[data-agent-tests-page] table").last().locator("[data-cell]");
    // The tool answers after 5 s: drawn queued or running, then followed by the script.
    expect(["queued", "running"]).toContain(await cell.getAttribute("data-status"));
    await expect.poll(() => cell.getAttribute("data-status")).toBe("passed");
    expect(await cell.locator(".badge").textContent()).toBe("passed");
    expect(await page.evaluate("window.stillThisPage")).toBe(true);
    await screenshot(page, "agent-tests/passed-1280");

    await cell.getByRole("link").click();
    await page.waitForURL(/\/test-runs\/[0-9a-f-]{36}$/);
    runUrl = page.url();
    expect(await page.getByRole("heading", { name: "Order lookup", exact: true }).count()).toBe(1);
    expect(await page.getByText('The agent says "order 42"').count()).toBe(1);
    expect(await page.locator("td .badge.good").count()).toBeGreaterThan(0);
    expect(await page.getByText("lookup_order").count()).toBeGreaterThan(0);
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);

  it("axe-core finds no critical or serious violation on the screen, at 1280 and 390 px; nothing wider than a phone", async () => {
    expect(runUrl).not.toBe("");
    const found: string[] = [];
    for (const width of [1280, 390]) {
      const page = await signInPage(browser, ws.admin.email, ws.admin.password, width, { bypassCSP: true });
      const check = async (name: string) => {
        for (const v of await axeViolations(page)) found.push(`${name} @${width}: ${v.id} (${v.help}) ${v.targets.join(", ")}`);
        expect(await overflow(page), `${name} at ${width} px`).toBeLessThanOrEqual(0);
        await screenshot(page, `agent-tests/${name}-${width}`);
      };
      await page.goto(`${baseUrl()}/dashboard/agents/${agentId}/tests`);
      await check("tests");
      await page.goto(runUrl);
      await check("run");
      await page.close();
    }
    expect(found).toEqual([]);
  }, 120_000);
});
