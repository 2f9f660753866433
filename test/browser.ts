// Browser tests: Debian's Chromium driven by playwright-core (nothing is downloaded). Where
// Chromium is missing (a laptop without it) `hasBrowser` is false and the suites that use it
// are skipped with a one-line notice; CI installs it (.ci/run).
import { existsSync, mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { baseUrl } from "./harness";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const hasBrowser = existsSync(CHROMIUM);

if (!hasBrowser) console.warn(`notice: browser tests skipped (no Chromium at ${CHROMIUM}; apt-get install chromium, or set CHROMIUM_PATH)`);

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
}

/** Where screenshots go (gitignored): test-results/screenshots/<name>.png */
export const SCREENSHOTS = resolve(import.meta.dirname, "../test-results/screenshots");

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = resolve(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** A new page signed in to the dashboard (it lands on the agents list). */
export async function signInPage(browser: Browser, email: string, password: string, width = 1280): Promise<Page> {
  const page = await browser.newPage({ viewport: { width, height: 860 } });
  await page.goto(`${baseUrl()}/dashboard`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(/\/dashboard\/agents/);
  return page;
}
