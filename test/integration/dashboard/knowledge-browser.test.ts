// The Knowledge screen in Chromium (docs/dashboard.md, "Knowledge"): a user creates a knowledge
// base, uploads a small Markdown file and sees the upload's progress bar reach 100% and the
// document become ready in the table (followed by the page's script, no reload), asks a test
// question and sees the passage that answers, then links the knowledge base to a new agent in the
// agent form and saves it. Under the pages' CSP with no violation and no console error; axe-core
// finds no critical or serious violation at 1280 and 390 px, with documents, an answer and a
// refused upload on the page, and nothing is wider than a 390 px screen.
import type { Browser } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
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

const PRICES = `# Prices

## Cleaning
A professional cleaning costs 80 dollars and takes forty minutes.

## Whitening
Teeth whitening costs 250 dollars and needs two visits.
`;

let browser: Browser;
beforeAll(async () => {
  if (hasBrowser) browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});
afterEach(() => {
  expect(takeCspViolations()).toEqual([]);
});

describe.runIf(hasBrowser)("the Knowledge screen in Chromium", () => {
  let ws: Workspace;
  let kbUrl = "";

  beforeAll(async () => {
    ws = await createWorkspace("Knowledge in Chromium");
  });

  it("creates a knowledge base, uploads a Markdown file (progress to 100%, then ready), finds its passage, links it to an agent", async () => {
    const page = await signInPage(browser, ws.admin.email, ws.admin.password);
    const errors = consoleErrors(page);
    await page.getByRole("link", { name: "Knowledge", exact: true }).click();
    await page.waitForURL(/\/dashboard\/knowledge$/);
    expect(await page.getByText("No knowledge bases yet.").count()).toBe(1);
    await page.getByLabel("Name").fill("Acme Dental");
    await page.getByLabel("Description (optional)").fill("Prices and policies");
    await page.getByRole("button", { name: "Create knowledge base" }).click();
    await page.waitForURL(/\/dashboard\/knowledge\/[0-9a-f-]{36}\?created=1$/);
    kbUrl = page.url().replace(/\?.*$/, "");

    // The upload: the script sends it by XMLHttpRequest and fills the bar from the browser's progress.
    const bar = page.locator("[data-upload-bar]");
    expect(await page.locator("[data-upload-progress]").isHidden()).toBe(true);
    await page
      .getByLabel("File", { exact: true })
      .setInputFiles({ name: "prices.md", mimeType: "text/markdown", buffer: Buffer.from(PRICES) });
    await page.getByRole("button", { name: "Upload" }).click();
    await expect.poll(() => bar.evaluate((el) => (el as unknown as { value: number }).value)).toBe(100);
    expect(await page.locator("[data-upload-percent]").textContent()).toBe("100%");
    expect(await page.locator("[data-upload-progress]").isVisible()).toBe(true);
    // The document's row appears and is followed until it is ready, without a reload.
    const row = page.locator("tbody[data-documents-body] tr", { hasText: "prices.md" });
    await expect.poll(() => row.getAttribute("data-status")).toBe("ready");
    expect(await row.locator('[data-cell="status"]').textContent()).toBe("ready");
    expect(await row.locator('[data-cell="passages"]').textContent()).toBe("2");
    expect(await row.locator('[data-cell="type"]').textContent()).toBe("Markdown");
    await expect.poll(() => page.locator("[data-upload-status]").textContent()).toBe("“prices.md” is ready: 2 passages.");
    expect(await page.locator('[data-count="documents"]').textContent()).toBe("1 document");
    expect(await page.locator('[data-count="passages"]').textContent()).toBe("2 passages");
    expect(page.url()).toMatch(/\?created=1$/); // the same page all along
    await screenshot(page, "knowledge/uploaded-1280");

    // The test question, answered in place.
    await page.getByLabel("Question", { exact: true }).fill("How much does a cleaning cost?");
    await page.getByLabel("Passages (1–20)").fill("2");
    await page.getByRole("button", { name: "Search" }).click();
    const first = page.locator("[data-query-results] li").first();
    await expect.poll(() => first.locator(".passage-meta").textContent()).toMatch(/^score 0\.\d\d prices\.md › Prices › Cleaning$/);
    expect(await first.locator(".passage").textContent()).toContain("A professional cleaning costs 80 dollars");
    expect(await page.locator("[data-query-results] li").count()).toBe(2);
    expect(await page.locator("[data-query-status]").textContent()).toMatch(/^2 passages found, nearest first/);
    await screenshot(page, "knowledge/answered-1280");

    // Linked to a new agent in the agent form, saved through the API's schema.
    await page.goto(`${baseUrl()}/dashboard/agents/new`);
    await page.getByLabel("Name", { exact: true }).fill("Front desk");
    await page.getByLabel("Acme Dental").check();
    await page.getByLabel("Passages per search (1–10)").fill("4");
    await page.getByLabel("When it searches").selectOption("tool");
    await page.getByRole("button", { name: "Create agent" }).click();
    await page.waitForURL(/\/dashboard\/agents\/[0-9a-f-]{36}\?saved=1$/);
    expect(await page.getByLabel("Acme Dental").isChecked()).toBe(true);
    const agentId = /agents\/([0-9a-f-]{36})/.exec(page.url())?.[1] ?? "";
    const agent = await json<{ knowledge: unknown }>(await ws.api(`/v1/agents/${agentId}`));
    expect(agent.knowledge).toEqual({ knowledgeBaseIds: [kbUrl.split("/").pop()], topK: 4, maxDistance: null, retrieval: "tool" });
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);

  it("axe-core finds no critical or serious violation on the screen, at 1280 and 390 px; nothing wider than a phone", async () => {
    expect(kbUrl).not.toBe("");
    const found: string[] = [];
    for (const width of [1280, 390]) {
      const page = await signInPage(browser, ws.admin.email, ws.admin.password, width, { bypassCSP: true });
      const check = async (name: string) => {
        for (const v of await axeViolations(page)) found.push(`${name} @${width}: ${v.id} (${v.help}) ${v.targets.join(", ")}`);
        expect(await overflow(page), `${name} at ${width} px`).toBeLessThanOrEqual(0);
        await screenshot(page, `knowledge/${name}-${width}`);
      };
      await page.goto(`${baseUrl()}/dashboard/knowledge`);
      await check("list");
      await page.goto(kbUrl);
      await page.getByLabel("Question", { exact: true }).fill("How much is whitening?");
      await page.getByRole("button", { name: "Search" }).click();
      await page.locator("[data-query-results] li").first().waitFor();
      await check("answered");
      // A refused upload: the server's words under the file field.
      await page
        .getByLabel("File", { exact: true })
        .setInputFiles({ name: "photo.png", mimeType: "image/png", buffer: Buffer.from([137, 80, 78, 71]) });
      await page.getByRole("button", { name: "Upload" }).click();
      const error = page.locator("#f-file-error");
      await expect.poll(() => error.textContent()).toContain('Cannot read "photo.png" (image/png)');
      expect(await error.isVisible()).toBe(true);
      expect(await page.getByLabel("File", { exact: true }).getAttribute("aria-invalid")).toBe("true");
      await check("refused-upload");
      await page.goto(`${baseUrl()}/dashboard/agents/new`);
      await page.getByRole("heading", { name: "Knowledge" }).waitFor();
      await check("agent-form");
      await page.close();
    }
    expect(found).toEqual([]);
  }, 120_000);
});
