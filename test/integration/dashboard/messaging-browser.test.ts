// The Channels and Chats screens in a real browser (Debian's Chromium via playwright-core):
// connect a Telegram bot through the form (a refused token first, shown on its field), Test it,
// talk to it through the sandbox, and find the conversation under Chats; every page with no
// console error and no CSP violation; axe-core finds no critical or serious violation on any of
// them at 1280 and 390 px (screenshots in test-results/screenshots/messaging/). Skipped where
// Chromium is missing.
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
import { createAgent, newBot, telegram } from "../../support/messaging";

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

/** Console errors and uncaught exceptions of a page, as they happen. */
function consoleErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("console", (msg) => {
    if (msg.type() === "error") errors.push(`${page.url()}: ${msg.text()}`);
  });
  page.on("pageerror", (err) => errors.push(`${page.url()}: ${err.message}`));
  return errors;
}

describe.runIf(hasBrowser)("dashboard: channels and chats", () => {
  let ws: Workspace;
  let member: { email: string; password: string };
  /** [name, path] of every page the first test walked through, for axe. */
  const visited: Array<[string, string]> = [];

  beforeAll(async () => {
    ws = await createWorkspace("Messaging screens");
    member = await addMemberTo(ws, "member");
    await createAgent(ws, { name: "Front desk" });
  });

  it("connects a bot, tests it, and shows its conversation under Chats, with no console error", async () => {
    const page = await signInPage(browser, ws.admin.email, ws.admin.password);
    const errors = consoleErrors(page);
    await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Channels" }).click();
    expect(await page.getByText("No channels yet.").count()).toBe(1);
    visited.push(["channels", "/dashboard/channels"]);
    await page.getByRole("link", { name: "Connect a channel" }).click();
    await page.getByRole("link", { name: "WhatsApp Business number" }).click();
    expect(await page.getByLabel("App secret").getAttribute("type")).toBe("password");
    visited.push(["connect-whatsapp", "/dashboard/channels/new?type=whatsapp"]);
    await page.getByRole("link", { name: "Telegram bot" }).click();
    visited.push(["connect-telegram", "/dashboard/channels/new?type=telegram"]);

    await page.getByLabel("Name", { exact: true }).fill("Support bot");
    await page.getByLabel("Bot token").fill("123456789:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
    await page.getByRole("button", { name: "Connect" }).click();
    await page.locator("#f-botToken-error").waitFor();
    expect(await page.locator("#f-botToken-error").textContent()).toContain("Telegram refused the credentials");
    expect(await page.getByLabel("Name", { exact: true }).inputValue()).toBe("Support bot");
    expect(await page.getByLabel("Bot token").inputValue()).toBe("");
    await screenshot(page, "messaging/connect-refused");
    // The refused form is answered 400, which Chromium logs; nothing else may be.
    expect(errors.splice(0)).toEqual([
      `${baseUrl()}/dashboard/channels: Failed to load resource: the server responded with a status of 400 (Bad Request)`,
    ]);

    const bot = await newBot();
    await page.getByLabel("Bot token").fill(bot.token);
    await page.getByRole("button", { name: "Connect" }).click();
    await page.waitForURL(/\/dashboard\/channels\/[0-9a-f-]{36}\?notice=connected$/);
    const channelPath = new URL(page.url()).pathname;
    visited.push(["channel", channelPath], ["channel-remove", `${channelPath}/remove`]);
    const id = channelPath.split("/").pop();
    expect(await page.locator("#webhook-url").textContent()).toBe(`${baseUrl()}/channels/telegram/${id}`);
    await page.getByRole("button", { name: "Test" }).click();
    await page.getByText("Test passed").waitFor();
    await screenshot(page, "messaging/channel-tested");

    const chatId = 3_000_000 + Math.floor(Math.random() * 1_000_000);
    await telegram.send(bot, chatId, { text: "Do you deliver on Sundays?", from: { first_name: "Grace" } });
    await telegram.next(bot, chatId);
    await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Chats" }).click();
    const grace = async () => {
      await page.reload();
      return page.getByText("Grace").count();
    };
    await expect.poll(grace, { timeout: 15_000 }).toBe(1);
    visited.push(["chats", "/dashboard/chats"]);
    await page.locator("tbody a").first().click();
    const first = page.locator(".turns li").first();
    await first.waitFor();
    expect(await first.textContent()).toMatch(/^User.* Do you deliver on Sundays\?/);
    visited.push(["chat", new URL(page.url()).pathname]);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it("axe-core finds no critical or serious violation on the channels and chats pages, at 1280 and 390 px", async () => {
    expect(visited.length).toBe(7);
    const found: Array<AxeFinding & { page: string }> = [];
    const check = async (page: Page, name: string, width: number) => {
      for (const v of await axeViolations(page)) found.push({ ...v, page: `${name} @${width}` });
      await screenshot(page, `messaging/${name}-${width}`);
    };
    for (const width of [1280, 390]) {
      const page = await signInPage(browser, ws.admin.email, ws.admin.password, width, { bypassCSP: true });
      for (const [name, path] of visited) {
        const res = await page.goto(`${baseUrl()}${path}`);
        expect(res?.status(), path).toBe(200);
        // Nothing wider than the window (the chats list, a chat's page, the channels' pages).
        expect(await overflow(page), `${name} at ${width} px`).toBeLessThanOrEqual(0);
        await check(page, name, width);
      }
      await page.goto(`${baseUrl()}/dashboard/channels/new`);
      await page.getByRole("button", { name: "Connect" }).click();
      await page.locator("#f-botToken-error").waitFor();
      await check(page, "connect-errors", width);
      await page.close();

      const asMember = await signInPage(browser, member.email, member.password, width, { bypassCSP: true });
      for (const [name, path] of visited.filter(([n]) => n === "channel" || n === "chats")) {
        await asMember.goto(`${baseUrl()}${path}`);
        await check(asMember, `member-${name}`, width);
      }
      await asMember.close();
    }
    expect(found).toEqual([]);
  }, 180_000);
});
