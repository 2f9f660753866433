// The Calls list over HTTP: it pages through every call ("Older calls", 50 a page, the filters
// kept), filters by a number's digits, a call id and a range of days, shows cost, success and
// sentiment, and exports every call the filters find as CSV (not only the page), with fields a
// spreadsheet would run as formulas defused. Another workspace's calls never show.
import { describe, expect, it } from "vitest";
import { calls } from "../../../src/db/schema";
import { idAt } from "../../../src/lib/ids";
import { createAgent } from "../../support/calls";
import { createWorkspace, request, signIn, testDb, type Workspace } from "../../support/harness";
import { pagesAs } from "../../support/pages";

const DAY = 86_400_000;
const midnight = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());

/** `n` calls of the workspace, the newest first at `from`, an hour apart; returns their ids newest first. */
async function seed(
  ws: Workspace,
  agent: { id: string; name: string },
  n: number,
  from: number,
  over: Partial<typeof calls.$inferInsert> = {},
) {
  const rows = Array.from({ length: n }, (_, i) => {
    const createdAt = new Date(from - i * 3_600_000);
    return {
      id: idAt(createdAt.getTime()), // UUID v7 of their creation time, as the platform makes them
      organizationId: ws.organizationId,
      agentId: agent.id,
      agentName: agent.name,
      type: "phone" as const,
      direction: "outbound" as const,
      status: "completed" as const,
      endedReason: "customer-ended-call" as const,
      toNumber: `+1202555${String(1000 + i).slice(-4)}`,
      fromNumber: "+14155550100",
      startedAt: createdAt,
      endedAt: new Date(createdAt.getTime() + 90_000),
      deadlineAt: new Date(createdAt.getTime() + DAY),
      costMicro: 1_250_000,
      createdAt,
      ...over,
    };
  });
  await testDb().insert(calls).values(rows);
  return rows.map((r) => r.id);
}

const idsOn = (html: string) => [...html.matchAll(/<a href="\/dashboard\/calls\/([0-9a-f-]{36})">/g)].map((m) => m[1]);
const olderLink = (html: string) => /<a href="([^"]+)">Older calls<\/a>/.exec(html)?.[1]?.replace(/&amp;/g, "&") ?? null;

describe("the Calls list", () => {
  it("pages through every call of the workspace, newest first, 50 a page, filters kept", async () => {
    const ws = await createWorkspace("Calls list");
    const agent = await createAgent(ws, { name: "Desk" });
    const other = await createAgent(ws, { name: "Other desk" });
    const ids = await seed(ws, agent, 120, midnight - 3_600_000);
    await seed(ws, other, 5, midnight - 1_800_000);
    const theirs = await createWorkspace("Calls list, other");
    await seed(theirs, await createAgent(theirs), 3, midnight);
    const page = await pagesAs(ws.admin.email, ws.admin.password);

    const seen: string[] = [];
    let next: string | null = `/dashboard/calls?agentId=${agent.id}`;
    let pages = 0;
    while (next) {
      const { status, html } = await page(next);
      expect(status).toBe(200);
      seen.push(...(idsOn(html) as string[]));
      next = olderLink(html);
      if (next) expect(next).toContain(`agentId=${agent.id}`);
      pages++;
    }
    expect(pages).toBe(3);
    expect(seen).toEqual(ids);

    const first = (await page("/dashboard/calls")).html;
    expect(idsOn(first)).toHaveLength(50);
    expect(first).toContain("<td>1.25</td>"); // cost in credits
    expect(first).toContain("<td>90 s</td>");
    expect(await page("/dashboard/calls?cursor=garbage")).toMatchObject({ status: 400 });
  });

  it("finds calls by a number's digits, by id, and by days (both included)", async () => {
    const ws = await createWorkspace("Calls search");
    const agent = await createAgent(ws, { name: "Desk" });
    const ids = await seed(ws, agent, 72, midnight + 23 * 3_600_000); // today 23:00 back to three days ago
    const page = await pagesAs(ws.admin.email, ws.admin.password);
    // +12025551003 is the fourth call; "(202) 555-1003" finds it however it is written.
    expect(idsOn((await page(`/dashboard/calls?search=${encodeURIComponent("(202) 555-1003")}`)).html)).toEqual([ids[3]]);
    expect(idsOn((await page(`/dashboard/calls?search=${ids[10]}`)).html)).toEqual([ids[10]]);
    expect(idsOn((await page(`/dashboard/calls?search=${ids[10]?.toUpperCase()}`)).html)).toEqual([ids[10]]);
    expect((await page("/dashboard/calls?search=nothing-here")).html).toContain("No calls match these filters.");
    const yesterday = new Date(midnight - DAY).toISOString().slice(0, 10);
    const onDay = idsOn((await page(`/dashboard/calls?from=${yesterday}&to=${yesterday}`)).html);
    expect(onDay).toEqual(ids.slice(24, 48));
    // A day that is not a day filters nothing (the date input sends YYYY-MM-DD).
    expect(idsOn((await page("/dashboard/calls?from=yesterday")).html)).toHaveLength(50);
  });

  it("shows each call's success and sentiment in the list's own columns, a dash for a call without an analysis", async () => {
    const ws = await createWorkspace("Calls success column");
    const agent = await createAgent(ws, { name: "Desk" });
    const [analysed] = await seed(ws, agent, 1, midnight - 60_000, {
      report: { successScore: 0.75, criteriaResults: [], extractedData: {} },
      analysis: { summary: "s", sentiment: "negative", topics: [], actionItems: [] },
    });
    const [plain] = await seed(ws, agent, 1, midnight - 120_000);
    const html = (await (await pagesAs(ws.admin.email, ws.admin.password))("/dashboard/calls")).html;
    const headers = [...html.matchAll(/<th scope="col">([^<]+)<\/th>/g)].map((m) => m[1]);
    expect(headers.slice(-2)).toEqual(["Success", "Sentiment"]);
    /** The last two cells of the call's row. */
    const lastCells = (id: string) => {
      const row = new RegExp(`<tr><td><a href="/dashboard/calls/${id}">[\\s\\S]*?</tr>`).exec(html)?.[0] ?? "";
      return [...row.matchAll(/<td(?: class="[^"]*")?>([^<]*)<\/td>/g)].map((m) => m[1]).slice(-2);
    };
    expect(lastCells(analysed as string)).toEqual(["75%", "negative"]);
    expect(lastCells(plain as string)).toEqual(["—", "—"]);
  });

  it("exports every call the filters find as CSV, formulas defused", async () => {
    const ws = await createWorkspace("Calls CSV");
    const agent = await createAgent(ws, { name: '=HYPERLINK("http://x","y")' });
    const ids = await seed(ws, agent, 130, midnight - 60_000, {
      report: { successScore: 0.5, criteriaResults: [], extractedData: {} },
      analysis: { summary: "s", sentiment: "positive", topics: [], actionItems: [] },
    });
    const { cookie } = await signIn(ws.admin.email, ws.admin.password);
    const res = await request("/dashboard/calls/export.csv", { headers: { cookie } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="calls-\d{4}-\d{2}-\d{2}\.csv"$/);
    const lines = (await res.text()).trimEnd().split("\r\n");
    expect(lines[0]).toBe(
      "id,created_at,agent_id,agent_name,type,direction,from,to,status,ended_reason,duration_seconds,cost_credits,success_score,sentiment",
    );
    expect(lines).toHaveLength(131);
    expect(lines.slice(1).map((l) => l.split(",")[0])).toEqual(ids);
    expect(lines[1]).toBe(
      `${ids[0]},${new Date(midnight - 60_000).toISOString()},${agent.id},"'=HYPERLINK(""http://x"",""y"")",phone,outbound,+14155550100,+12025551000,completed,customer-ended-call,90,1.25,0.5,positive`,
    );
    const filtered = await request(`/dashboard/calls/export.csv?search=2025551003`, { headers: { cookie } });
    expect((await filtered.text()).trimEnd().split("\r\n")).toHaveLength(2);
  });
});
