// Browser tests: Debian's Chromium driven by playwright-core (nothing is downloaded). Where
// Chromium is missing (a laptop without it) `hasBrowser` is false and the suites that use it
// are skipped with a one-line notice; CI installs it (.ci/run).
import { existsSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";
import { type Browser, type BrowserContextOptions, chromium, type Page } from "playwright-core";
import { vi } from "vitest";
import { baseUrl } from "./harness";

// What a page shows next comes after a round trip to the worker and Chromium's own work: on a busy
// machine that is more than expect.poll's default second, so a file that drives a browser polls
// for up to 15 s (the deadline only bounds the wait: a quick page passes as soon as it shows).
vi.setConfig({ expect: { poll: { timeout: 15_000, interval: 50 } } });

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const hasBrowser = existsSync(CHROMIUM);

if (!hasBrowser) console.warn(`notice: browser tests skipped (no Chromium at ${CHROMIUM}; apt-get install chromium, or set CHROMIUM_PATH)`);

/** `args`: more of Chromium's switches (`--autoplay-policy=no-user-gesture-required` for a suite that plays audio). */
export function launchBrowser(args: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", ...args],
  });
}

/** Where screenshots go (gitignored): test-results/screenshots/<name>.png */
export const SCREENSHOTS = resolve(import.meta.dirname, "../../test-results/screenshots");

export async function screenshot(page: Page, name: string): Promise<string> {
  const path = resolve(SCREENSHOTS, `${name}.png`);
  mkdirSync(dirname(path), { recursive: true });
  await page.screenshot({ path, fullPage: true });
  return path;
}

/**
 * Content-Security-Policy violations Chromium reported on watched pages ("Refused to execute
 * inline script because it violates ..."), with the page's URL. Every page from `signInPage`
 * is watched; suites assert `takeCspViolations()` is empty after each test.
 */
const cspViolations: string[] = [];

export function watchCsp(page: Page): Page {
  page.on("console", (msg) => {
    if (/Content Security Policy/i.test(msg.text())) cspViolations.push(`${page.url()}: ${msg.text()}`);
  });
  return page;
}

/** The violations seen since the last call (and forgets them). */
export const takeCspViolations = (): string[] => cspViolations.splice(0);

/**
 * A new page signed in to the dashboard (it lands on the Overview), watched for CSP
 * violations. `bypassCSP` is for axe only: its script is injected without the page's nonce.
 */
export async function signInPage(
  browser: Browser,
  email: string,
  password: string,
  width = 1280,
  options: BrowserContextOptions = {},
): Promise<Page> {
  const context = await browser.newContext({ viewport: { width, height: 860 }, ...options });
  const page = watchCsp(await context.newPage());
  // The page closes with the browser too (a suite's afterAll), when its context can no longer be
  // closed: that refusal is expected, and left unhandled it would fail the whole run.
  page.on("close", () => context.close().catch(() => undefined));
  await page.goto(`${baseUrl()}/dashboard`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(/\/dashboard$/);
  return page;
}

const AXE = createRequire(import.meta.url).resolve("axe-core/axe.min.js");

export interface AxeFinding {
  id: string;
  impact: string;
  help: string;
  targets: string[];
}

/**
 * axe-core (from node_modules, nothing downloaded) over the page as it is now: the critical and
 * serious violations, one line per rule with the elements it found. The page's context needs
 * `bypassCSP: true`, as the injected script carries no nonce.
 */
export async function axeViolations(page: Page): Promise<AxeFinding[]> {
  if (!(await page.evaluate("typeof window.axe !== 'undefined'"))) await page.addScriptTag({ path: AXE });
  const results = await page.evaluate<Array<{ id: string; impact: string; help: string; nodes: Array<{ target: string[] }> }>>(
    "window.axe.run(document, { resultTypes: ['violations'] }).then(r => r.violations)",
  );
  return results
    .filter((v) => v.impact === "critical" || v.impact === "serious")
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(" ")) }));
}

/** The page's console errors and uncaught exceptions from now on (a failed request the page expects, such as a refused upload, aside). */
export function consoleErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error" && !m.text().startsWith("Failed to load resource")) errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(e.message));
  return errors;
}

/** How far the page is wider than the window (0: nothing scrolls sideways). */
export const overflow = (page: Page) => page.evaluate<number>("document.documentElement.scrollWidth - window.innerWidth");
