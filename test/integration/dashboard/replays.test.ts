// Replays in the dashboard over HTTP (docs/dashboard.md, "Agent tests"): "Replay against a version"
// on a chat's page and a call's page, the replay's page (the turns side by side, the differing ones
// highlighted and counted, then the criteria; its live JSON while it plays), the Tests page's list
// of replays; refusals told on the conversation's page; CSRF; another workspace's call, chat or
// replay as the 404 page. The sandbox's chat model echoes the caller ("You said: …") unless a rule
// of the prompt says `When the user says "…", reply "…"` (docs/sandbox.md).
import { describe, expect, it } from "vitest";
import { calls, type TranscriptTurn } from "../../../src/db/schema";
import { testAgent } from "../../support/agent-tests";
import { createWorkspace, request, signIn, testDb, type Workspace } from "../../support/harness";
import { pagesAs } from "../../support/pages";
import { chat, createWidget, visitor } from "../../support/widgets";

const LINES = ["Hi there", "What are your opening hours?", "Thanks, bye"];

/** A chat of the agent through its widget, one message per line; its id. */
async function chatWith(ws: Workspace, agentId: string, lines: string[]): Promise<string> {
  const { token } = await createWidget(ws, { agentId });
  const visitorId = visitor();
  let sessionId: string | null = null;
  for (const message of lines) sessionId = (await chat(token, { visitorId, sessionId, message })).sessionId;
  return sessionId as string;
}

/** A call of the agent that ended, with this transcript (as a call's pipeline writes one). */
async function endedCall(ws: Workspace, agentId: string, transcript: TranscriptTurn[]): Promise<string> {
  const [row] = await testDb()
    .insert(calls)
    .values({
      organizationId: ws.organizationId,
      agentId,
      agentName: "Desk",
      agentVersion: 1,
      type: "web",
      direction: "inbound",
      status: "completed",
      deadlineAt: new Date(Date.now() + 3_600_000),
      transcript,
    })
    .returning({ id: calls.id });
  return row?.id as string;
}

const runIdOf = (location: string | null) => /\/test-runs\/([0-9a-f-]{36})$/.exec(location ?? "")?.[1] as string;

describe("replays in the dashboard", () => {
  it("replays a chat against a draft from its page, shows the turns side by side and lists the replay on the Tests page", async () => {
    const ws = await createWorkspace("Replay a chat");
    const page = await pagesAs(ws.admin.email, ws.admin.password);
    const agent = await testAgent(ws, { analysisPlan: { successCriteria: ['The agent says "noon"'] } });
    const chatId = await chatWith(ws, agent.id, LINES);
    const draft = await ws.api(`/v1/agents/${agent.id}?draft=true`, {
      method: "PATCH",
      json: { systemPrompt: 'When the user says "opening hours", reply "We open at noon."' },
    });
    expect(draft.status).toBe(200);

    const chatPage = (await page(`/dashboard/chats/${chatId}`)).html;
    expect(chatPage).toContain(`action="/dashboard/chats/${chatId}/replay"`);
    expect(chatPage).toMatch(/<option value="1" selected="">Version 1 \(live\), the one this chat ran with<\/option>/);
    expect(chatPage).toContain('<option value="2">Version 2 (draft)</option>');

    const started = await page(`/dashboard/chats/${chatId}/replay`, { version: "2" });
    expect(started.status).toBe(303);
    const runId = runIdOf(started.location);
    const runPath = `/dashboard/agents/${agent.id}/test-runs/${runId}`;
    expect(started.location).toBe(runPath);

    // Followed while it plays (the page's script reads this), then drawn whole.
    await expect.poll(async () => JSON.parse((await page(`${runPath}/live`)).html).active).toBe(false);
    expect(JSON.parse((await page(`${runPath}/live`)).html)).toEqual({ status: "passed", tone: "good", active: false });
    const replay = (await page(runPath)).html;
    expect(replay).toContain('data-active=""');
    expect(replay).toContain(`<a href="/dashboard/chats/${chatId}">a chat</a>`);
    expect(replay).toContain("Version 2");
    expect(replay).toContain("<strong>1 of 3 turns differs</strong>");
    const rows = [...replay.matchAll(/<tr( class="differs")?><td[^>]*>(\d)/g)].map((m) => [m[2], Boolean(m[1])]);
    expect(rows).toEqual([
      ["1", false],
      ["2", true],
      ["3", false],
    ]);
    expect(replay).toContain("You said: What are your opening hours?");
    expect(replay).toContain("We open at noon.");
    expect(replay).toContain("The agent says &quot;noon&quot;");
    expect(replay).toContain('<span class="badge good">passed</span>');

    // The Tests page lists it (and its script's JSON follows it).
    const tests = (await page(`/dashboard/agents/${agent.id}/tests`)).html;
    expect(tests).toContain(`href="${runPath}"`);
    expect(tests).toContain(`<a href="/dashboard/chats/${chatId}">a chat</a>`);
    expect(tests).toContain("1 of 3 turns differs");
    expect(tests).toContain(`data-cell="replay:${runId}" data-status="passed"`);
    const live = JSON.parse((await page(`/dashboard/agents/${agent.id}/tests/live`)).html);
    expect(live).toMatchObject({ active: false, replays: [{ runId, status: "passed", tone: "good" }] });
  });

  it("replays an ended call against the live version (no differing turn); refusals are told on the call's page", async () => {
    const ws = await createWorkspace("Replay a call");
    const page = await pagesAs(ws.admin.email, ws.admin.password);
    const agent = await testAgent(ws);
    const callId = await endedCall(ws, agent.id, [
      { role: "agent", text: "Hello, Acme dental.", startMs: 0, endMs: 1_000 },
      { role: "user", text: "I need to move my cleaning", startMs: 2_000, endMs: 3_000 },
      { role: "agent", text: "You said: I need to move my cleaning.", startMs: 3_500, endMs: 4_500 },
    ]);
    const callPage = (await page(`/dashboard/calls/${callId}`)).html;
    expect(callPage).toContain(`action="/dashboard/calls/${callId}/replay"`);
    expect(callPage).toContain("Version 1 (live), the one this call ran with");

    const started = await page(`/dashboard/calls/${callId}/replay`, { version: "" });
    expect(started.status).toBe(303);
    const runPath = `/dashboard/agents/${agent.id}/test-runs/${runIdOf(started.location)}`;
    await expect.poll(async () => JSON.parse((await page(`${runPath}/live`)).html).active).toBe(false);
    const replay = (await page(runPath)).html;
    expect(replay).toContain("0 of 1 turn differ</strong>: every reply is the same as the recorded one");
    expect(replay).not.toContain('class="differs"');
    expect(replay).toContain(`<a href="/dashboard/calls/${callId}">a call</a>`);

    // A version that is no number, one the agent lacks: told on the call's page.
    const notNumber = await page(`/dashboard/calls/${callId}/replay`, { version: "latest" });
    expect(notNumber.status).toBe(400);
    expect(notNumber.html).toContain("Invalid form: version");
    expect(notNumber.html).toContain(`action="/dashboard/calls/${callId}/replay"`);
    const unknown = await page(`/dashboard/calls/${callId}/replay`, { version: "9" });
    expect(unknown.status).toBe(404);
    expect(unknown.html).toContain("This agent has no version 9.");

    // A call with no caller turn: no form, and a post is refused on its page.
    const silent = await endedCall(ws, agent.id, [{ role: "agent", text: "Hello?", startMs: 0, endMs: 1_000 }]);
    expect((await page(`/dashboard/calls/${silent}`)).html).not.toContain("Replay against a version");
    const refused = await page(`/dashboard/calls/${silent}/replay`, { version: "" });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain("The call has no caller turns to replay.");
  });

  it("needs the CSRF token, and is the 404 page for another workspace's call, chat or replay", async () => {
    const owner = await createWorkspace("Replay owner");
    const agent = await testAgent(owner);
    const chatId = await chatWith(owner, agent.id, ["Hello"]);
    const callId = await endedCall(owner, agent.id, [{ role: "user", text: "Hello", startMs: 0, endMs: 1_000 }]);
    const mine = await pagesAs(owner.admin.email, owner.admin.password);
    const started = await mine(`/dashboard/chats/${chatId}/replay`, { version: "" });
    const runPath = `/dashboard/agents/${agent.id}/test-runs/${runIdOf(started.location)}`;

    const { cookie } = await signIn(owner.admin.email, owner.admin.password);
    const noToken = await request(`/dashboard/calls/${callId}/replay`, {
      method: "POST",
      headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ version: "" }),
    });
    expect(noToken.status).toBe(403);

    const other = await createWorkspace("Replay stranger");
    const theirs = await pagesAs(other.admin.email, other.admin.password);
    expect((await theirs(`/dashboard/calls/${callId}/replay`, { version: "" })).status).toBe(404);
    expect((await theirs(`/dashboard/chats/${chatId}/replay`, { version: "" })).status).toBe(404);
    expect((await theirs(runPath)).status).toBe(404);
    expect((await theirs(`${runPath}/live`)).status).toBe(404);
    // Nothing was started on the owner's behalf: their one replay only.
    const listed = await owner.api(`/v1/agents/${agent.id}/test-runs?mode=replay`);
    expect(((await listed.json()) as { data: unknown[] }).data).toHaveLength(1);
  });
});
