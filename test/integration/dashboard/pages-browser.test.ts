// Every dashboard page in Chromium (Debian's, via playwright-core): each GET page of
// test/support/routes.ts, plus the error, admin-required and sign-in pages, loads under its
// Content-Security-Policy with no violation, and axe-core (from node_modules) finds no critical
// or serious violation at 1280 and 390 px. Then what a first-time user meets: the navigation
// on a phone, plain-language validation messages, time zones on timestamps, the usage empty
// state. Screenshots of every page at both widths go to test-results/screenshots/pages/.
import { randomUUID } from "node:crypto";
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  type AxeFinding,
  axeViolations,
  hasBrowser,
  launchBrowser,
  overflow,
  screenshot,
  signInPage,
  takeCspViolations,
} from "../../support/browser";
import { addMemberTo, baseUrl, createWorkspace, type Workspace } from "../../support/harness";
import { type Params, ROUTES } from "../../support/routes";

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

const fill = (path: string, params: Params) => path.replace(/:(\w+)/g, (_, name: string) => params[name] ?? randomUUID());
const slug = (path: string) => path.replace(/^\/dashboard\/?/, "").replace(/[^A-Za-z0-9]+/g, "-") || "index";

/** The HTML pages a signed-in admin can open: every GET page route (not a recording's or a voice sample's audio, a call's live JSON or the calls' CSV). */
const GET_PAGES = ROUTES.filter(
  (r) =>
    r.method === "GET" &&
    r.path.startsWith("/dashboard") &&
    !r.path.startsWith("/dashboard/api/") &&
    !r.path.endsWith("/recording") &&
    !r.path.endsWith("/sample") &&
    !r.path.endsWith("/live") &&
    !r.path.endsWith(".csv"),
);

describe.runIf(hasBrowser)("dashboard: every page", () => {
  let ws: Workspace;
  let member: { email: string; password: string };
  /** [name, path, expected status] of every page to visit. */
  let visits: Array<[string, string, number]>;

  beforeAll(async () => {
    ws = await createWorkspace("Every page");
    member = await addMemberTo(ws, "member");
    // Some usage, so the usage page shows its charts and request log.
    const chat = await ws.api("/v1/llm/chat", {
      method: "POST",
      json: { model: "sandbox-chat", messages: [{ role: "user", content: "hi" }] },
    });
    expect(chat.status).toBe(200);
    visits = [];
    for (const route of GET_PAGES) {
      const params = route.resource ? await route.resource(ws) : {};
      visits.push([slug(route.path), fill(route.path, params), 200]);
    }
    visits.push(["not-found", `/dashboard/agents/${randomUUID()}`, 404]);
  }, 120_000);

  it("loads every page under its CSP with no violation; scripts work; a script without the nonce is refused", async () => {
    const page = await signInPage(browser, ws.admin.email, ws.admin.password, 1280, {
      permissions: ["clipboard-read", "clipboard-write"],
    });
    for (const [, path, status] of visits) {
      const res = await page.goto(`${baseUrl()}${path}`);
      expect(res?.status(), path).toBe(status);
    }
    expect(takeCspViolations()).toEqual([]);

    // The page's own scripts run under the policy: the copy button and the confirmation.
    await page.goto(`${baseUrl()}/dashboard/api-keys`);
    await page.getByLabel("Key Name").fill("CSP key");
    await page.getByRole("button", { name: "Create key" }).click();
    await page.getByRole("button", { name: "Copy" }).click();
    await expect.poll(() => page.getByRole("button", { name: "Copied" }).count()).toBe(1);
    expect(await page.evaluate("navigator.clipboard.readText()")).toBe((await page.locator("#new-key").textContent())?.trim());
    let confirmed = "";
    page.once("dialog", (d) => {
      confirmed = d.message();
      d.accept().catch(() => undefined); // the dialog is gone if the page is (the assertions below say so)
    });
    await page.getByRole("button", { name: "Revoke CSP key" }).click();
    await expect.poll(() => page.getByText('Key "CSP key" revoked.').count()).toBe(1);
    expect(confirmed).toContain('Revoke "CSP key"?');

    // What an injected script (no nonce) would do is refused, and Chromium says so.
    await page.evaluate(`{
      const s = document.createElement("script");
      s.textContent = "window.injected = true";
      document.body.append(s);
      const t = document.createElement("style");
      t.textContent = "body { display: none }";
      document.head.append(t);
    }`);
    expect(await page.evaluate("window.injected === undefined")).toBe(true);
    expect(await page.locator("body").isVisible()).toBe(true);
    const refused = takeCspViolations();
    expect(refused.some((v) => v.includes("script-src"))).toBe(true);
    expect(refused.some((v) => v.includes("style-src"))).toBe(true);
    await page.close();
  }, 120_000);

  it("draws the busiest day at full height on both usage charts, however small its cost", async () => {
    const page = await signInPage(browser, ws.admin.email, ws.admin.password);
    await page.goto(`${baseUrl()}/dashboard/usage`);
    const charts = page.locator("svg[role=img]");
    expect(await charts.count()).toBe(2);
    for (const chart of await charts.all()) {
      const heights = await chart.locator("rect").evaluateAll((rects) => rects.map((r) => Number(r.getAttribute("height"))));
      expect(Math.max(...heights)).toBe(182); // the plot's height: 220 less its margins
    }
    await page.close();
  });

  it("axe-core finds no critical or serious violation on any page, at 1280 and 390 px; no page is wider than the window", async () => {
    const found: Array<AxeFinding & { page: string }> = [];
    const wide: string[] = [];
    const check = async (page: Page, name: string, width: number) => {
      for (const v of await axeViolations(page)) found.push({ ...v, page: `${name} @${width}` });
      const over = await overflow(page);
      if (over > 0) wide.push(`${name} @${width}: ${over} px`);
      await screenshot(page, `pages/${name}-${width}`);
    };
    for (const width of [1280, 390]) {
      const page = await signInPage(browser, ws.admin.email, ws.admin.password, width, { bypassCSP: true });
      for (const [name, path] of visits) {
        await page.goto(`${baseUrl()}${path}`);
        await check(page, name, width);
      }
      // A form with errors, and a secret shown once.
      await page.goto(`${baseUrl()}/dashboard/agents/new`);
      await page.getByLabel("Temperature (0–2)").fill("5");
      await page.getByRole("button", { name: "Create agent" }).click();
      await page.locator("#f-temperature-error").waitFor();
      await check(page, "agent-form-errors", width);
      await page.goto(`${baseUrl()}/dashboard/api-keys`);
      await page.getByLabel("Key Name").fill(`Key at ${width}`);
      await page.getByRole("button", { name: "Create key" }).click();
      await page.locator("#new-key").waitFor();
      await check(page, "api-keys-created", width);
      await page.close();

      const signedOut = await browser.newPage({ viewport: { width, height: 860 }, bypassCSP: true });
      await signedOut.goto(`${baseUrl()}/dashboard/sign-in`);
      await signedOut.getByRole("button", { name: "Sign in" }).click();
      await signedOut.locator(".field-error").first().waitFor();
      await check(signedOut, "sign-in-errors", width);
      await signedOut.close();

      const asMember = await signInPage(browser, member.email, member.password, width, { bypassCSP: true });
      await asMember.goto(`${baseUrl()}/dashboard/webhooks`);
      await check(asMember, "admin-required", width);
      await asMember.close();
    }
    expect(found).toEqual([]);
    expect(wide).toEqual([]);
  }, 300_000);
});

describe.runIf(hasBrowser)("dashboard: a first-time user", () => {
  let ws: Workspace;
  beforeAll(async () => {
    ws = await createWorkspace("First time");
  });

  it("reaches every navigation link on a 390 px screen, nothing cut off", async () => {
    const page = await signInPage(browser, ws.admin.email, ws.admin.password, 390);
    const nav = page.getByRole("navigation", { name: "Dashboard" });
    const links = nav.getByRole("link");
    expect(await links.allTextContents()).toEqual([
      "Overview",
      "Agents",
      "Voices",
      "Knowledge",
      "Phone Numbers",
      "Calls",
      "Campaigns",
      "Widgets",
      "Channels",
      "Chats",
      "Usage",
      "API Keys",
      "Webhooks",
      "Members",
    ]);
    for (const link of await links.all()) {
      expect(await link.isVisible()).toBe(true);
      const box = await link.boundingBox();
      expect(box, (await link.textContent()) ?? "").not.toBeNull();
      expect(box?.x ?? -1).toBeGreaterThanOrEqual(0);
      expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual(390);
    }
    // Nothing hides behind a scroll: the bar is as wide as its content, and so is the page.
    expect(await nav.evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(0);
    expect(await page.evaluate("document.documentElement.scrollWidth - window.innerWidth")).toBeLessThanOrEqual(0);
    await screenshot(page, "nav-390");
    await page.getByRole("link", { name: "Webhooks" }).click();
    await page.waitForURL(/\/dashboard\/webhooks$/);
    await page.close();
  });

  it("says what is wrong with a field in plain language", async () => {
    const page = await signInPage(browser, ws.admin.email, ws.admin.password);
    await page.goto(`${baseUrl()}/dashboard/agents/new`);
    await page.getByLabel("Name", { exact: true }).fill("Plain words");
    await page.getByLabel("Temperature (0–2)").fill("5");
    await page.getByLabel("Max duration (seconds)").fill("2.5");
    await page.getByRole("button", { name: "Create agent" }).click();
    await page.locator("#f-temperature-error").waitFor();
    expect(await page.locator("#f-temperature-error").textContent()).toBe("must be at most 2");
    expect(await page.locator("#f-maxDurationSeconds-error").textContent()).toBe("must be a whole number");
    const summary = (await page.getByRole("alert").first().textContent()) ?? "";
    expect(summary).toContain("Temperature: must be at most 2");
    expect(summary).not.toMatch(/Too (big|small)|expected|received|<=|>=/);
    await page.close();
  });

  it("shows every timestamp with its time zone", async () => {
    const page = await signInPage(browser, ws.admin.email, ws.admin.password);
    await page.goto(`${baseUrl()}/dashboard/api-keys`);
    const created = page.locator("tbody tr").first().locator("td").nth(2);
    expect(await created.textContent()).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/);
    const datetime = (await created.locator("time").getAttribute("datetime")) ?? "";
    expect(new Date(datetime).toISOString()).toBe(datetime); // machine-readable, in UTC
    await page.close();
  });

  it("explains an empty usage page and where to start", async () => {
    const page = await signInPage(browser, ws.admin.email, ws.admin.password);
    await page.goto(`${baseUrl()}/dashboard/usage`);
    expect(await page.getByRole("heading", { name: "No usage yet" }).count()).toBe(1);
    expect(await page.locator("svg[role=img]").count()).toBe(0); // no empty charts
    expect(await page.locator("table").count()).toBe(0); // nor an empty request log
    expect(await page.getByRole("link", { name: "Create an API key" }).getAttribute("href")).toBe("/dashboard/api-keys");
    await screenshot(page, "usage-empty");
    await page.close();
  });

  it("shows every empty list with its first step", async () => {
    const page = await signInPage(browser, ws.admin.email, ws.admin.password, 390);
    const empty: Array<[string, string, string]> = [
      ["/dashboard/agents", "No agents yet.", "Create the first one"],
      ["/dashboard/calls", "No calls yet.", "Create an agent"],
      ["/dashboard/widgets", "No widgets yet.", "Put an agent on a website"],
      ["/dashboard/webhooks", "No webhook endpoints yet.", "Create the first one"],
      ["/dashboard/knowledge", "No knowledge bases yet.", "Create the first one"],
    ];
    for (const [path, says, link] of empty) {
      await page.goto(`${baseUrl()}${path}`);
      expect(await page.getByText(says).count(), path).toBe(1);
      expect(await page.getByRole("link", { name: link }).isVisible(), path).toBe(true);
      await screenshot(page, `first-time/${path.split("/").pop()}-390`);
    }
    // Without an agent there is nothing to call: the test-call form waits for one.
    await page.goto(`${baseUrl()}/dashboard/calls`);
    expect(await page.getByRole("button", { name: "Place test call" }).isVisible()).toBe(false);
    await page.close();
  });
});
