// The Campaigns screen in Chromium (docs/dashboard.md, "Campaigns"): a user fills the new campaign
// form and uploads a CSV with two bad rows, sees each row's problem with its line (the form's
// values kept), chooses the fixed file and gets a draft; starts it, pauses and resumes it with the
// buttons; a pause and then a cancel from elsewhere (the API) reach the open page without a reload
// (status, buttons, counts, bar, rows); Cancel asks first (dismissed: nothing changes). The
// campaign's schedule keeps its window away from now, so no call is placed whether or not a runner
// dials: what is asserted is the page's. Under the pages' CSP with no violation and no console
// error; axe-core finds no critical or serious violation at 1280 and 390 px, nothing wider than a phone.
import type { Browser, Page } from "playwright-core";
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
import { campaignAgent, SHARED_NUMBER } from "../../support/campaigns";
import { baseUrl, createWorkspace, json, type Workspace } from "../../support/harness";

const HEADER = "phone_number,first_name,appointment";
const BAD = `${HEADER}\n+14155550101,Ada,Tuesday\n4155550102,Alan,Wednesday\n+14155550103,,Thursday\n`;
const FIXED = `${HEADER}\n+14155550101,Ada,Tuesday\n+14155550102,Alan,Wednesday\n+14155550103,Grace,Thursday\n`;

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

/** A window of half an hour, two hours from now (UTC): now is outside it for the whole test. */
function windowAwayFromNow(): { start: string; end: string } {
  const hour = String((new Date().getUTCHours() + 2) % 24).padStart(2, "0");
  return { start: `${hour}:00`, end: `${hour}:30` };
}

describe.runIf(hasBrowser)("the Campaigns screen in Chromium", () => {
  let ws: Workspace;
  let campaignUrl = "";

  beforeAll(async () => {
    ws = await createWorkspace("Campaigns in Chromium");
    await campaignAgent(ws, { name: "Reminder agent" });
  });

  /** The new campaign form filled, with `csv` as the file. */
  async function fill(page: Page, csv: string) {
    await page.getByLabel("Name", { exact: true }).fill("Spring reminders");
    await page.getByLabel("Agent", { exact: true }).selectOption({ label: "Reminder agent" });
    await page.getByLabel(`${SHARED_NUMBER} (shared)`).check();
    await page.getByLabel("Only call on these days, between these times").check();
    for (const day of ["Saturday", "Sunday"]) await page.getByLabel(day, { exact: true }).check();
    const { start, end } = windowAwayFromNow();
    await page.getByLabel("From", { exact: true }).fill(start);
    await page.getByLabel("Until", { exact: true }).fill(end);
    await page.getByLabel("Time zone", { exact: true }).fill("UTC");
    await page.getByLabel("CSV file").setInputFiles({ name: "spring.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
  }

  it("shows each bad row's problem, creates the fixed campaign, starts, pauses, resumes it, follows a pause and a cancel live", async () => {
    const page = await signInPage(browser, ws.admin.email, ws.admin.password);
    const errors = consoleErrors(page);
    await page.getByRole("link", { name: "Campaigns", exact: true }).click();
    await page.waitForURL(/\/dashboard\/campaigns$/);
    expect(await page.getByText("No campaigns yet.").count()).toBe(1);
    await page.getByRole("link", { name: "New campaign" }).click();
    await page.waitForURL(/\/dashboard\/campaigns\/new$/);

    // Two bad rows: each problem with its line; the values typed are kept; nothing is created.
    await fill(page, BAD);
    await page.getByRole("button", { name: "Create campaign" }).click();
    const issues = page.locator("[data-row-issues] tbody tr");
    await expect.poll(() => issues.count()).toBe(2);
    expect(await issues.nth(0).locator("td").allTextContents()).toEqual([
      "3",
      "phone_number",
      '"4155550102" has no country code: write it in E.164, + then country code and number (e.g. +14155550123)',
    ]);
    expect(await issues.nth(1).locator("td").allTextContents()).toEqual([
      "4",
      "first_name",
      "missing: the agent's templates use {{first_name}}",
    ]);
    expect(await page.getByText("2 problems in all, in 2 recipient rows; nothing was created.").count()).toBe(1);
    expect(await page.getByLabel("Name", { exact: true }).inputValue()).toBe("Spring reminders");
    expect(await page.getByLabel(`${SHARED_NUMBER} (shared)`).isChecked()).toBe(true);
    expect(await page.getByLabel("Sunday", { exact: true }).isChecked()).toBe(true);
    expect(await page.getByLabel("Or paste the rows").inputValue()).toBe(BAD);
    expect((await json<{ data: unknown[] }>(await ws.api("/v1/campaigns"))).data).toEqual([]);
    await screenshot(page, "campaigns/refused-1280");

    // The fixed file: a draft, on its page.
    await page.getByLabel("CSV file").setInputFiles({ name: "spring.csv", mimeType: "text/csv", buffer: Buffer.from(FIXED) });
    await page.getByRole("button", { name: "Create campaign" }).click();
    await page.waitForURL(/\/dashboard\/campaigns\/[0-9a-f-]{36}\?created=1$/);
    campaignUrl = page.url().replace(/\?.*$/, "");
    const id = campaignUrl.split("/").pop() as string;
    const status = page.locator('[data-live="status"]');
    const button = (name: string) => page.getByRole("button", { name, exact: true });
    expect(await status.textContent()).toBe("draft");
    expect(await page.locator('[data-live="progress"]').textContent()).toBe("0 of 3 done");
    const rows = page.locator("tbody[data-recipients-body] tr");
    expect(await rows.count()).toBe(3);
    expect(await rows.nth(2).locator("td").nth(1).textContent()).toBe("+14155550103");
    expect(await rows.nth(2).locator("td").nth(2).textContent()).toBe("first_name: Grace · appointment: Thursday");
    expect(await rows.nth(2).locator('[data-cell="state"]').textContent()).toBe("Pending");
    expect(await button("Pause").isVisible()).toBe(false);

    // Start, pause, resume: each a form post, the page drawn again with the buttons its status allows.
    await button("Start").click();
    await page.waitForURL(/\?started=1$/);
    expect(await status.textContent()).toBe("running");
    expect(await button("Start").isVisible()).toBe(false);
    expect(await button("Cancel campaign").isVisible()).toBe(true);
    await button("Pause").click();
    await page.waitForURL(/\?paused=1$/);
    expect(await status.textContent()).toBe("paused");
    expect(await button("Pause").isVisible()).toBe(false);
    await button("Resume").click();
    await page.waitForURL(/\?resumed=1$/);
    expect(await status.textContent()).toBe("running");

    // Paused elsewhere while the page is open: the page follows without a reload.
    await page.evaluate("window.stillThisPage = true");
    expect((await ws.api(`/v1/campaigns/${id}/pause`, { method: "POST" })).status).toBe(200);
    await expect.poll(() => status.textContent()).toBe("paused");
    await expect.poll(() => button("Resume").isVisible()).toBe(true);
    expect(await button("Pause").isVisible()).toBe(false);
    expect(await page.evaluate("window.stillThisPage")).toBe(true);

    // Cancel asks first: dismissed, nothing changes.
    await button("Resume").click();
    await page.waitForURL(/\?resumed=1$/);
    page.once("dialog", (d) => {
      expect(d.message()).toContain('Cancel "Spring reminders"?');
      d.dismiss().catch(() => undefined);
    });
    await button("Cancel campaign").click();
    expect(await status.textContent()).toBe("running");
    expect((await json<{ status: string }>(await ws.api(`/v1/campaigns/${id}`))).status).toBe("running");

    // Canceled elsewhere while it runs: the status, counts, bar, rows and buttons follow without a reload.
    await page.evaluate("window.stillThisPage = true");
    expect((await ws.api(`/v1/campaigns/${id}/cancel`, { method: "POST" })).status).toBe(200);
    await expect.poll(() => status.textContent()).toBe("canceled");
    await expect.poll(() => page.locator('[data-live="progress"]').textContent()).toBe("3 of 3 done");
    expect(await page.locator('[data-live="bar"]').evaluate((el) => (el as unknown as { value: number }).value)).toBe(3);
    expect(await page.locator('[data-count="canceled"]').textContent()).toBe("3");
    expect(await page.locator('[data-count="pending"]').textContent()).toBe("0");
    expect(await rows.locator('[data-cell="state"]').allTextContents()).toEqual(["Canceled", "Canceled", "Canceled"]);
    expect(await button("Delete").isVisible()).toBe(true);
    expect(await button("Cancel campaign").isVisible()).toBe(false);
    expect(await page.evaluate("window.stillThisPage")).toBe(true);
    await screenshot(page, "campaigns/canceled-1280");
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);

  it("axe-core finds no critical or serious violation on the screen, at 1280 and 390 px; nothing wider than a phone", async () => {
    expect(campaignUrl).not.toBe("");
    const found: string[] = [];
    for (const width of [1280, 390]) {
      const page = await signInPage(browser, ws.admin.email, ws.admin.password, width, { bypassCSP: true });
      const check = async (name: string) => {
        for (const v of await axeViolations(page)) found.push(`${name} @${width}: ${v.id} (${v.help}) ${v.targets.join(", ")}`);
        expect(await overflow(page), `${name} at ${width} px`).toBeLessThanOrEqual(0);
        await screenshot(page, `campaigns/${name}-${width}`);
      };
      await page.goto(`${baseUrl()}/dashboard/campaigns`);
      await check("list");
      await page.goto(`${baseUrl()}/dashboard/campaigns/new`);
      await check("new");
      await fill(page, BAD);
      await page.getByRole("button", { name: "Create campaign" }).click();
      await page.locator("[data-row-issues]").waitFor();
      await check("refused");
      await page.goto(campaignUrl);
      await check("campaign");
      await page.close();
    }
    expect(found).toEqual([]);
  }, 120_000);
});
