// The Webhooks screens in a real browser (Debian's Chromium via playwright-core): create an
// endpoint, its secret shown once, Send Test verified with Stripe's verifier, rotation, the
// delivery log with its attempts, resend, the built-in test receiver, the payload builder's live
// preview, and inline errors that keep what was typed. Skipped where Chromium is missing.
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { LEAF_PATHS, type Payload, shapePayload } from "../../../src/webhooks/payload";
import { hasBrowser, launchBrowser, overflow, screenshot, signInPage as signInAs, takeCspViolations } from "../../support/browser";
import { baseUrl, createWorkspace, type Workspace } from "../../support/harness";
import { type Receiver, startReceiver } from "../../support/receiver";
import { stripeAccepts } from "../../support/stripe";

let browser: Browser;

const signInPage = (email: string, password: string, width = 1280) => signInAs(browser, email, password, width);

const text = async (page: Page, selector: string) => ((await page.locator(selector).textContent()) ?? "").trim();
const header = (value: string | string[] | undefined) => (Array.isArray(value) ? (value[0] ?? "") : (value ?? ""));
/** Horizontal overflow of the page in CSS pixels (0 when it fits the viewport). */
describe.runIf(hasBrowser)("dashboard: webhooks", () => {
  let ws: Workspace;
  let receiver: Receiver;

  beforeAll(async () => {
    browser = await launchBrowser();
    ws = await createWorkspace("Webhooks browser workspace");
    // The first delivery fails (500), so the log shows a failed attempt and a resend that succeeds.
    receiver = await startReceiver((n) =>
      n === 1 ? { status: 500, body: "receiver is down" } : { status: 200, body: '{"received":true}' },
    );
  });
  afterAll(async () => {
    await receiver?.stop();
    await browser?.close();
  });
  // The payload builder, confirmations and copy buttons run under the pages' CSP: nothing refused.
  afterEach(() => {
    expect(takeCspViolations()).toEqual([]);
  });

  it("creates an endpoint, shows its secret once, signs Send Test with it, rotates, logs every attempt and resends", async () => {
    const page = await signInPage(ws.admin.email, ws.admin.password);
    await page.getByRole("link", { name: "Webhooks" }).click();
    await page.getByRole("link", { name: "New endpoint" }).click();
    await page.getByLabel("Name", { exact: true }).fill("Browser hook");
    await page.getByLabel("Production URL").fill(receiver.url);
    await page.getByLabel("Description (optional)").fill("Receives voice events");
    const [created] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === "POST" && r.url().endsWith("/dashboard/webhooks")),
      page.getByRole("button", { name: "Create endpoint" }).click(),
    ]);
    expect(created.status()).toBe(201);
    expect(created.headers()["cache-control"]).toBe("no-store"); // the page with the secret is never cached

    const secret = await text(page, "#endpoint-secret");
    expect(secret).toMatch(/^whs_[0-9A-Za-z]{40}$/);
    expect(await text(page, "#masked-secret")).toBe(`whs_...${secret.slice(-6)}`);
    const endpointUrl = `${baseUrl()}${await page.locator("#endpoint-form").getAttribute("action")}`;

    // Send Test: a failed attempt (the receiver answers 500), signed with the secret shown once.
    await page.getByRole("button", { name: "Send Test" }).click();
    const [first] = await receiver.waitFor(1);
    if (!first) throw new Error("no delivery");
    expect(stripeAccepts(first.body, header(first.headers["x-service-signature"]), secret)).toBe(true);
    expect(header(first.headers["x-service-event"])).toBe("call.completed");
    await expect.poll(() => page.getByText(/Send Test: call\.completed delivery .* failed \(HTTP 500\)/).count()).toBe(1);
    expect(await page.locator("#endpoint-secret").count()).toBe(0); // shown once, never again

    // Rotate: the next delivery is signed with the new secret, and not with the old one.
    page.once("dialog", (d) => d.accept());
    await page.getByRole("button", { name: "Rotate secret" }).click();
    await expect.poll(() => page.locator("#endpoint-secret").count()).toBe(1);
    const rotated = await text(page, "#endpoint-secret");
    expect(rotated).toMatch(/^whs_/);
    expect(rotated).not.toBe(secret);
    await page.getByRole("button", { name: "Send Test" }).click();
    const second = (await receiver.waitFor(2))[1];
    if (!second) throw new Error("no second delivery");
    const sig2 = header(second.headers["x-service-signature"]);
    expect(stripeAccepts(second.body, sig2, rotated)).toBe(true);
    expect(stripeAccepts(second.body, sig2, secret)).toBe(false);
    await expect.poll(() => page.getByText(/Send Test: call\.completed delivery .* succeeded \(HTTP 200\)/).count()).toBe(1);

    // The delivery log: both deliveries, newest first, with their attempts, statuses and response excerpts.
    const deliveries = page.locator("#deliveries article.delivery");
    expect(await deliveries.count()).toBe(2);
    const [newest, oldest] = [deliveries.nth(0), deliveries.nth(1)];
    const failedId = header(first.headers["x-service-delivery-id"]);
    expect(await oldest.getAttribute("id")).toBe(`delivery-${failedId}`);
    expect(await oldest.locator(".badge").first().textContent()).toBe("failed");
    expect(await oldest.textContent()).toContain("HTTP 500");
    expect(await oldest.locator("pre.excerpt").textContent()).toBe("receiver is down");
    expect(await newest.locator(".badge").first().textContent()).toBe("succeeded");
    expect(await newest.locator("pre.excerpt").textContent()).toBe('{"received":true}');

    // Resend the failed delivery: a second attempt under the same delivery id, signed with the current secret.
    await page.getByRole("button", { name: `Resend delivery ${failedId}` }).click();
    const third = (await receiver.waitFor(3))[2];
    if (!third) throw new Error("no resend");
    expect(header(third.headers["x-service-delivery-id"])).toBe(failedId);
    expect(stripeAccepts(third.body, header(third.headers["x-service-signature"]), rotated)).toBe(true);
    await expect.poll(() => page.getByText(/Resend: call\.completed delivery .* succeeded \(HTTP 200\)/).count()).toBe(1);
    const resent = page.locator(`#delivery-${failedId}`);
    expect(await resent.locator(".badge").first().textContent()).toBe("succeeded");
    expect(await resent.locator(".attempts > li").count()).toBe(2);
    const attempts = await resent.locator(".attempts > li").allTextContents();
    expect(attempts[0]).toMatch(/Attempt 1.*HTTP 500.*test/);
    expect(attempts[1]).toMatch(/Attempt 2.*HTTP 200.*resend/);
    // Its body as signed: the very bytes of both attempts, which the current secret's signature covers.
    await resent.getByText("Payload (exactly as signed)").click();
    const shown = (await page.locator(`#body-${failedId}`).textContent()) ?? "";
    expect(shown).toBe(first.body);
    expect(third.body).toBe(first.body);
    expect(stripeAccepts(shown, header(third.headers["x-service-signature"]), rotated)).toBe(true);
    await page.locator("#deliveries").scrollIntoViewIfNeeded();
    await screenshot(page, "webhooks-deliveries");

    // Turn it off from the list; Resend then explains why it cannot (409), and nothing is sent.
    await page.goto(`${baseUrl()}/dashboard/webhooks`);
    await page.getByRole("button", { name: "Turn off Browser hook" }).click();
    await expect.poll(() => page.getByText("Endpoint turned off.").count()).toBe(1);
    expect(await page.locator("tbody tr").first().textContent()).toContain("inactive");
    await screenshot(page, "webhooks-list");
    await page.goto(endpointUrl);
    await page.getByRole("button", { name: `Resend delivery ${failedId}` }).click();
    await expect.poll(() => page.getByText("The endpoint is inactive: turn it on before resending.").count()).toBe(1);
    expect(receiver.received.length).toBe(3);
    await page.close();
  });

  it("captures Send Test in the built-in test receiver", async () => {
    const page = await signInPage(ws.admin.email, ws.admin.password);
    await page.goto(`${baseUrl()}/dashboard/webhooks/new`);
    await page.getByLabel("Name", { exact: true }).fill("Captured hook");
    await page.getByLabel(/Use built-in test receiver/).check();
    await page.getByRole("button", { name: "Create endpoint" }).click();
    await expect.poll(() => page.locator("#endpoint-secret").count()).toBe(1);
    const secret = await text(page, "#endpoint-secret");
    expect(await page.locator("#test-receiver").textContent()).toContain("Nothing captured yet.");

    await page.getByRole("button", { name: "Send Test" }).click();
    await expect.poll(() => page.locator("#test-receiver .capture").count()).toBe(1);
    const capture = page.locator("#test-receiver .capture").first();
    const deliveryId = (await page.locator("#deliveries article.delivery").first().getAttribute("id"))?.replace("delivery-", "");
    expect(await capture.textContent()).toContain("call.completed");
    expect(await capture.textContent()).toContain(deliveryId);
    const body = (await capture.locator("pre").textContent()) ?? "";
    expect(JSON.parse(body)).toMatchObject({ event: "call.completed", deliveryId, call: { status: "completed" } });
    // The capture keeps the signature header; it verifies against the secret shown at creation
    // (the page pretty-prints the body; the delivery's bytes are its compact JSON).
    await capture.getByText("Headers").click();
    const signature = ((await capture.locator("dd").nth(2).textContent()) ?? "").trim();
    expect(signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(stripeAccepts(JSON.stringify(JSON.parse(body)), signature, secret)).toBe(true);

    // Send Test of another event, chosen in its picker.
    await page.getByLabel("Event to send as a test").selectOption("telegram.started");
    await page.getByRole("button", { name: "Send Test" }).click();
    await expect.poll(() => page.locator("#test-receiver .capture").count()).toBe(2);
    const chat = JSON.parse((await page.locator("#test-receiver .capture").first().locator("pre").textContent()) ?? "");
    expect(chat).toMatchObject({ event: "telegram.started", channel: "telegram", chat: { status: "in-progress" }, transcript: null });
    expect(await page.getByLabel("Event to send as a test").inputValue()).toBe("telegram.started");
    await page.close();
  });

  it("builds a custom payload: the live preview shows only the chosen leaf paths, as the server shapes them", async () => {
    const page = await signInPage(ws.admin.email, ws.admin.password);
    await page.goto(`${baseUrl()}/dashboard/webhooks/new`);
    const sample = JSON.parse((await page.locator("#payload-sample").textContent()) ?? "") as Payload;
    const preview = async () => JSON.parse(await text(page, "#payload-preview")) as Record<string, unknown>;
    expect(await preview()).toEqual(sample); // "Send all fields" by default
    expect(await page.locator("#f-customFields").isHidden()).toBe(true);

    // Channels drive the events; select all / deselect all act on the chosen channels' events.
    const events = page.locator('input[name="events"]:visible');
    expect(await events.count()).toBe(6); // call.* and campaign.*
    await page.getByRole("button", { name: "Deselect all" }).click();
    expect(await page.locator('input[name="events"]:checked').count()).toBe(0);
    await page.getByLabel("Chat (messaging)").check();
    // The messaging events this platform sends (WhatsApp, Telegram): not the spec's SMS, Messenger or chat.*.
    expect(await events.count()).toBe(11); // and test_run.completed, an agent test's
    expect(await page.getByLabel("sms.started").count()).toBe(0);
    await page.getByRole("button", { name: "Select all", exact: true }).click();
    expect(await page.locator('input[name="events"]:checked').count()).toBe(11);
    await page.getByLabel("Chat (messaging)").uncheck();
    expect(await events.count()).toBe(6);

    await page.getByLabel(/Custom fields/).check();
    expect(await page.locator("#f-customFields").isVisible()).toBe(true);
    const picked = ["call.id", "call.status", "transcript.fullText", "metadata"];
    for (const path of picked) await page.getByLabel(path, { exact: true }).check();
    const shaped = await preview();
    expect(Object.keys(shaped)).toEqual(["deliveryId", "event", "timestamp", "call", "transcript", "metadata"]);
    expect(shaped.call).toEqual({ id: (sample.call as { id: string }).id, status: "completed" });
    expect(shaped.transcript).toEqual({ fullText: (sample.transcript as { fullText: string }).fullText });
    expect(shaped).toEqual(shapePayload(sample, picked)); // the browser's picking is the server's
    // Every leaf path, picked one at a time, previews exactly as shapePayload shapes it.
    for (const path of picked) await page.getByLabel(path, { exact: true }).uncheck();
    for (const path of LEAF_PATHS) {
      const box = page.getByLabel(path, { exact: true });
      await box.check();
      expect(await preview(), path).toEqual(JSON.parse(JSON.stringify(shapePayload(sample, [path]))));
      await box.uncheck();
    }
    for (const path of picked) await page.getByLabel(path, { exact: true }).check();

    // Saved, the endpoint ships only those paths, and the server renders the same preview.
    await page.getByLabel("Name", { exact: true }).fill("Custom hook");
    await page.getByLabel(/Use built-in test receiver/).check();
    await page.getByRole("button", { name: "Create endpoint" }).click();
    await expect.poll(() => page.locator("#endpoint-secret").count()).toBe(1);
    expect(await page.getByLabel(/Custom fields/).isChecked()).toBe(true);
    expect(Object.keys(await preview())).toEqual(["deliveryId", "event", "timestamp", "call", "transcript", "metadata"]);
    await page.getByRole("button", { name: "Send Test" }).click();
    await expect.poll(() => page.locator("#test-receiver .capture").count()).toBe(1);
    const delivered = JSON.parse((await page.locator("#test-receiver .capture pre").textContent()) ?? "") as Record<string, unknown>;
    // (Stored as jsonb, the delivered body's keys come in jsonb's order, not the preview's.)
    expect(Object.keys(delivered).sort()).toEqual(["call", "deliveryId", "event", "metadata", "timestamp", "transcript"]);
    expect(Object.keys(delivered.call as object).sort()).toEqual(["id", "status"]);
    await page.locator("#settings").scrollIntoViewIfNeeded();
    await screenshot(page, "webhooks-edit");

    // Readable on a narrow screen: nothing wider than the viewport.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    expect(await overflow(page)).toBeLessThanOrEqual(0);
    await screenshot(page, "webhooks-edit-narrow");
    await page.goto(`${baseUrl()}/dashboard/webhooks`);
    await screenshot(page, "webhooks-list-narrow");
    expect(await overflow(page)).toBeLessThanOrEqual(0);
    await page.close();
  });

  it("works without JavaScript: the server renders the shaped preview after submit", async () => {
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    await page.goto(`${baseUrl()}/dashboard/sign-in`);
    await page.getByLabel("Email").fill(ws.admin.email);
    await page.getByLabel("Password").fill(ws.admin.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(/\/dashboard$/);
    await page.goto(`${baseUrl()}/dashboard/webhooks/new`);
    expect(await page.getByRole("button", { name: "Select all", exact: true }).count()).toBe(0); // script-only shortcuts stay hidden
    await page.getByLabel("Name", { exact: true }).fill("No-script hook");
    await page.getByLabel(/Use built-in test receiver/).check();
    await page.getByLabel(/Custom fields/).check();
    await page.getByLabel("call.id", { exact: true }).check();
    await page.getByLabel("transcript.turns", { exact: true }).check();
    await page.getByRole("button", { name: "Create endpoint" }).click();
    await expect.poll(() => page.locator("#endpoint-secret").count()).toBe(1);
    const preview = JSON.parse(await text(page, "#payload-preview")) as Record<string, unknown>;
    const sample = JSON.parse((await page.locator("#payload-sample").textContent()) ?? "") as Payload;
    expect(preview).toEqual(shapePayload(sample, ["call.id", "transcript.turns"]));
    expect(Object.keys(preview)).toEqual(["deliveryId", "event", "timestamp", "call", "transcript"]);
    await context.close();
  });

  it("shows invalid input inline and keeps what was typed", async () => {
    const page = await signInPage(ws.admin.email, ws.admin.password);
    await page.goto(`${baseUrl()}/dashboard/webhooks/new`);
    // No name, no channel (so no events), a URL that is not a URL: the API's schema refuses all three.
    await page.getByLabel("Production URL").fill("not a url");
    await page.getByLabel("Description (optional)").fill("kept as typed");
    await page.getByLabel("Voice", { exact: true }).uncheck();
    await page.getByRole("button", { name: "Create endpoint" }).click();
    await expect.poll(() => page.locator(".field-error").count()).toBe(3);
    expect(await text(page, "#f-name-error")).toBe("must not be empty");
    expect(await text(page, "#f-channels-error")).toBe("choose at least one channel");
    expect(await page.getByLabel("Production URL").getAttribute("aria-invalid")).toBe("true");
    expect(await page.getByLabel("Production URL").inputValue()).toBe("not a url");
    expect(await page.getByLabel("Description (optional)").inputValue()).toBe("kept as typed");
    expect(await page.getByRole("alert").first().textContent()).toContain("Please correct the fields below.");

    // Past the schema, the receiver URL check: only http(s) even with private URLs allowed (https only in production).
    await page.getByLabel("Name", { exact: true }).fill("Bad URL hook");
    await page.getByLabel("Production URL").fill("ftp://hooks.example.com/voice");
    await page.getByLabel("Voice", { exact: true }).check();
    await page.getByRole("button", { name: "Select all", exact: true }).click();
    await page.getByLabel("Test Mode: send live deliveries to the Test URL").check();
    await page.getByRole("button", { name: "Create endpoint" }).click();
    await expect.poll(() => page.locator("#f-url-error").count()).toBe(1);
    expect(await text(page, "#f-url-error")).toBe("the URL must be http(s)");
    expect(await text(page, "#f-testUrl-error")).toBe("test mode needs a test URL");
    expect(await page.getByLabel("Production URL").inputValue()).toBe("ftp://hooks.example.com/voice");
    expect(await page.getByLabel("Name", { exact: true }).inputValue()).toBe("Bad URL hook");
    expect(await page.getByLabel("Test Mode: send live deliveries to the Test URL").isChecked()).toBe(true);
    expect(await page.locator('input[name="events"]:checked').count()).toBe(6);
    await screenshot(page, "webhooks-errors");

    // A malformed id answers the 404 page, like a missing one.
    for (const path of ["/dashboard/webhooks/not-an-id", `/dashboard/webhooks/${crypto.randomUUID()}`]) {
      const res = await page.goto(`${baseUrl()}${path}`);
      expect(res?.status()).toBe(404);
      expect(await page.getByRole("heading", { name: "Not found" }).count()).toBe(1);
    }
    await page.close();
  });
});
