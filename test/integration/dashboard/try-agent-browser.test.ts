// The goal, in Chromium with a fake microphone: a new user creates an agent in the
// dashboard and, from the agent's page, asks it a spoken question and hears it answer, without
// leaving the dashboard; then chats with it. The "microphone" is a WAV file of the provider
// sandbox's own speech (the sandbox transcribes only speech it synthesized: docs/sandbox.md),
// looped with silence around it, so the question is heard in full whenever the call connects.
import { mkdirSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pcm16ToBytes } from "../../../src/calls/codec";
import { CHROMIUM, hasBrowser, screenshot, takeCspViolations, watchCsp } from "../../support/browser";
import { createAgent, joinWebCall, speech, WEB_RATE, waitForCall } from "../../support/calls";
import { baseUrl, createWorkspace, json, type Workspace } from "../../support/harness";

const QUESTION = "What are your opening hours on Saturday?";
const ANSWER = `You said: ${QUESTION}`; // the sandbox LLM's rule 3

/** A mono 16-bit WAV of `samples` at `rate`. */
function wav(samples: Int16Array, rate: number): Buffer {
  const data = Buffer.from(pcm16ToBytes(samples));
  const head = Buffer.alloc(44);
  head.write("RIFF", 0);
  head.writeUInt32LE(36 + data.length, 4);
  head.write("WAVEfmt ", 8);
  head.writeUInt32LE(16, 16);
  head.writeUInt16LE(1, 20); // PCM
  head.writeUInt16LE(1, 22); // mono
  head.writeUInt32LE(rate, 24);
  head.writeUInt32LE(rate * 2, 28);
  head.writeUInt16LE(2, 32);
  head.writeUInt16LE(16, 34);
  head.write("data", 36);
  head.writeUInt32LE(data.length, 40);
  return Buffer.concat([head, data]);
}

let browser: Browser;
let ws: Workspace;

beforeAll(async () => {
  if (!hasBrowser) return;
  ws = await createWorkspace("Try in Chromium");
  const spoken = await speech(QUESTION, WEB_RATE);
  const silence = (ms: number) => new Int16Array((WEB_RATE * ms) / 1000);
  const loop = new Int16Array([...silence(1_500), ...spoken, ...silence(6_000)]);
  const file = resolve(import.meta.dirname, "../../../test-results/fake-mic-question.wav");
  mkdirSync(resolve(file, ".."), { recursive: true });
  writeFileSync(file, wav(loop, WEB_RATE));
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--use-fake-ui-for-media-stream",
      "--use-fake-device-for-media-stream",
      `--use-file-for-fake-audio-capture=${file}`,
      "--autoplay-policy=no-user-gesture-required",
    ],
  });
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
    await screenshot(page, "call-page-390");
    expect(takeCspViolations()).toEqual([]);
    await context.close();
  }, 90_000);
});
