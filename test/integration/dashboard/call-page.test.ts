// A call's page over HTTP: its and its agent's ids with Copy buttons, the ended reason in words, the
// transcript's times (from the start, a button that plays the recording from there when there is
// one, and the clock), the report's success criteria and extracted data labelled (fields by name); and the live
// JSON its script follows while the call runs. The browser side: try-agent-browser.test.ts.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { type CallReport, calls, type TranscriptTurn } from "../../../src/db/schema";
import { createAgent, joinWebCall, waitForCall } from "../../support/calls";
import { createWorkspace, json, testDb } from "../../support/harness";
import { pagesAs } from "../../support/pages";

const TURNS: TranscriptTurn[] = [
  { role: "agent", text: "Hello, Acme dental.", startMs: 0, endMs: 1_500 },
  { role: "user", text: "I need to move my cleaning.", startMs: 64_250, endMs: 66_000 },
];
const REPORT: CallReport = {
  successScore: 0.5,
  criteriaResults: [
    { criterion: "The caller got a new time", passed: true, reason: "Tuesday at 3" },
    { criterion: "The caller was asked to confirm", passed: false },
  ],
  extractedData: { visit_type: "cleaning", party_size: 2, confirmed: null },
};

describe("a call's page", () => {
  it("shows the ids to copy, the ended reason in words, the turns' times, the criteria and the extracted data", async () => {
    const ws = await createWorkspace("Call page");
    const agent = await createAgent(ws, { name: "Desk" });
    const startedAt = new Date("2026-03-01T10:00:00.000Z");
    const [call] = await testDb()
      .insert(calls)
      .values({
        organizationId: ws.organizationId,
        agentId: agent.id,
        agentName: "Desk",
        type: "phone",
        direction: "outbound",
        status: "completed",
        endedReason: "silence-timeout",
        deadlineAt: new Date("2026-03-02T00:00:00Z"),
        startedAt,
        endedAt: new Date("2026-03-01T10:01:10.000Z"),
        transcript: TURNS,
        recordingKey: "recordings/x.wav",
        recordingSeconds: 70,
        report: REPORT,
      })
      .returning();
    const page = await pagesAs(ws.admin.email, ws.admin.password);
    const { status, html } = await page(`/dashboard/calls/${call?.id}`);
    expect(status).toBe(200);
    expect(html).toContain(`<code id="call-id" class="mono">${call?.id}</code>`);
    expect(html).toContain('data-copy="call-id" aria-label="Copy the call id"');
    expect(html).toContain(`<code id="agent-id" class="mono">${agent.id}</code>`);
    expect(html).toContain("Nobody spoke for the agent&#39;s silenceTimeoutSeconds.");
    expect(html).toContain('data-seek="64.25" aria-label="Play from 1:04">1:04</button>');
    expect(html).toContain('<time class="muted small" datetime="2026-03-01T10:01:04.250Z"> 10:01:04</time>');
    expect(html).toContain("<strong>Score</strong> 50% (1 of 2 met)");
    expect(html).toContain('<span class="sr">Not met:</span> The caller was asked to confirm');
    const extracted = /<dl class="extracted">[\s\S]*?<\/dl>/.exec(html)?.[0];
    expect(extracted).toMatch(
      /<dt class="mono">confirmed<\/dt><dd>—<\/dd><dt class="mono">party_size<\/dt><dd>2<\/dd><dt class="mono">visit_type<\/dt><dd>cleaning<\/dd>/,
    );
    expect(html).not.toContain("<div data-live-call="); // it has ended: nothing to follow

    // Without a recording, the times are text.
    await testDb()
      .update(calls)
      .set({ recordingKey: null })
      .where(eq(calls.id, call?.id ?? ""));
    const plain = (await page(`/dashboard/calls/${call?.id}`)).html;
    expect(plain).not.toContain('<button type="button" class="link small" data-seek=');
    expect(plain).toContain('<span class="muted small">1:04</span>');
  });

  it("follows a call in progress: the live JSON has its status and turns so far, then says it has ended", async () => {
    const ws = await createWorkspace("Call page, live");
    const agent = await createAgent(ws, { firstMessage: "Hello from the live page." });
    const created = await json<{ call: { id: string }; webCall: { url: string } }>(
      await ws.api(`/v1/agents/${agent.id}/web-call`, { method: "POST", json: {} }),
    );
    const id = created.call.id;
    const page = await pagesAs(ws.admin.email, ws.admin.password);
    expect((await page(`/dashboard/calls/${id}`)).html).toContain(`<div data-live-call="${id}">`);
    const client = await joinWebCall(created.webCall.url);
    await client.waitForEvent((e) => e.type === "transcript" && e.role === "agent");
    await client.played();
    const live = async () =>
      JSON.parse((await page(`/dashboard/calls/${id}/live`)).html) as { status: string; live: boolean; turns: unknown[] };
    await expect
      .poll(async () => (await live()).turns, { timeout: 15_000 })
      .toEqual([{ role: "agent", text: "Hello from the live page.", startMs: expect.any(Number) }]);
    expect(await live()).toMatchObject({ status: "in-progress", live: true });
    client.ws.send(JSON.stringify({ type: "hangup" }));
    await waitForCall(ws, id, (c) => c.status === "completed");
    expect(await live()).toMatchObject({ status: "completed", live: false });
  });
});
