// The dashboard in a real browser (Debian's Chromium via playwright-core): sign-in, API keys,
// members, agents, voices, calls (a call's latency waterfall, checked by axe; Hang up), usage. Skipped
// with a notice where Chromium is missing.
import type { Browser } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { calls, type TranscriptTurn } from "../../../src/db/schema";
import {
  axeViolations,
  hasBrowser,
  launchBrowser,
  overflow,
  screenshot,
  signInPage as signInAs,
  takeCspViolations,
} from "../../support/browser";
import { addMemberTo, baseUrl, createWorkspace, request, testDb, type Workspace } from "../../support/harness";

let browser: Browser;

beforeAll(async () => {
  if (hasBrowser) browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});
// Every flow runs under the pages' Content-Security-Policy: nothing the pages do is refused.
afterEach(() => {
  expect(takeCspViolations()).toEqual([]);
});

const signInPage = (email: string, password: string) => signInAs(browser, email, password);

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

    await page.goto(`${baseUrl()}/dashboard/api-keys`); // the secret is gone for good after the creating response
    expect(await page.locator("#new-key").count()).toBe(0);
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

describe.runIf(hasBrowser)("dashboard: members and organizations", () => {
  it("invites a member with a one-time password, sets roles, and switches organization", async () => {
    const first = await createWorkspace("First org");
    const page = await signInPage(first.admin.email, first.admin.password);
    await page.goto(`${baseUrl()}/dashboard/members`);
    const email = `invited-${Date.now()}@example.test`;
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Role").selectOption("member");
    await page.getByRole("button", { name: "Invite" }).click();
    const password = (await page.locator("#invite-password").textContent())?.trim() ?? "";
    expect(password.length).toBeGreaterThan(12);
    await page.getByLabel(`Role of ${email}`).selectOption("admin");
    await page
      .locator("form", { has: page.getByLabel(`Role of ${email}`) })
      .getByRole("button", { name: "Save" })
      .click();
    await expect.poll(() => page.getByText("Role saved.").count()).toBe(1);
    await screenshot(page, "members");

    // The invited user signs in with the one-time password and is an admin of the first org.
    const invited = await signInPage(email, password);
    expect((await invited.goto(`${baseUrl()}/dashboard/api-keys`))?.status()).toBe(200);
    // Added to a second organization as a member, they can switch to it and lose admin screens there.
    const second = await createWorkspace("Second org");
    const { addMember } = await import("../../../src/organizations/service");
    await addMember({ ctx: { db: testDb(), organizationId: second.organizationId }, input: { email, role: "member" } });
    await invited.goto(`${baseUrl()}/dashboard/agents`);
    await invited.getByLabel("Organization").selectOption(second.organizationId);
    await invited.getByRole("button", { name: "Switch" }).click();
    await invited.waitForURL(/\/dashboard$/);
    expect(await invited.locator("#org-switch option[selected]").textContent()).toContain("Second org");
    expect((await invited.goto(`${baseUrl()}/dashboard/api-keys`))?.status()).toBe(403);
    await page.close();
    await invited.close();
  });
});

describe.runIf(hasBrowser)("dashboard: agents, calls, voices, usage", () => {
  let ws: Workspace;
  beforeAll(async () => {
    ws = await createWorkspace("Browser agents");
  });

  it("creates an agent with the form (errors inline, typing kept) and the API sees it", async () => {
    const page = await signInPage(ws.admin.email, ws.admin.password);
    await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Agents" }).click();
    await page.getByRole("link", { name: "New agent" }).click();
    await page.getByLabel("Name", { exact: true }).fill("Front desk 🎧");
    await page.getByLabel("System prompt").fill("You are the front desk of Acme Dental.");
    await page.getByLabel("First message").fill("Hello, Acme Dental.");
    await page.getByLabel("Temperature (0–2)").fill("5");
    await page.getByLabel("End-call phrases (one per line)").fill("goodbye\nhave a nice day");
    await page.getByLabel("Eagerness").selectOption("eager");
    await page.getByLabel("Longest wait (ms)").fill("300");
    await page.getByRole("button", { name: "Create agent" }).click();
    await expect.poll(() => page.locator("#f-temperature-error").count()).toBe(1);
    expect(await page.locator("#f-maxWaitMs-error").textContent()).toMatch(/500/);
    expect(await page.getByLabel("Eagerness").inputValue()).toBe("eager");
    expect(await page.getByLabel("Name", { exact: true }).inputValue()).toBe("Front desk 🎧");
    expect(await page.getByLabel("System prompt").inputValue()).toBe("You are the front desk of Acme Dental.");
    await screenshot(page, "agent-form-errors");
    await page.getByLabel("Temperature (0–2)").fill("0.4");
    await page.getByLabel("Longest wait (ms)").fill("1500");
    await page.getByRole("button", { name: "Create agent" }).click();
    await page.waitForURL(/\/dashboard\/agents\/[0-9a-f-]{36}\?saved=1/);
    const id = /agents\/([0-9a-f-]{36})/.exec(page.url())?.[1];
    const res = await ws.api(`/v1/agents/${id}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      name: "Front desk 🎧",
      firstMessage: "Hello, Acme Dental.",
      temperature: 0.4,
      endCallPhrases: ["goodbye", "have a nice day"],
      turnTaking: { eagerness: "eager", minWaitMs: null, maxWaitMs: 1500, interruptionMinWords: 1, interruptionMinMs: null },
    });
    await page.goto(`${baseUrl()}/dashboard/agents`);
    await screenshot(page, "agents-list");
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, "agents-list-narrow");
    await page.close();
  });

  it("places a test call against the sandbox and shows its transcript, recording, analysis and deliveries", async () => {
    const agent = await ws.api("/v1/agents", {
      method: "POST",
      json: {
        name: "Test caller",
        personaId: "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77",
        llmModel: "sandbox-chat",
        firstMessage: "Hello, this is Acme Dental.",
        endCallPhrases: ["goodbye"],
        analysisPlan: { successCriteria: ["The caller asked for an appointment"] },
      },
    });
    const { id: agentId } = (await agent.json()) as { id: string };
    await ws.api("/v1/webhook-endpoints", { method: "POST", json: { name: "hook", useTestReceiver: true, channels: ["voice"] } });
    const page = await signInPage(ws.admin.email, ws.admin.password);
    await page.goto(`${baseUrl()}/dashboard/calls`);
    await page.getByLabel("Agent", { exact: true }).first().selectOption(agentId);
    await page.getByLabel("Phone number (E.164)").fill("+12025550100");
    await page.getByRole("button", { name: "Place test call" }).click();
    await page.waitForURL(/\/dashboard\/calls\/[0-9a-f-]{36}$/);
    const callPath = new URL(page.url()).pathname;
    await expect
      .poll(
        async () => {
          await page.reload();
          return page.getByText("The caller asked for an appointment").count();
        },
        { timeout: 60_000, interval: 1_000 },
      )
      .toBeGreaterThan(0);
    expect(await page.locator(".turns > li").count()).toBeGreaterThanOrEqual(6);
    expect(await page.locator(".turns > li", { hasText: "Caller" }).first().textContent()).toContain(
      "Hi, I would like to book an appointment.",
    );
    expect(await page.locator("audio").count()).toBe(1);
    expect(await page.getByText("call.completed").count()).toBe(1);
    await screenshot(page, "call-detail");
    await page.goto(`${baseUrl()}/dashboard/calls?status=completed`);
    expect(await page.locator("tbody tr").count()).toBe(1);
    await screenshot(page, "calls-list");
    await page.goto(`${baseUrl()}/dashboard/usage`);
    expect(await page.locator("svg[role=img] rect").count()).toBeGreaterThan(2);
    expect(await page.getByText("/v1/calls/").count()).toBeGreaterThan(0);
    // By agent and the costliest calls: captioned tables, the call linked to its page.
    const byAgent = page.getByRole("table", { name: "Each agent, the last 30 days" });
    expect(await byAgent.getByRole("row", { name: /Test caller/ }).count()).toBe(1);
    const costliest = page.getByRole("table", { name: "Calls by cost, the last 30 days" });
    expect(await costliest.locator('a[href^="/dashboard/calls/"]').count()).toBe(1);
    await screenshot(page, "usage");
    await page.goto(`${baseUrl()}/dashboard/voices`);
    await screenshot(page, "voices");
    await page.close();

    // On a phone the page does not scroll sideways: the wide tables do, inside their cards; axe finds nothing.
    for (const width of [1280, 390]) {
      const axed = await signInAs(browser, ws.admin.email, ws.admin.password, width, { bypassCSP: true });
      // The pages with this call on them: none wider than the window.
      for (const path of ["/dashboard", "/dashboard/calls", callPath, "/dashboard/phone-numbers"]) {
        await axed.goto(`${baseUrl()}${path}`);
        expect(await overflow(axed), `${path} at ${width} px`).toBeLessThanOrEqual(0);
      }
      await axed.goto(`${baseUrl()}/dashboard/usage`);
      expect(await axed.evaluate("document.documentElement.scrollWidth - window.innerWidth"), `page at ${width} px`).toBeLessThanOrEqual(0);
      expect(await axeViolations(axed), `axe at ${width} px`).toEqual([]);
      if (width === 390) {
        const wrap = axed.locator(".table-wrap", { has: axed.getByRole("table", { name: "Each agent, the last 30 days" }) });
        expect(await wrap.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
        await screenshot(axed, "usage-390");
      }
      await axed.close();
    }
  }, 120_000);

  it("draws each measured reply's latency waterfall on one scale, with the call's p50, and axe finds nothing", async () => {
    const latency = (voiceToVoiceMs: number, llmMs: number) => ({
      voiceToVoiceMs,
      endpointingMs: 200,
      sttMs: 100,
      llmMs,
      ttsMs: 250,
      platformMs: voiceToVoiceMs - 550 - llmMs,
    });
    const transcript: TranscriptTurn[] = [
      { role: "agent", text: "Hello, this is Acme Dental.", startMs: 0, endMs: 1800 },
      { role: "user", text: "I'd like to book <b>a cleaning</b>.", startMs: 2500, endMs: 4200 },
      { role: "agent", text: "Sure, which day suits you?", startMs: 5050, endMs: 6600, latency: latency(850, 250) },
      { role: "user", text: "Tomorrow morning.", startMs: 7400, endMs: 8600 },
      {
        role: "agent",
        text: "Booked for 9 am.",
        startMs: 9750,
        endMs: 11_000,
        latency: { ...latency(1150, 500), discardedTranscriptions: 1 },
      },
    ];
    const started = new Date(Date.now() - 60_000);
    const [call] = await testDb()
      .insert(calls)
      .values({
        organizationId: ws.organizationId,
        agentName: "Latency agent",
        type: "phone",
        direction: "outbound",
        status: "completed",
        endedReason: "customer-ended-call",
        fromNumber: "+15005550006",
        toNumber: "+12025550100",
        transcript,
        deadlineAt: new Date(),
        startedAt: started,
        endedAt: new Date(started.getTime() + 12_000),
      })
      .returning({ id: calls.id });
    const path = `${baseUrl()}/dashboard/calls/${call?.id}`;

    const page = await signInPage(ws.admin.email, ws.admin.password);
    expect((await page.goto(path))?.status()).toBe(200);
    expect(await page.locator(".latency-p50").textContent()).toContain("p50 1000 ms over 2 replies");
    const replies = page.locator(".turns > li", { has: page.locator(".waterfall") });
    expect(await replies.count()).toBe(2);
    const slow = replies.nth(1);
    expect(await slow.textContent()).toContain("Booked for 9 am.");
    expect(await slow.getByRole("list", { name: "Where the wait went" }).getByRole("listitem").allTextContents()).toEqual([
      "Endpointing 200 ms",
      "Transcription 100 ms",
      "LLM 500 ms",
      "Speech 250 ms",
      "Platform 100 ms",
      "1 speculative transcription discarded",
    ]);
    expect(await slow.locator(".wf-total").textContent()).toBe("Voice to voice 1150 ms");
    expect(await page.locator(".turns > li", { hasText: "I'd like to book <b>a cleaning</b>." }).count()).toBe(1);
    // One scale for the call: the slowest reply's bars fill the track, the other's end at 850/1150 of it.
    const track = await slow.locator("svg.wf-bars").boundingBox();
    const slowEnd = await slow.locator("svg.wf-platform").boundingBox();
    const fastEnd = await replies.nth(0).locator("svg.wf-platform").boundingBox();
    if (!track || !slowEnd || !fastEnd) throw new Error("the waterfall's bars are not laid out");
    // (a bar's box takes in half of its 2 px white edge)
    expect(Math.abs(slowEnd.x + slowEnd.width - (track.x + track.width))).toBeLessThanOrEqual(1.5);
    expect((fastEnd.x + fastEnd.width - track.x) / track.width).toBeCloseTo(850 / 1150, 2);
    await screenshot(page, "call-latency");
    await page.close();

    for (const width of [1280, 390]) {
      const axed = await signInAs(browser, ws.admin.email, ws.admin.password, width, { bypassCSP: true });
      await axed.goto(path);
      expect(await axed.locator(".waterfall").count()).toBe(2);
      expect(await axeViolations(axed), `axe at ${width} px`).toEqual([]);
      await screenshot(axed, `call-latency-${width}`);
      await axed.close();
    }
  });
});

describe.runIf(hasBrowser)("dashboard: Hang up", () => {
  it("asks first, then cancels a call nobody joined and says so on the call's page; axe finds nothing on the live page", async () => {
    const ws = await createWorkspace("Hang up workspace");
    const agent = await ws.api("/v1/agents", {
      method: "POST",
      json: { name: "Web agent", personaId: "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77", llmModel: "sandbox-chat" },
    });
    const { id: agentId } = (await agent.json()) as { id: string };
    const web = await ws.api(`/v1/agents/${agentId}/web-call`, { method: "POST", json: {} });
    const { call } = (await web.json()) as { call: { id: string } };
    const path = `${baseUrl()}/dashboard/calls/${call.id}`;

    const axed = await signInAs(browser, ws.admin.email, ws.admin.password, 1280, { bypassCSP: true });
    await axed.goto(path);
    expect(await axeViolations(axed)).toEqual([]);
    await axed.close();

    const page = await signInPage(ws.admin.email, ws.admin.password);
    await page.goto(path);
    // Dismissed: nothing is sent, the call goes on.
    page.once("dialog", (d) => d.dismiss());
    await page.getByRole("button", { name: "Hang up" }).click();
    expect(page.url()).toBe(path);
    expect(((await (await ws.api(`/v1/calls/${call.id}`)).json()) as { status: string }).status).toBe("queued");
    let asked = "";
    page.once("dialog", (d) => {
      asked = d.message();
      d.accept().catch(() => undefined);
    });
    await page.getByRole("button", { name: "Hang up" }).click();
    await page.waitForURL(/\?notice=canceled$/);
    expect(asked).toBe("Cancel this call? It stops ringing and is not connected.");
    expect(await page.getByRole("status").filter({ hasText: "Call canceled." }).count()).toBe(1);
    expect(await page.getByRole("button", { name: "Hang up" }).count()).toBe(0);
    expect(((await (await ws.api(`/v1/calls/${call.id}`)).json()) as { status: string }).status).toBe("canceled");
    await screenshot(page, "call-hung-up");
    await page.close();
  });
});

describe.runIf(hasBrowser)("dashboard: widgets", () => {
  it("creates a widget for an agent (errors inline), shows the embed code, rotates and revokes its token", async () => {
    const ws = await createWorkspace("Widget workspace");
    await ws.api("/v1/agents", { method: "POST", json: { name: "Site agent", personaId: "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77" } });
    const page = await signInPage(ws.admin.email, ws.admin.password);
    await page.getByRole("link", { name: "Widgets" }).click();
    await page.getByRole("link", { name: "New widget" }).click();
    await page.getByLabel("Name", { exact: true }).fill("Pricing page");
    await page.getByLabel("Mode").selectOption("both");
    await page.getByLabel("Allowed origins (one per line)").fill("https://www.example.com\nnot an origin");
    await page.getByLabel("Accent colour").fill("#0f766e");
    await page.getByRole("button", { name: "Create widget" }).click();
    await expect.poll(() => page.locator("#f-allowedOrigins-error").count()).toBe(1);
    expect(await page.getByLabel("Allowed origins (one per line)").inputValue()).toBe("https://www.example.com\nnot an origin");
    await page.getByLabel("Allowed origins (one per line)").fill("https://www.example.com");
    await page.getByRole("button", { name: "Create widget" }).click();
    await page.waitForURL(/\/dashboard\/widgets\/[0-9a-f-]{36}\?saved=1/);
    const code = (await page.locator("#embed-code").textContent()) ?? "";
    const token = /data-service-token="(wgt_[A-Za-z0-9]+)"/.exec(code)?.[1];
    expect(code).toContain(`${baseUrl()}/widget.js`);
    await screenshot(page, "widget-edit");
    const id = /widgets\/([0-9a-f-]{36})/.exec(page.url())?.[1];
    const viaApi = (await (await ws.api(`/v1/widgets/${id}`)).json()) as Record<string, unknown>;
    expect(viaApi).toMatchObject({
      name: "Pricing page",
      mode: "both",
      token,
      allowedOrigins: ["https://www.example.com"],
      colors: { accent: "#0f766e" },
    });

    page.once("dialog", (d) => d.accept());
    await page.getByRole("button", { name: "Rotate token" }).click();
    await page.waitForURL(/rotated=1/);
    const rotated = /data-service-token="(wgt_[A-Za-z0-9]+)"/.exec((await page.locator("#embed-code").textContent()) ?? "")?.[1];
    expect(rotated).toBeTruthy();
    expect(rotated).not.toBe(token);
    page.once("dialog", (d) => d.accept());
    await page.getByRole("button", { name: "Revoke" }).click();
    await page.waitForURL(/revoked=1/);
    expect(((await (await ws.api(`/v1/widgets/${id}`)).json()) as { status: string }).status).toBe("revoked");
    await page.close();
  });
});
