// The Usage screen over HTTP: its range (7, 30 or 90 days; anything else is 30), the request log
// paged ("Older requests", the range kept), and each row linked to the call or chat it was for (an
// API request is for the API). The charts and the empty page: browser.test.ts, pages-browser.test.ts.
import { describe, expect, it } from "vitest";
import { calls, usageEvents } from "../../../src/db/schema";
import { idAt } from "../../../src/lib/ids";
import { createAgent } from "../../support/calls";
import { createWorkspace, testDb } from "../../support/harness";
import { pagesAs } from "../../support/pages";

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
});
