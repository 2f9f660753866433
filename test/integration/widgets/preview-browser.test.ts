// The live preview on a widget's dashboard page, in Debian's Chromium (playwright-core): the real
// widget.js loads in preview mode under the dashboard's Content-Security-Policy, takes the form's
// colour, title, greeting and position as they are typed (nothing saved), and, opened, chats with
// the agent. Screenshots: test-results/screenshots/widget-preview-*.png. (The preview's
// authorisation, refusals included: preview.test.ts.)
import { eq } from "drizzle-orm";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chats } from "../../../src/db/schema";
import { hasBrowser, launchBrowser, screenshot, signInPage, takeCspViolations } from "../../support/browser";
import { type CallView, createAgent, waitForCall } from "../../support/calls";
import { baseUrl, createWorkspace, json, testDb, type Workspace } from "../../support/harness";
import { launchWithMicrophone } from "../../support/microphone";
import { createWidget } from "../../support/widgets";

let browser: Browser;
beforeAll(async () => {
  if (hasBrowser) browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

// The test project's types are Node's and workerd's, not the DOM's: the page's own are cast.
const background = (l: Locator) =>
  l.evaluate(
    (el) => (globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }).getComputedStyle(el).backgroundColor,
  );
const box = async (l: Locator) => (await l.boundingBox()) ?? { x: -1, y: -1, width: 0, height: 0 };

function consoleErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error" || m.text().includes("[ServiceWidget]")) errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(e.message));
  return errors;
}

describe.runIf(hasBrowser)("a widget's page in Chromium: the live preview", () => {
  let ws: Workspace;
  let widgetId: string;

  beforeAll(async () => {
    ws = await createWorkspace("Preview in Chromium");
    const agent = await createAgent(ws, { name: "Front desk", firstMessage: "Hi! Ask me anything." });
    widgetId = (await createWidget(ws, { agentId: agent.id, name: "Shop widget", colors: { accent: "#4f46e5" } })).id;
  });

  it("follows the form before it is saved, then chats with the agent from the preview", async () => {
    const page = await signInPage(browser, ws.admin.email, ws.admin.password, 1400);
    const errors = consoleErrors(page);
    await page.goto(`${baseUrl()}/dashboard/widgets/${widgetId}`);
    const preview = page.getByRole("region", { name: "Live preview" });
    const stage = preview.locator("#widget-preview-stage");
    // The real widget.js, from the page's own origin, in the stage (Playwright's locators pierce its open shadow root).
    const launcher = stage.getByRole("button", { name: "Open chat: Front desk" });
    await launcher.waitFor();
    expect(await preview.locator("script[src='/widget.js']").getAttribute("data-service-preview")).toBe(widgetId);
    expect(await background(launcher)).toBe("rgb(79, 70, 229)");
    expect(await preview.locator("[data-preview-status]").isHidden()).toBe(true);

    // A colour: taken at once; a half-typed one keeps the last good colour.
    const accent = page.getByLabel("Accent colour");
    await accent.fill("#0a7d3b");
    await expect.poll(() => background(launcher)).toBe("rgb(10, 125, 59)");
    await accent.fill("#0a7d3");
    await accent.press("End");
    expect(await background(launcher)).toBe("rgb(10, 125, 59)");
    await accent.fill("#c2410c");
    await expect.poll(() => background(launcher)).toBe("rgb(194, 65, 12)");

    // The title (and, emptied, the agent's name again), the position, the greeting.
    await page.getByLabel("Title (optional)").fill("Acme help");
    const renamed = stage.getByRole("button", { name: "Open chat: Acme help" });
    await renamed.waitFor();
    const right = await box(renamed);
    const area = await box(stage);
    expect(right.x).toBeGreaterThan(area.x + area.width / 2);
    await page.getByLabel("Position").selectOption("bottom-left");
    await expect.poll(async () => (await box(renamed)).x).toBeLessThan(area.x + area.width / 2);
    await page.getByLabel("Greeting (optional)").fill("Welcome to Acme!");

    // Nothing was saved.
    const saved = await json<{ title: string | null; colors: { accent: string }; position: string }>(
      await ws.api(`/v1/widgets/${widgetId}`),
    );
    expect(saved).toMatchObject({ title: null, colors: { accent: "#4f46e5" }, position: "bottom-right" });

    // Open it: the dialog with the form's title and greeting; a message gets the agent's answer.
    await renamed.click();
    const dialog = stage.getByRole("dialog", { name: "Acme help" });
    await dialog.waitFor();
    await dialog.getByText("Welcome to Acme!").waitFor();
    expect(await background(dialog.getByRole("heading", { name: "Acme help" }).locator(".."))).toBe("rgb(194, 65, 12)");
    await dialog.getByLabel("Message", { exact: true }).fill("Do you ship to Norway?");
    await page.keyboard.press("Enter");
    await dialog.getByText("You said: Do you ship to Norway?").waitFor();
    await screenshot(page, "widget-preview-chat");

    // A real chat of the widget, from the dashboard's origin, its greeting the preview's.
    const rows = await testDb().select().from(chats).where(eq(chats.widgetId, widgetId));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ organizationId: ws.organizationId, origin: new URL(baseUrl()).origin });
    expect(rows[0]?.transcript[0]).toMatchObject({ role: "agent" });

    // The mode: voice shows the call button in place of the message box, the conversation kept.
    await page.getByLabel("Mode", { exact: true }).selectOption("voice");
    await dialog.getByRole("button", { name: "Start call" }).waitFor();
    expect(await dialog.getByLabel("Message", { exact: true }).count()).toBe(0);
    expect(await stage.getByRole("button", { name: "Open voice assistant: Acme help" }).count()).toBe(1);

    expect(errors).toEqual([]);
    expect(takeCspViolations()).toEqual([]);
  }, 60_000);

  it("says the preview talks to the saved agent while another one is chosen", async () => {
    const other = await createAgent(ws, { name: "Night desk" });
    const page = await signInPage(browser, ws.admin.email, ws.admin.password, 1400);
    await page.goto(`${baseUrl()}/dashboard/widgets/${widgetId}`);
    const preview = page.getByRole("region", { name: "Live preview" });
    const note = preview.getByText("The preview talks to the saved agent until you save the new one.");
    await preview.getByRole("button", { name: "Open chat: Front desk" }).waitFor();
    expect(await note.isHidden()).toBe(true);
    await page.getByLabel("Agent", { exact: true }).selectOption(other.id);
    await note.waitFor();
    // An empty title shows the chosen agent's name, as the widget will once saved.
    await preview.getByRole("button", { name: "Open chat: Night desk" }).waitFor();
    await screenshot(page, "widget-preview-other-agent");
    expect(takeCspViolations()).toEqual([]);
  }, 60_000);

  it("starts a voice call from the preview: the microphone's question is heard and the agent answers", async () => {
    const question = "Do you deliver on Sundays?";
    const agent = await createAgent(ws, { name: "Voice desk" });
    const voiceWidget = await createWidget(ws, { agentId: agent.id, name: "Voice widget", mode: "voice" });
    const talking = await launchWithMicrophone(question, "preview-question");
    try {
      const page = await signInPage(talking, ws.admin.email, ws.admin.password, 1400, { permissions: ["microphone"] });
      const errors = consoleErrors(page);
      await page.goto(`${baseUrl()}/dashboard/widgets/${voiceWidget.id}`);
      const stage = page.getByRole("region", { name: "Live preview" }).locator("#widget-preview-stage");
      await stage.getByRole("button", { name: "Open voice assistant: Voice desk" }).click();
      const dialog = stage.getByRole("dialog", { name: "Voice desk" });
      await dialog.getByRole("button", { name: "Start call" }).click();
      await dialog.getByRole("button", { name: "Hang up" }).waitFor();
      await dialog.getByText(question).first().waitFor({ timeout: 30_000 });
      await dialog.getByText(`You said: ${question}`).first().waitFor({ timeout: 30_000 });
      await screenshot(page, "widget-preview-voice");

      // A real web call of the widget's agent, marked as the preview's, both turns in its transcript (then hung up).
      const listed = await json<{ data: Array<{ id: string }> }>(await ws.api(`/v1/calls?agentId=${agent.id}`));
      expect(listed.data).toHaveLength(1);
      const callId = listed.data[0]?.id as string;
      const said = (c: CallView, role: string, text: string) => c.transcript.turns.some((t) => t.role === role && t.text === text);
      const heard = await waitForCall(ws, callId, (c) => said(c, "agent", `You said: ${question}`));
      expect(heard).toMatchObject({ type: "web", status: "in-progress", metadata: { preview: true } });
      expect(said(heard, "user", question)).toBe(true);
      await dialog.getByRole("button", { name: "Hang up" }).click();
      await dialog.getByRole("button", { name: "Start call" }).waitFor();
      expect(await waitForCall(ws, callId, (c) => c.status === "completed")).toMatchObject({ endedReason: expect.any(String) });
      expect(errors).toEqual([]);
      expect(takeCspViolations()).toEqual([]);
    } finally {
      await talking.close();
    }
  }, 90_000);
});
