// The goal, in Chromium with a fake microphone: a new user creates an agent in the
// dashboard and, from the agent's page, asks it a spoken question and hears it answer, without
// leaving the dashboard; then chats with it. The "microphone" is a WAV file of the provider
// sandbox's own speech (the sandbox transcribes only speech it synthesized: docs/sandbox.md),
// looped with silence around it, so the question is heard in full whenever the call connects.
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hasBrowser, overflow, screenshot, signInPage, takeCspViolations, watchCsp } from "../../support/browser";
import { createAgent, joinWebCall, waitForCall } from "../../support/calls";
import { baseUrl, createWorkspace, json, type Workspace } from "../../support/harness";
import { countSentFrames, launchWithMicrophone, sentFrames } from "../../support/microphone";

const QUESTION = "What are your opening hours on Saturday?";
const ANSWER = `You said: ${QUESTION}`; // the sandbox LLM's rule 3

let browser: Browser;
let ws: Workspace;

beforeAll(async () => {
  if (!hasBrowser) return;
  ws = await createWorkspace("Try in Chromium");
  browser = await launchWithMicrophone(QUESTION, "question");
});
afterAll(async () => {
  await browser?.close();
});

describe.runIf(hasBrowser)("an agent's page in Chromium: talk and chat without leaving the dashboard", () => {
  it("creates an agent, asks it a spoken question, hears the answer, hangs up; then chats with it", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.grantPermissions(["microphone"], { origin: baseUrl() });
    const page = watchCsp(await context.newPage());
    const errors: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "error" && !m.text().startsWith("Failed to load resource")) errors.push(m.text());
    });
    await page.goto(`${baseUrl()}/dashboard`);
    await page.getByLabel("Email").fill(ws.admin.email);
    await page.getByLabel("Password").fill(ws.admin.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(/\/dashboard$/);

    // A new agent, from the form, with nothing but a name (it waits for the caller to speak).
    await page.goto(`${baseUrl()}/dashboard/agents/new`);
    await page.getByLabel("Name", { exact: true }).fill("Front desk");
    await page.getByLabel("LLM model").fill("sandbox-chat");
    await page.getByRole("button", { name: "Create agent" }).click();
    await page.waitForURL(/\/dashboard\/agents\/[0-9a-f-]{36}\?saved=1/);

    // Talk: the microphone asks the question; the agent's answer is heard and shown.
    const status = page.locator("[data-talk-status]");
    const spoken = page.getByRole("list", { name: "Call transcript" });
    await page.getByRole("button", { name: "Start call" }).click();
    await expect.poll(() => status.textContent()).toMatch(/Connected|Agent speaking/);
    await expect.poll(() => page.getByRole("button", { name: "Mute" }).isVisible()).toBe(true);
    await expect
      .poll(async () => Number(await page.locator("[data-talk-level]").getAttribute("value")), { timeout: 15_000 })
      .toBeGreaterThan(0);
    await spoken.getByText(QUESTION).first().waitFor({ timeout: 30_000 });
    await spoken.getByText(ANSWER).first().waitFor({ timeout: 30_000 });
    // Heard to its end (its marks echoed as it played): then "Speak now" again, and the hang-up cuts nothing.
    await expect.poll(() => status.textContent(), { timeout: 15_000 }).toBe("Connected. Speak now.");
    const callHref = (await page.getByRole("link", { name: "Open this call" }).getAttribute("href")) ?? "";
    await screenshot(page, "agent-try-talk");
    await page.getByRole("button", { name: "Hang up" }).click();
    await expect.poll(() => status.textContent()).toBe("Call ended.");
    await page.getByRole("button", { name: "Start call" }).waitFor();

    // The call is the API's like any other: a web call from the dashboard, the turns in its transcript.
    const callId = callHref.replace("/dashboard/calls/", "");
    const done = await waitForCall(ws, callId, (c) => c.status === "completed");
    expect(done).toMatchObject({ type: "web", metadata: { source: "dashboard" } });
    const turns = done.transcript.turns as Array<{ role: string; text: string }>;
    expect(turns.some((t) => t.role === "user" && t.text === QUESTION)).toBe(true);
    expect(turns.some((t) => t.role === "agent" && t.text === ANSWER)).toBe(true);

    // The Overview has it (the call has ended: it is counted with its measured reply).
    await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Overview" }).click();
    await page.waitForURL(/\/dashboard$/);
    expect(await page.getByRole("region", { name: "Calls" }).locator(".measure-value").textContent()).toBe("1");
    expect(await page.getByRole("region", { name: "Voice to voice, p50 / p95" }).locator(".measure-value").textContent()).toMatch(
      /^[\d,]+ ms \/ [\d,]+ ms$/,
    );
    await expect.poll(() => page.getByRole("row", { name: /Front desk/ }).textContent()).toContain("Front desk");
    await screenshot(page, "overview-after-call");
    await page.goBack();

    // Chat: typed, answered, the history kept for the next message; Start over clears it.
    const written = page.getByRole("list", { name: "Chat transcript" });
    await page.getByLabel("Message to the agent").fill("Do you open on Sunday?");
    await page.keyboard.press("Enter");
    await written.getByText("You said: Do you open on Sunday?").waitFor();
    await page.getByLabel("Message to the agent").fill("Thanks, bye");
    await page.getByRole("button", { name: "Send" }).click();
    await written.getByText("Goodbye! You said: Thanks, bye.").waitFor();
    await screenshot(page, "agent-try-chat");
    await page.getByRole("button", { name: "Start over" }).click();
    await expect.poll(() => written.locator("li").count()).toBe(0);
    expect((await json<{ data: unknown[] }>(await ws.api("/v1/chats"))).data).toEqual([]);

    expect(errors).toEqual([]);
    expect(takeCspViolations()).toEqual([]);
    await context.close();
  }, 120_000);

  it("a call's page follows the call while it runs, then plays its recording from a line of the transcript", async () => {
    const agent = await createAgent(ws, { name: "Live desk", firstMessage: "Hello, you are on the live page." });
    const created = await json<{ call: { id: string }; webCall: { url: string } }>(
      await ws.api(`/v1/agents/${agent.id}/web-call`, { method: "POST", json: {} }),
    );
    const context = await browser.newContext({ viewport: { width: 390, height: 860 } });
    const page = watchCsp(await context.newPage());
    await page.goto(`${baseUrl()}/dashboard/calls/${created.call.id}`);
    await page.getByLabel("Email").fill(ws.admin.email);
    await page.getByLabel("Password").fill(ws.admin.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(new RegExp(`/dashboard/calls/${created.call.id}$`));
    expect(await page.locator("[data-live-state]").textContent()).toBe("queued");

    // The caller joins (the browser's side of the protocol, from here): the page follows without a reload.
    const client = await joinWebCall(created.webCall.url);
    await expect.poll(() => page.locator("[data-live-state]").textContent()).toBe("in-progress");
    await page.getByText("Hello, you are on the live page.").waitFor({ timeout: 20_000 });
    await client.played();
    client.ws.send(JSON.stringify({ type: "hangup" }));
    // Ended: the page reloads with the whole record, the recording and its Play buttons.
    await page.getByRole("button", { name: "Play from 0:00" }).waitFor({ timeout: 30_000 });
    await page.getByRole("button", { name: "Play from 0:00" }).click();
    await expect
      .poll(() =>
        page.locator("audio").evaluate((a) => {
          const audio = a as unknown as { paused: boolean; ended: boolean };
          return !audio.paused || audio.ended;
        }),
      )
      .toBe(true);
    expect(await overflow(page)).toBe(0); // a call's page fits a phone's width
    await screenshot(page, "call-page-390");
    expect(takeCspViolations()).toEqual([]);
    await context.close();
  }, 90_000);

  it("mutes: while muted the level still moves but every frame sent is silence and the agent hears nothing; unmuted, it hears again", async () => {
    const agent = await createAgent(ws, { name: "Mute desk" });
    const page = await signInPage(browser, ws.admin.email, ws.admin.password, 390, { permissions: ["microphone"] });
    await countSentFrames(page);
    await page.goto(`${baseUrl()}/dashboard/agents/${agent.id}`);
    // The agent's page with its Try panel fits a phone's width.
    expect(await overflow(page)).toBe(0);
    const status = page.locator("[data-talk-status]");
    const level = async () => Number(await page.locator("[data-talk-level]").getAttribute("value"));
    const questions = page.getByRole("list", { name: "Call transcript" }).locator("li.user");
    await page.getByRole("button", { name: "Start call" }).click();
    await page.getByRole("list", { name: "Call transcript" }).getByText(ANSWER).first().waitFor({ timeout: 30_000 });
    await expect.poll(() => status.textContent(), { timeout: 15_000 }).toBe("Connected. Speak now.");
    expect(await questions.count()).toBe(1);
    expect((await sentFrames(page)).sounding).toBeGreaterThan(0);

    // Mute, and note how many frames had been sent at that moment (the click runs the handler at once).
    const mutedFrom = await page.evaluate(() => {
      const g = globalThis as unknown as { __sentFrames: boolean[]; document: { querySelector(s: string): { click(): void } } };
      g.document.querySelector("[data-talk-mute]").click();
      return g.__sentFrames.length;
    });
    const unmute = page.getByRole("button", { name: "Unmute" });
    expect(await unmute.getAttribute("aria-pressed")).toBe("true");
    // The microphone says the question again (the meter shows it), then falls quiet: not a sound of it was sent.
    await expect.poll(level, { timeout: 20_000 }).toBeGreaterThan(0.05);
    await expect.poll(level, { timeout: 20_000 }).toBeLessThan(0.01);
    const muted = await sentFrames(page, mutedFrom);
    expect(muted.total - mutedFrom).toBeGreaterThan(100); // the call went on: 20 ms frames, over two seconds of them
    expect(muted.sounding).toBe(0);
    expect(await questions.count()).toBe(1);

    // Unmuted: the next time it is said, the agent hears it and answers.
    const unmutedFrom = (await sentFrames(page)).total;
    await unmute.click();
    expect(await page.getByRole("button", { name: "Mute" }).getAttribute("aria-pressed")).toBe("false");
    await expect.poll(() => questions.count(), { timeout: 30_000 }).toBe(2);
    expect((await sentFrames(page, unmutedFrom)).sounding).toBeGreaterThan(0);
    await screenshot(page, "agent-try-mute-390");
    await page.getByRole("button", { name: "Hang up" }).click();
    await expect.poll(() => status.textContent()).toBe("Call ended.");
    expect(takeCspViolations()).toEqual([]);
  }, 120_000);
});
