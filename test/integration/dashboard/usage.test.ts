// The Usage screen over HTTP: its range (7, 30 or 90 days, anything else is 30; or any days from one
// date to another, checked: real days, in order, not after today, at most 366), the request log of
// the range paged ("Older requests", the range kept), and each row linked to the call or chat it was
// for (an API request is for the API); the range's calls by cost, paged; each agent's calls,
// connected minutes, chats and credits, and the calls ranked by cost, from phone calls, a widget
// chat and a Models API request made through the API in a fresh workspace (GET /v1/usage's byAgent
// too). The charts and the empty page: browser.test.ts, pages-browser.test.ts.
import { describe, expect, it } from "vitest";
import { calls, usageEvents } from "../../../src/db/schema";
import { formatCredits } from "../../../src/lib/credits";
import { idAt } from "../../../src/lib/ids";
import { BUSY, finished, HANGS_UP, place } from "../../support/callees";
import { type CallView, createAgent, waitForCall } from "../../support/calls";
import { createWorkspace, json, settled, testDb, until, type Workspace } from "../../support/harness";
import { pagesAs } from "../../support/pages";
import { createWidget, visitor } from "../../support/widgets";
import { getChat, widgetChat } from "../chats/helpers";

describe("the Usage screen", () => {
  it("picks its range, pages the request log and links each row to its call or chat", async () => {
    const ws = await createWorkspace("Usage page");
    const agent = await createAgent(ws);
    const [call] = await testDb()
      .insert(calls)
      .values({
        organizationId: ws.organizationId,
        agentId: agent.id,
        agentName: "Call agent",
        type: "web",
        direction: "web",
        status: "completed",
        deadlineAt: new Date(Date.now() + 86_400_000),
      })
      .returning();
    const row = (at: number, extra: Partial<typeof usageEvents.$inferInsert> = {}) => ({
      id: idAt(at),
      organizationId: ws.organizationId,
      method: "POST",
      endpoint: "/v1/llm/chat",
      modality: "chat" as const,
      provider: "sandbox",
      model: "sandbox-chat",
      status: 200,
      latencyMs: 12,
      unit: "tokens" as const,
      quantity: 10,
      costMicro: 100,
      createdAt: new Date(at),
      ...extra,
    });
    const now = Date.now();
    // 60 API requests, newest first; the newest is a call's use.
    await testDb()
      .insert(usageEvents)
      .values(Array.from({ length: 60 }, (_, i) => row(now - i * 1_000, i === 0 ? { callId: call?.id, endpoint: "/calls" } : {})));
    const page = await pagesAs(ws.admin.email, ws.admin.password);

    const first = (await page("/dashboard/usage")).html;
    expect(first).toContain('<strong aria-current="page">30 days</strong>');
    expect(first).toContain('<a href="/dashboard/usage?days=7">7 days</a>');
    expect(first).toContain(`<a href="/dashboard/calls/${call?.id}">a call</a>`);
    expect(first.match(/<span class="muted">the API<\/span>/g)).toHaveLength(49);
    const older = /<a href="([^"]+)">Older requests<\/a>/.exec(first)?.[1]?.replace(/&amp;/g, "&") ?? "";
    expect(older).toMatch(/^\/dashboard\/usage\?days=30&cursor=/);
    const second = (await page(older)).html;
    expect(second.match(/<span class="muted">the API<\/span>/g)).toHaveLength(10);
    expect(second).not.toContain("Older requests");

    const week = (await page("/dashboard/usage?days=7")).html;
    expect(week).toContain('<strong aria-current="page">7 days</strong>');
    expect(week).toContain("per day over the last 7 days");
    // A range the page does not offer is the default; a broken cursor is a 400 page.
    expect((await page("/dashboard/usage?days=10000")).html).toContain('<strong aria-current="page">30 days</strong>');
    expect((await page("/dashboard/usage?cursor=broken")).status).toBe(400);
  });

  it("shows any days from one date to another, checked; the request log and the calls keep to them", async () => {
    const ws = await createWorkspace("Usage range");
    const agent = await createAgent(ws, { name: "Desk" });
    const now = Date.now();
    const day = (at: number) => new Date(at).toISOString().slice(0, 10);
    const old = now - 40 * DAY;
    const log = (at: number, endpoint: string) => ({
      id: idAt(at),
      organizationId: ws.organizationId,
      method: "POST",
      endpoint,
      modality: "chat" as const,
      provider: "sandbox",
      model: "sandbox-chat",
      status: 200,
      latencyMs: 12,
      unit: "tokens" as const,
      quantity: 10,
      costMicro: 100,
      createdAt: new Date(at),
    });
    await testDb()
      .insert(usageEvents)
      .values([log(old, "/v1/llm/forty-days-ago"), log(now - 2 * DAY, "/v1/llm/two-days-ago")]);
    const [oldCall] = await seedCalls(ws, agent, [{ at: old, costMicro: 9_000_000 }]);
    const [recentCall] = await seedCalls(ws, agent, [{ at: now - 2 * DAY, costMicro: 1_000_000 }]);
    const page = await pagesAs(ws.admin.email, ws.admin.password);

    const recent = (await page("/dashboard/usage")).html;
    expect(recent).toContain("/v1/llm/two-days-ago");
    expect(recent).not.toContain("/v1/llm/forty-days-ago");
    expect(callsUnder(recent)).toEqual([recentCall]);

    const from = day(old - DAY);
    const to = day(old + DAY);
    const chosen = await page(`/dashboard/usage?from=${from}&to=${to}`);
    expect(chosen.status).toBe(200);
    expect(chosen.html).toContain(`<h2 id="usage-summary" class="mt0">The days from ${from} to ${to}</h2>`);
    expect(chosen.html).toContain(`Credits per day over the days from ${from} to ${to}, by modality`);
    expect(chosen.html).toContain(`<input id="f-from" name="from" type="date" value="${from}"/>`);
    expect(chosen.html).toContain(`<input id="f-to" name="to" type="date" value="${to}"/>`);
    expect(chosen.html).not.toContain('aria-current="page">30 days');
    expect(chosen.html).toContain("/v1/llm/forty-days-ago");
    expect(chosen.html).not.toContain("/v1/llm/two-days-ago");
    expect(callsUnder(chosen.html)).toEqual([oldCall]);
    // One day is a range too.
    expect((await page(`/dashboard/usage?from=${day(old)}&to=${day(old)}`)).html).toContain(`The day ${day(old)}`);

    // Refused: told on the date fields (the typing kept), with the last 30 days shown.
    const today = day(now);
    const refusals: Array<[string, string, string]> = [
      [`from=${to}&to=${from}`, "f-from", "must not be after the last day"],
      [`from=${today}&to=${day(now + 2 * DAY)}`, "f-to", `must not be after today (${today}, UTC)`],
      [`from=2024-01-01&to=2025-01-02`, "f-to", "makes the range longer than 366 days"],
      [`from=2025-02-30&to=${today}`, "f-from", "must be a day (YYYY-MM-DD)"],
      [`from=${from}`, "f-to", "is required"],
    ];
    for (const [query, field, message] of refusals) {
      const refused = await page(`/dashboard/usage?${query}`);
      expect(refused.status, query).toBe(400);
      expect(refused.html, query).toContain(`<p class="field-error" id="${field}-error">${message}</p>`);
      expect(refused.html, query).toContain("These days cannot be shown: the last 30 days are shown instead.");
      expect(refused.html, query).toContain("/v1/llm/two-days-ago");
    }
    // A whole leap year is 366 days: allowed.
    expect((await page("/dashboard/usage?from=2024-01-01&to=2024-12-31")).status).toBe(200);
  });

  it("pages through the range's calls by cost, the costliest first, 20 a page, the range kept", async () => {
    const ws = await createWorkspace("Usage per call");
    const agent = await createAgent(ws, { name: "Desk" });
    const now = Date.now();
    // 45 calls of the last days, costs all different but for two equal ones (then the newest first).
    const costs = Array.from({ length: 45 }, (_, i) => (i === 44 ? 1_000_000 + 43 * 10_000 : 1_000_000 + i * 10_000));
    const ids = await seedCalls(
      ws,
      agent,
      costs.map((costMicro, i) => ({ at: now - (i + 1) * 3_600_000, costMicro })),
    );
    const ranked = ids
      .map((id, i) => ({ id, cost: costs[i] as number }))
      .sort((a, b) => b.cost - a.cost || (b.id > a.id ? 1 : -1))
      .map((c) => c.id);
    const page = await pagesAs(ws.admin.email, ws.admin.password);
    const seen: string[] = [];
    let next: string | null = "/dashboard/usage?days=7";
    let pages = 0;
    while (next) {
      const { status, html } = await page(next);
      expect(status).toBe(200);
      seen.push(...callsUnder(html));
      next = /<a href="([^"]+)">More calls<\/a>/.exec(html)?.[1]?.replace(/&amp;/g, "&") ?? null;
      if (next) expect(next).toMatch(/^\/dashboard\/usage\?days=7&calls=[A-Za-z0-9_-]+#calls$/);
      pages++;
    }
    expect(pages).toBe(3);
    expect(seen).toEqual(ranked);
    expect((await page("/dashboard/usage?calls=broken")).status).toBe(400);
  });
});

const DAY = 86_400_000;

/** Ended phone calls of the workspace made at `at`, costing `costMicro`; their ids, in order. */
async function seedCalls(ws: Workspace, agent: { id: string; name: string }, made: Array<{ at: number; costMicro: number }>) {
  const rows = made.map(({ at, costMicro }) => ({
    id: idAt(at),
    organizationId: ws.organizationId,
    agentId: agent.id,
    agentName: agent.name,
    type: "phone" as const,
    direction: "outbound" as const,
    status: "completed" as const,
    endedReason: "customer-ended-call" as const,
    toNumber: "+12025550100",
    fromNumber: "+14155550100",
    startedAt: new Date(at),
    endedAt: new Date(at + 60_000),
    deadlineAt: new Date(at + DAY),
    costMicro,
    createdAt: new Date(at),
  }));
  await testDb().insert(calls).values(rows);
  return rows.map((r) => r.id);
}

/** The calls the page's per-call table links to, in its order. */
const callsUnder = (html: string) =>
  [...(html.split('<h2 id="calls">')[1]?.split("<h2")[0] ?? "").matchAll(/href="\/dashboard\/calls\/([0-9a-f-]{36})"/g)].map(
    (m) => m[1] as string,
  );

// -- per agent, per call and minutes, from calls and chats made through the API ------------------

interface AgentFigures {
  calls: number;
  minutes: number;
  chats: number;
  credits: { calls: number; chats: number; total: number };
}
interface Report {
  totals: Array<{ cost: number; requests: number }>;
  byAgent: { since: string; agents: Array<AgentFigures & { agentId: string | null; agentName: string }>; total: AgentFigures };
}

/** Connected minutes as the platform counts them: the calls' connected milliseconds summed, to a tenth of a minute. */
const minutesOf = (calls: CallView[]) =>
  Math.round(
    (calls.reduce((n, c) => n + (c.startedAt && c.endedAt ? Date.parse(String(c.endedAt)) - Date.parse(String(c.startedAt)) : 0), 0) /
      60_000) *
      10,
  ) / 10;
const micro = (credits: number) => Math.round(credits * 1_000_000);
/** The text of each cell of each body row of the table under the heading `id`. */
function tableUnder(html: string, id: string): string[][] {
  const section = html.split(`<h2 id="${id}">`)[1]?.split("<h2")[0] ?? "";
  return [...section.matchAll(/<tr>(.*?)<\/tr>/gs)]
    .map((m) => [...(m[1] ?? "").matchAll(/<td[^>]*>(.*?)<\/td>/gs)].map((c) => (c[1] ?? "").replace(/<[^>]+>/g, "").trim()))
    .filter((cells) => cells.length > 0);
}
const summaryOf = (html: string, name: string) => new RegExp(`<dt>${name}</dt><dd>([^<]*)</dd>`).exec(html)?.[1];

describe("the Usage screen's agents, calls and minutes", () => {
  it("adds up each agent's calls, connected minutes, chats and credits, ranks the costliest calls, and counts no other workspace", async () => {
    const ws = await createWorkspace("Usage by agent");
    const desk = await createAgent(ws, { name: "Front desk", firstMessage: "Hello, this is Acme." });
    const sales = await createAgent(ws, { name: "Sales line" });
    const other = await createWorkspace("Usage by agent, other");
    const theirs = await createAgent(other, { name: "Their agent", firstMessage: "Hello from elsewhere." });
    // Two phone calls the callee hangs up on (connected, charged), one that finds the line busy
    // (never connected), another workspace's call, a widget chat and a Models API request.
    const [first, second, busy, foreign] = await Promise.all([
      place(ws, desk.id, { phoneNumber: HANGS_UP }),
      place(ws, desk.id, { phoneNumber: HANGS_UP }),
      place(ws, sales.id, { phoneNumber: BUSY }),
      place(other, theirs.id, { phoneNumber: HANGS_UP }),
    ]);
    const widget = await createWidget(ws, { agentId: desk.id });
    const chatId = await widgetChat(widget.token, visitor(), ["Do you open on Saturdays?", "And on Sundays?"]);
    const llm = await ws.api("/v1/llm/chat", { method: "POST", json: { messages: [{ role: "user", content: "hi" }] } });
    expect(llm.status).toBe(200);
    const ended = await Promise.all([first, second, busy].map((c) => waitForCall(ws, c.id, finished, 40_000)));
    await waitForCall(other, foreign.id, finished, 40_000);
    await settled(ws.organizationId);
    expect(ended.map((c) => c.status)).toEqual(["completed", "completed", "busy"]);
    expect(ended[2]?.startedAt).toBeNull();
    const chat = await getChat(ws, chatId);
    expect(chat.cost.credits).toBeGreaterThan(0);

    // A call's cost settles as its last uses land: read until the report agrees with the calls' own,
    // every 500 ms (each read is four API requests: faster, a slow settlement would meet the key's rate limit).
    const { views, report } = await until(
      async () => ({
        views: await Promise.all(ended.map((c) => waitForCall(ws, c.id, () => true))),
        report: await json<Report>(await ws.api("/v1/usage?days=7")),
      }),
      ({ views, report }) =>
        micro(report.byAgent.agents.find((a) => a.agentId === desk.id)?.credits.calls ?? -1) ===
        views.slice(0, 2).reduce((n, c) => n + micro(c.cost.credits), 0),
      20_000,
      500,
    );
    const deskCalls = views.slice(0, 2);
    const deskCallMicro = deskCalls.reduce((n, c) => n + micro(c.cost.credits), 0);
    expect(deskCalls.every((c) => c.cost.credits > 0)).toBe(true);
    const deskMinutes = minutesOf(deskCalls);
    expect(deskMinutes).toBeGreaterThan(0);

    const sixDaysAgo = new Date(Date.now() - 6 * 86_400_000).toISOString().slice(0, 10);
    expect(report.byAgent.since).toBe(sixDaysAgo);
    expect(report.byAgent.agents).toEqual([
      {
        agentId: desk.id,
        agentName: "Front desk",
        calls: 2,
        minutes: deskMinutes,
        chats: 1,
        credits: { calls: deskCallMicro / 1e6, chats: chat.cost.credits, total: (deskCallMicro + micro(chat.cost.credits)) / 1e6 },
      },
      { agentId: sales.id, agentName: "Sales line", calls: 1, minutes: 0, chats: 0, credits: { calls: 0, chats: 0, total: 0 } },
    ]);
    expect(report.byAgent.total).toEqual({
      calls: 3,
      minutes: deskMinutes,
      chats: 1,
      credits: { calls: deskCallMicro / 1e6, chats: chat.cost.credits, total: (deskCallMicro + micro(chat.cost.credits)) / 1e6 },
    });
    // Every credit of the range: the agents' and the Models API request's, which belongs to no agent.
    const used = report.totals.reduce((n, t) => n + micro(t.cost), 0);
    const apiMicro = used - deskCallMicro - micro(chat.cost.credits);
    expect(apiMicro).toBeGreaterThan(0);

    const page = await pagesAs(ws.admin.email, ws.admin.password);
    const { status, html } = await page("/dashboard/usage?days=7");
    expect(status).toBe(200);
    expect(html).not.toContain("Their agent");
    expect(summaryOf(html, "Calls")).toBe("3");
    expect(summaryOf(html, "Call minutes")).toBe(deskMinutes.toLocaleString("en-US"));
    expect(summaryOf(html, "Chats")).toBe("1");
    expect(summaryOf(html, "Credits used")).toBe(formatCredits(used));
    expect(html).toContain('<caption class="muted small left">Each agent, the last 7 days</caption>');
    expect(html).toContain("the chats started in the last 7 days (UTC)");
    expect(tableUnder(html, "by-agent")).toEqual([
      [
        "Front desk",
        "2",
        deskMinutes.toLocaleString("en-US"),
        "1",
        formatCredits(deskCallMicro),
        formatCredits(micro(chat.cost.credits)),
        formatCredits(deskCallMicro + micro(chat.cost.credits)),
      ],
      ["Sales line", "1", "0", "0", "0", "0", "0"],
    ]);
    expect(html).toContain(`<a href="/dashboard/calls?agentId=${desk.id}">2</a>`);
    expect(html).toContain(`<a href="/dashboard/chats?agentId=${desk.id}">1</a>`);
    // The calls by cost: most credits first (then the newest), each linked to its page.
    const ranked = [...views].sort((a, b) => b.cost.credits - a.cost.credits || (b.id > a.id ? 1 : -1));
    expect(callsUnder(html)).toEqual(ranked.map((c) => c.id));
    expect(tableUnder(html, "calls").map((cells) => cells.slice(1))).toEqual(
      ranked.map((c) => [
        String(c.agentName),
        "phone, outbound",
        c.status,
        minutesOf([c]).toLocaleString("en-US"),
        formatCredits(micro(c.cost.credits)),
      ]),
    );
  }, 90_000);
});
