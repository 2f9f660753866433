// The Overview (/dashboard) over HTTP: the last 30 days per day and per agent, from rows written as
// the platform writes them (calls with their cost, analysis and voice-to-voice latencies; chats),
// in this workspace only. The browser test (try-agent-browser.test.ts) sees a real call arrive.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { endCall, moveCall, refreshCost, saveAnalysis } from "../../../src/calls/queries/calls";
import { addEndedCall } from "../../../src/calls/queries/stats";
import { type CallAnalysis, type CallReport, callDailyStats, calls, chats, usageEvents } from "../../../src/db/schema";
import { createAgent } from "../../support/calls";
import { createWorkspace, testDb, type Workspace } from "../../support/harness";
import { pagesAs } from "../../support/pages";

const DAY = 86_400_000;
const today = new Date();
const daysAgo = (n: number, hour = 12) => new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() - n, hour));

/** A call row as the platform writes it; an ended one is added to the daily figures as the ending adds it. */
async function call(ws: Workspace, agent: { id: string; name: string } | null, over: Partial<typeof calls.$inferInsert>) {
  const createdAt = over.createdAt ?? daysAgo(0, 0);
  const [row] = await testDb()
    .insert(calls)
    .values({
      organizationId: ws.organizationId,
      agentId: agent?.id ?? null,
      agentName: agent?.name ?? "Gone agent",
      type: "web",
      direction: "outbound",
      status: "completed",
      endedReason: "customer-ended-call",
      deadlineAt: new Date(createdAt.getTime() + DAY),
      createdAt,
      ...over,
    })
    .returning();
  if (!row) throw new Error("no call row");
  if (row.endedAt) await addEndedCall(testDb(), row);
  return row;
}

/** The text of the measure titled `title` (its number line). */
const measure = (html: string, title: string) =>
  new RegExp(`<h2 class="measure-title">${title}</h2><p class="measure-value">([^<]*)</p>`).exec(html)?.[1];

/** The cells of the by-agent row that starts with `name`. */
function agentRow(html: string, name: string): string[] {
  const rows = html.split("<tr>").filter((r) => r.includes(`>${name}<`));
  return (rows[0] ?? "")
    .split("</td>")
    .map((cell) => cell.replace(/<[^>]+>/g, "").trim())
    .slice(0, 7);
}

const ANALYSIS: CallAnalysis = { summary: "s", sentiment: "neutral", topics: [], actionItems: [] };

describe("the Overview", () => {
  it("counts calls, minutes, chats, cost, success and voice-to-voice per day and per agent, for 30 days", async () => {
    const ws = await createWorkspace("Overview");
    const desk = await createAgent(ws, { name: "Desk" });
    const sales = await createAgent(ws, { name: "Sales" });
    const at = (n: number, startMin: number, lengthMin: number) => ({
      createdAt: daysAgo(n, 9),
      startedAt: new Date(daysAgo(n, 9).getTime() + startMin * 60_000),
      endedAt: new Date(daysAgo(n, 9).getTime() + (startMin + lengthMin) * 60_000),
    });
    const report = (successScore: number): CallReport => ({ successScore, criteriaResults: [], extractedData: {} });
    // Today: two Desk calls (3 and 1.5 minutes), one analyzed at 1.0, one at 0.5; latencies 400, 600, 800, 1000.
    const first = await call(ws, desk, { ...at(0, 0, 3), costMicro: 2_000_000, voiceToVoiceMs: [400, 600] });
    const second = await call(ws, desk, { ...at(0, 10, 1.5), costMicro: 500_000, voiceToVoiceMs: [800, 1000] });
    await saveAnalysis(testDb(), first.id, ANALYSIS, report(1));
    await saveAnalysis(testDb(), second.id, ANALYSIS, report(0.5));
    // Three days ago: a Sales call that never connected (no minutes), no analysis, no reply measured.
    await call(ws, sales, { createdAt: daysAgo(3), endedAt: daysAgo(3), status: "failed", endedReason: "dial-failed", voiceToVoiceMs: [] });
    // 31 days ago: outside the window.
    await call(ws, desk, { ...at(31, 0, 60), costMicro: 9_000_000 });
    // Chats: one with Sales today.
    await testDb()
      .insert(chats)
      .values({
        organizationId: ws.organizationId,
        channel: "widget",
        agentId: sales.id,
        agentName: "Sales",
        endUserId: "v1",
        status: "completed",
        startedAt: daysAgo(0, 1),
      });
    // Another workspace's call, today: not counted.
    const other = await createWorkspace("Overview, other");
    await call(other, await createAgent(other, { name: "Theirs" }), { ...at(0, 0, 5), costMicro: 7_000_000 });

    const page = await pagesAs(ws.admin.email, ws.admin.password);
    const { status, html } = await page("/dashboard");
    expect(status).toBe(200);
    expect(measure(html, "Calls")).toBe("3");
    expect(measure(html, "Minutes")).toBe("4.5");
    expect(measure(html, "Chats")).toBe("1");
    expect(measure(html, "Call cost \\(credits\\)")).toBe("2.50");
    expect(measure(html, "Success")).toBe("75% of 2 analyzed");
    // Percentiles over every reply (400, 600, 800, 1000), nearest rank, to the 10 ms bucket's middle.
    expect(measure(html, "Voice to voice, p50 / p95")).toBe("605 ms / 1,005 ms");
    expect(agentRow(html, "Desk")).toEqual(["Desk", "2", "4.5", "0", "2.50", "75%", "605 ms / 1,005 ms"]);
    expect(agentRow(html, "Sales")).toEqual(["Sales", "1", "0", "1", "0", "–", "–"]);
    expect(html).not.toContain("Theirs");
    // The charts: one bar per day with activity, each titled with its day and value.
    const day = (n: number) => daysAgo(n).toISOString().slice(0, 10);
    expect(html).toContain(`<title>${day(0)}: 2</title>`);
    expect(html).toContain(`<title>${day(3)}: 1</title>`);
    expect(html).not.toContain(`<title>${day(31)}`);
    expect(html).toContain(`aria-label="Calls, per day from ${day(29)} to ${day(0)}."`);

    // A deleted agent keeps its figures under its name, without links that would lead nowhere.
    expect(html).toContain(`href="/dashboard/agents/${sales.id}"`);
    expect((await ws.api(`/v1/agents/${sales.id}`, { method: "DELETE" })).status).toBe(204);
    const after = (await page("/dashboard")).html;
    expect(agentRow(after, "Sales (deleted)")).toEqual(["Sales (deleted)", "1", "0", "1", "0", "–", "–"]);
    expect(after).not.toContain(sales.id);
  });

  it("tells a new workspace where to start; the navigation opens on it; the page has its doctype and icon", async () => {
    const ws = await createWorkspace("Overview, empty");
    const page = await pagesAs(ws.admin.email, ws.admin.password);
    const { html } = await page("/dashboard");
    expect(html).toContain("No calls or chats in the last 30 days.");
    // Every page: standards mode (a form in quirks mode keeps a bottom margin: the header's buttons went
    // out of line) and the icon, inline.
    expect(html.startsWith('<!DOCTYPE html><html lang="en">')).toBe(true);
    expect(html).toContain('<link rel="icon" href="data:image/svg+xml,');
    expect(html).toContain('<a href="/dashboard" aria-current="page">Overview</a>');
    expect(measure(html, "Voice to voice, p50 / p95")).toBe("–");
  });

  it("is kept as calls end: the ending adds the call, a late cost adds its difference once, a report counts once", async () => {
    const ws = await createWorkspace("Overview, kept");
    const agent = await createAgent(ws, { name: "Kept" });
    const live = await call(ws, agent, { status: "queued", endedReason: null });
    const stats = async () => (await testDb().select().from(callDailyStats).where(eq(callDailyStats.organizationId, ws.organizationId)))[0];
    expect(await moveCall(testDb(), live.id, "in-progress", { startedAt: new Date(Date.now() - 90_000) })).not.toBeNull();
    expect(await stats()).toBeUndefined(); // a live call is not counted yet
    const usage = (costMicro: number) =>
      testDb().insert(usageEvents).values({
        organizationId: ws.organizationId,
        callId: live.id,
        method: "WS",
        endpoint: "/calls",
        modality: "chat",
        provider: "sandbox",
        model: "sandbox-chat",
        status: 200,
        latencyMs: 1,
        unit: "tokens",
        costMicro,
      });
    await usage(300_000);
    const turn = (ms: number) => ({
      role: "agent" as const,
      text: "x",
      startMs: 0,
      endMs: 1,
      latency: { voiceToVoiceMs: ms, sttMs: 1, llmMs: 1, ttsMs: 1, platformMs: 1 },
    });
    const ended = await endCall(testDb(), live.id, "customer-ended-call", [turn(512), turn(1_499)]);
    expect(ended?.voiceToVoiceMs).toEqual([512, 1_499]);
    expect(await endCall(testDb(), live.id, "customer-ended-call")).toBeNull(); // the first ending wins, counted once
    expect(await stats()).toMatchObject({ calls: 1, costMicro: 300_000, replies: 2, analyzed: 0, agentName: "Kept" });
    expect((await stats())?.connectedSeconds).toBeGreaterThanOrEqual(90);

    await usage(50_000); // the last turn settles after the end
    await refreshCost(testDb(), live.id);
    await refreshCost(testDb(), live.id);
    expect((await stats())?.costMicro).toBe(350_000);

    await saveAnalysis(testDb(), live.id, ANALYSIS, { successScore: 0.25, criteriaResults: [], extractedData: {} });
    await saveAnalysis(testDb(), live.id, ANALYSIS, { successScore: 0.75, criteriaResults: [], extractedData: {} });
    expect(await stats()).toMatchObject({ calls: 1, analyzed: 1, successSum: 0.75 });
    const histogram = (await stats())?.latencyHistogram ?? [];
    expect(histogram).toHaveLength(150); // stored without its trailing empty buckets
    expect([histogram[51], histogram[149], histogram.reduce((a, b) => a + b, 0)]).toEqual([1, 1, 2]);
  });
});
