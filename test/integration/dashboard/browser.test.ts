// The dashboard in a real browser (Debian's Chromium via playwright-core): sign-in, API keys,
// members, agents, voices, calls, usage. Skipped with a notice where Chromium is missing.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hasBrowser, launchBrowser, screenshot } from "../../browser";
import { addMemberTo, baseUrl, createWorkspace, request, type Workspace } from "../../harness";

let browser: Browser;

beforeAll(async () => {
  if (hasBrowser) browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

export async function signInPage(email: string, password: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  await page.goto(`${baseUrl()}/dashboard`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(/\/dashboard\/agents/);
  return page;
}

describe.runIf(hasBrowser)("dashboard: API keys", () => {
  let ws: Workspace;
  beforeAll(async () => {
    ws = await createWorkspace("Browser workspace");
  });

  it("signs in, creates a key that works on /v1/me, revokes it and sees it refused", async () => {
    const page = await signInPage(ws.admin.email, ws.admin.password);
    await page.getByRole("link", { name: "API Keys" }).click();
    await page.getByLabel("Key Name").fill("Browser key");
    await page.getByRole("button", { name: "Create key" }).click();
    const secret = (await page.locator("#new-key").textContent())?.trim() ?? "";
    expect(secret).toMatch(/^sk-live-/);
    await expect.poll(() => page.getByText("this is the only time the full key is shown").count()).toBe(1);
    await screenshot(page, "api-keys-created");

    const me = await request("/v1/me", { headers: { authorization: `Bearer ${secret}` } });
    expect(me.status).toBe(200);

    await page.reload(); // the secret is gone for good after the creating response
    expect(await page.locator("#new-key").count()).toBe(0);
    await page.goto(`${baseUrl()}/dashboard/api-keys`);
    page.once("dialog", (d) => d.accept());
    await page.getByRole("button", { name: "Revoke Browser key" }).click();
    await expect.poll(() => page.getByText('Key "Browser key" revoked.').count()).toBe(1);
    expect((await request("/v1/me", { headers: { authorization: `Bearer ${secret}` } })).status).toBe(401);
    await page.close();
  });

  it("keeps what was typed and shows the error inline when the name is invalid", async () => {
    const page = await signInPage(ws.admin.email, ws.admin.password);
    await page.goto(`${baseUrl()}/dashboard/api-keys`);
    await page.getByLabel("Key Name").fill("   ");
    await page.getByRole("button", { name: "Create key" }).click();
    await expect.poll(() => page.locator(".field-error").count()).toBeGreaterThan(0);
    expect(await page.getByLabel("Key Name").getAttribute("aria-invalid")).toBe("true");
    await page.close();
  });

  it("refuses a member the API Keys and Webhooks screens", async () => {
    const member = await addMemberTo(ws, "member");
    const page = await signInPage(member.email, member.password);
    for (const path of ["/dashboard/api-keys", "/dashboard/webhooks"]) {
      const res = await page.goto(`${baseUrl()}${path}`);
      expect(res?.status()).toBe(403);
      expect(await page.getByRole("heading", { name: "Admin access required" }).count()).toBe(1);
    }
    await screenshot(page, "member-admin-required");
    await page.close();
  });
});
