// The proof, in Debian's Chromium (playwright-core): a third-party page on another
// origin, with its own styles, embeds the one script tag. The widget renders without changing
// the page's styles or globals, a chat exchange completes against the sandbox provider,
// widget.started and widget.completed arrive and verify, a wrong token and a disallowed origin
// render nothing (a console warning and the HTTP refusal), and a voice call runs on Chromium's
// fake microphone. Screenshots: test-results/screenshots/widget-*.png.
import { createServer, type Server } from "node:http";
import { type Browser, type ConsoleMessage, chromium, type Locator, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM, hasBrowser, launchBrowser, screenshot } from "../../support/browser";
import { createAgent, waitForCall } from "../../support/calls";
import { baseUrl, createWorkspace, type Workspace } from "../../support/harness";
import { type Receiver, startReceiver } from "../../support/receiver";
import { stripeAccepts } from "../../support/stripe";
import { createEndpoint } from "../../support/webhooks";
import { createWidget } from "../../support/widgets";

/** The host page: its own styles on the very elements a careless widget would touch. */
const PAGE_CSS = `
  * { box-sizing: content-box; }
  html { font-size: 18px; }
  body { font-family: Georgia, serif; background: rgb(253, 246, 227); color: rgb(51, 51, 51); margin: 40px; line-height: 30px; }
  h1 { color: rgb(200, 30, 30); font-size: 40px; letter-spacing: 2px; }
  p, div { padding: 3px; }
  button { background: rgb(0, 255, 0); font-size: 22px; border: 5px solid rgb(255, 0, 0); border-radius: 0; }
  textarea, input { background: yellow; font-size: 30px; }
  svg { width: 300px; height: 300px; }
`;

function pageHtml(workerBase: string, token: string | null): string {
  const tag = token ? `<script src="${workerBase}/widget.js" data-service-token="${token}" async></script>` : "";
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Acme Shop</title><style>${PAGE_CSS}</style></head>
<body><h1 id="title">Acme Shop</h1><p id="para">Hand-made tea cups, shipped worldwide.</p>
<div id="box">Free shipping over 50 €.</div><button id="buy" type="button">Buy now</button>
<textarea id="notes">Gift note</textarea>${tag}</body></html>`;
}

const STYLED = ["#title", "#para", "#box", "#buy", "#notes", "body"];
const PROPS = [
  "color",
  "background-color",
  "font-family",
  "font-size",
  "line-height",
  "padding-top",
  "margin-top",
  "border-top-width",
  "letter-spacing",
  "box-sizing",
];

// Page-side code is written as strings: the test project's types are Node's and workerd's, not the DOM's.
const hostStyles = (page: Page) =>
  page.evaluate(`Object.fromEntries(${JSON.stringify(STYLED)}.map((s) => {
    const cs = getComputedStyle(document.querySelector(s));
    return [s, Object.fromEntries(${JSON.stringify(PROPS)}.map((p) => [p, cs.getPropertyValue(p)]))];
  }))`) as Promise<Record<string, Record<string, string>>>;

const globals = (page: Page) => page.evaluate("Object.keys(window)") as Promise<string[]>;
const widgetCount = (page: Page) => page.evaluate(`document.querySelectorAll("service-widget").length`) as Promise<number>;
/** Whether the element has the focus inside the widget's shadow root. */
const focused = (locator: Locator) =>
  locator.evaluate((el) => el.getRootNode() && (el.getRootNode() as unknown as { activeElement: unknown }).activeElement === el);
/** Chromium's own line for a non-2xx response; not the widget's doing. */
const ownError = (l: { type: string; text: string }) => l.type === "error" && !l.text.startsWith("Failed to load resource");

let server: Server;
let pageOrigin: string;

beforeAll(async () => {
  if (!hasBrowser) return;
  server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://page");
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(pageHtml(baseUrl(), url.searchParams.get("token")));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const addr = server.address();
  if (!addr || typeof addr === "string") throw new Error("page server did not bind");
  // Another origin than the worker's (another port): the widget is cross-origin, as on a customer's site.
  pageOrigin = `http://127.0.0.1:${addr.port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
});

const collectConsole = (page: Page) => {
  const lines: Array<{ type: string; text: string }> = [];
  page.on("console", (m: ConsoleMessage) => lines.push({ type: m.type(), text: m.text() }));
  return lines;
};

describe.skipIf(!hasBrowser)("the widget in Chromium on a third-party page", () => {
  let browser: Browser;
  let ws: Workspace;
  let receiver: Receiver;
  let secret: string;

  beforeAll(async () => {
    browser = await launchBrowser();
    ws = await createWorkspace("Widget browser test");
    receiver = await startReceiver();
    secret = (await createEndpoint(ws, { url: receiver.url, channels: ["widget"] })).secret;
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await receiver?.stop();
  });

  it("renders in isolation, chats with the agent, and sends widget.started and widget.completed", async () => {
    const agent = await createAgent(ws, { name: "Acme assistant" });
    const widget = await createWidget(ws, {
      agentId: agent.id,
      mode: "both",
      title: "Acme help",
      greeting: "Hi! Ask me anything about our tea cups.",
      allowedOrigins: [pageOrigin],
    });
    const page = await browser.newPage({ viewport: { width: 1024, height: 720 } });
    const logs = collectConsole(page);

    await page.goto(pageOrigin);
    const before = await hostStyles(page);
    const globalsBefore = await globals(page);

    const config = page.waitForResponse((r) => r.url().includes("/widget/v1/config"));
    await page.goto(`${pageOrigin}/?token=${widget.token}`);
    expect((await config).status()).toBe(200);
    const launcher = page.getByRole("button", { name: "Open chat: Acme help" });
    await launcher.waitFor();

    // Nothing of the page changed: its styles, and its globals but our one namespace.
    expect(await hostStyles(page)).toEqual(before);
    const added = (await globals(page)).filter((k) => !globalsBefore.includes(k));
    expect(added).toEqual(["ServiceWidget"]);
    // …and the page's styles did not reach into the widget (its launcher keeps the accent colour).
    expect(
      await launcher.evaluate(
        (el) =>
          (globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }).getComputedStyle(el).backgroundColor,
      ),
    ).toBe("rgb(79, 70, 229)");
    expect(await widgetCount(page)).toBe(1);

    // Keyboard: Enter on the launcher opens the panel and puts the focus in the message box.
    await launcher.focus();
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("dialog", { name: "Acme help" });
    await dialog.waitFor();
    expect(await launcher.getAttribute("aria-expanded")).toBe("true");
    const input = page.getByRole("textbox", { name: "Message" });
    await expect.poll(() => focused(input)).toBe(true);
    await page.getByText("Hi! Ask me anything about our tea cups.").waitFor();
    // Opening the widget created no session and sent nothing.
    expect(receiver.received).toHaveLength(0);

    await page.keyboard.type("Do you ship to Norway?");
    const sent = Date.now();
    await page.keyboard.press("Enter");
    await page.getByText("You said: Do you ship to Norway?").waitFor();
    const replyMs = Date.now() - sent;
    console.log(`widget chat: reply shown ${replyMs} ms after Enter`);
    await screenshot(page, "widget-open");

    const [started] = await receiver.waitFor(1);
    const startedBody = JSON.parse(started?.body ?? "{}");
    expect(startedBody).toMatchObject({ event: "widget.started", chat: { status: "in-progress", agentName: "Acme assistant" } });
    expect(startedBody.metadata).toMatchObject({ widgetId: widget.id, origin: pageOrigin });
    expect(stripeAccepts(started?.body ?? "", String(started?.headers["x-service-signature"]), secret)).toBe(true);

    // Escape closes the panel, gives the focus back to the launcher, and ends the session.
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });
    await expect.poll(() => focused(launcher)).toBe(true);
    const [, completed] = await receiver.waitFor(2);
    const body = JSON.parse(completed?.body ?? "{}");
    expect(body).toMatchObject({
      event: "widget.completed",
      chat: { id: startedBody.chat.id, status: "completed", messageCount: 3 },
      metadata: { endedReason: "visitor-ended" },
    });
    expect(body.transcript.turns).toEqual([
      { role: "agent", text: "Hi! Ask me anything about our tea cups." },
      { role: "user", text: "Do you ship to Norway?" },
      { role: "agent", text: "You said: Do you ship to Norway?" },
    ]);
    expect(stripeAccepts(completed?.body ?? "", String(completed?.headers["x-service-signature"]), secret)).toBe(true);
    expect(logs.filter((l) => l.type === "error" || l.text.includes("[ServiceWidget]"))).toEqual([]);
    await page.close();
  }, 60_000);

  const refused = async (token: string, status: number, needle: string) => {
    const page = await browser.newPage();
    const logs = collectConsole(page);
    const config = page.waitForResponse((r) => r.url().includes("/widget/v1/config"));
    await page.goto(`${pageOrigin}/?token=${token}`);
    const res = await config;
    expect(res.status()).toBe(status);
    await expect.poll(() => logs.some((l) => l.type === "warning" && l.text.includes("[ServiceWidget]"))).toBe(true);
    const warning = logs.find((l) => l.text.includes("[ServiceWidget]"))?.text ?? "";
    expect(warning).toContain(needle);
    // Nothing on the page: no element, no error for the visitor.
    await page.waitForTimeout(200);
    expect(await widgetCount(page)).toBe(0);
    expect(await page.getByRole("button").count()).toBe(1); // the page's own "Buy now"
    expect(logs.filter(ownError)).toEqual([]);
    await page.close();
    return warning;
  };

  it("renders nothing with a wrong token: a console warning and the 401", async () => {
    await refused(`wgt_${"Z".repeat(32)}`, 401, "401 unauthorized");
  });

  it("renders nothing on a page whose origin is not allowed: a console warning and the 403", async () => {
    const widget = await createWidget(ws, { allowedOrigins: ["https://www.acme.example"] });
    const warning = await refused(widget.token, 403, "403 origin_not_allowed");
    expect(warning).toContain(pageOrigin);
  });

  it("renders nothing once the widget is revoked", async () => {
    const widget = await createWidget(ws, { allowedOrigins: [pageOrigin] });
    await ws.api(`/v1/widgets/${widget.id}/revoke`, { method: "POST" });
    await refused(widget.token, 401, "revoked");
  });
});

describe.skipIf(!hasBrowser)("voice from the widget in Chromium (fake microphone)", () => {
  it("asks for the microphone, connects, plays the agent, shows the call state and hangs up", async () => {
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--use-fake-ui-for-media-stream",
        "--use-fake-device-for-media-stream",
        "--autoplay-policy=no-user-gesture-required",
      ],
    });
    try {
      const ws = await createWorkspace("Widget voice test");
      const agent = await createAgent(ws, { firstMessage: "Hello, you are talking to Acme." });
      const widget = await createWidget(ws, { agentId: agent.id, mode: "voice", title: "Acme voice", allowedOrigins: [pageOrigin] });
      const context = await browser.newContext();
      await context.grantPermissions(["microphone"], { origin: pageOrigin });
      const page = await context.newPage();
      const logs = collectConsole(page);
      await page.goto(`${pageOrigin}/?token=${widget.token}`);
      await page.getByRole("button", { name: "Open voice assistant: Acme voice" }).click();
      const status = page.getByRole("status");
      await page.getByRole("button", { name: "Start call" }).click();
      await expect.poll(() => status.textContent(), { timeout: 15_000 }).toMatch(/Connected|Speaking/);
      // The agent's first message: its transcript in the panel (shown once its audio was sent), then
      // its audio played (marks echoed): the state goes back from "Speaking…" to listening. Hanging up
      // before the caller heard a word would leave no turn (docs/calls.md, "Hanging up on the agent").
      await page.getByText("Hello, you are talking to Acme.").waitFor({ timeout: 15_000 });
      // "Speaking…" while it plays (the text may come before the first 200 ms tick shows it, or, when
      // the audio streamed in real time, near its end; a beep may also cut it at once, and then the
      // barge-in kept the turn), then listening again.
      await expect
        .poll(() => status.textContent(), { timeout: 5_000, interval: 50 })
        .toBe("Speaking…")
        .catch(() => undefined);
      await expect.poll(() => status.textContent(), { timeout: 15_000 }).toBe("Connected. Speak now.");
      await screenshot(page, "widget-voice");
      await page.getByRole("button", { name: "Hang up" }).click();
      await expect.poll(() => status.textContent()).toBe("Call ended.");
      await page.getByRole("button", { name: "Start call" }).waitFor();

      const calls = await (await ws.api("/v1/calls")).json();
      const id = (calls as { data: Array<{ id: string }> }).data[0]?.id as string;
      const done = await waitForCall(ws, id, (c) => c.status === "completed");
      expect(done).toMatchObject({ type: "web", endedReason: "customer-ended-call" });
      const first = done.transcript.turns[0] as { role: string; text: string; interrupted?: boolean };
      expect(first.role).toBe("agent");
      // Chromium's fake microphone beeps: a beep over the first message is a barge-in, and the turn
      // keeps what the caller heard of it (docs/calls.md, barge-in), a beginning of the message.
      if (first.interrupted) expect("Hello, you are talking to Acme.".startsWith(first.text)).toBe(true);
      else expect(first.text).toBe("Hello, you are talking to Acme.");
      expect(logs.filter(ownError)).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 60_000);
});
