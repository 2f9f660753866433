// Replays through the real worker and the provider sandbox (docs/agent-tests.md, "Replay"): the
// sandbox's chat model echoes the caller ("You said: …") unless a rule of the system prompt says
// `When the user says "…", reply "…"`, so an unchanged version reproduces a recorded chat exactly
// and a version whose prompt adds two rules changes exactly the two turns they name.
import { describe, expect, it } from "vitest";
import { calls, type TranscriptTurn } from "../../../src/db/schema";
import { FINAL, finalRun, type TestRunView, testAgent } from "../../support/agent-tests";
import { createWorkspace, expectError, json, testDb, type Workspace } from "../../support/harness";
import { chat, createWidget, visitor } from "../../support/widgets";

interface ReplayView extends Omit<TestRunView, "testId"> {
  testId: string | null;
  replay: {
    source: { kind: "call" | "chat"; id: string };
    mode: "chat" | "voice";
    differingTurns: number | null;
    turns: Array<{ index: number; caller: string; recorded: string; replayed: string | null; differs: boolean }> | null;
  } | null;
}

const LINES = [
  "Hi there",
  "I would like to book a table",
  "For four people",
  "What are your opening hours?",
  "Tomorrow at seven",
  "My name is Ana",
  "Do you have a terrace?",
  "Can I get a refund on my deposit?",
  "Great, thanks",
  "That is all",
];

async function startReplay(ws: Workspace, agentId: string, body: unknown): Promise<ReplayView> {
  const res = await ws.api(`/v1/agents/${agentId}/replays`, { method: "POST", json: body });
  expect(res.status, await res.clone().text()).toBe(202);
  return json<ReplayView>(res);
}

const replayToEnd = async (ws: Workspace, agentId: string, body: unknown) =>
  (await finalRun(ws, agentId, (await startReplay(ws, agentId, body)).id)) as unknown as ReplayView;

const differing = (run: ReplayView) => (run.replay?.turns ?? []).filter((t) => t.differs).map((t) => t.index);

describe("a replay", () => {
  it("of a recorded 10-turn chat reports no differing turn on the same version, and exactly the turns a changed prompt changes", async () => {
    const ws = await createWorkspace();
    const agent = await testAgent(ws, {
      systemPrompt: "You take bookings for a restaurant.",
      analysisPlan: { successCriteria: ['The agent says "book a table"'] },
    });
    const { token } = await createWidget(ws, { agentId: agent.id });
    const visitorId = visitor();
    let sessionId: string | null = null;
    for (const message of LINES) sessionId = (await chat(token, { visitorId, sessionId, message })).sessionId;

    const queued = await startReplay(ws, agent.id, { chatId: sessionId });
    expect(queued).toMatchObject({ mode: "replay", testId: null, testName: null, status: "queued", agentVersion: 1 });
    expect(queued.replay).toEqual({ source: { kind: "chat", id: sessionId }, mode: "chat", differingTurns: null, turns: null });

    const same = (await finalRun(ws, agent.id, queued.id)) as unknown as ReplayView;
    expect(same.status, same.error ?? "").toBe("passed");
    expect(same.replay?.differingTurns).toBe(0);
    expect(same.replay?.turns?.map((t) => [t.index, t.caller, t.replayed])).toEqual(
      LINES.map((line, i) => [i, line, `You said: ${line}${/[.!?]$/.test(line) ? "" : "."}`]),
    );
    expect(same.results?.criteria).toEqual([{ criterion: 'The agent says "book a table"', passed: true, reason: expect.any(String) }]);

    // Version 2: two rules that change the replies to two of the caller's lines.
    const patched = await ws.api(`/v1/agents/${agent.id}`, {
      method: "PATCH",
      json: {
        systemPrompt:
          'You take bookings for a restaurant. When the user says "opening hours", reply "We open at noon." ' +
          'When the user says "refund", reply "Deposits are refunded within five days."',
      },
    });
    expect(patched.status, await patched.clone().text()).toBe(200);

    const changed = await replayToEnd(ws, agent.id, { chatId: sessionId });
    expect(changed.agentVersion).toBe(2);
    expect(changed.replay?.differingTurns).toBe(2);
    expect(differing(changed)).toEqual([3, 7]);
    expect(changed.replay?.turns?.[3]).toMatchObject({
      recorded: "You said: What are your opening hours?",
      replayed: "We open at noon.",
    });
    // The earlier version, named, still reproduces the chat.
    const earlier = await replayToEnd(ws, agent.id, {
      chatId: sessionId,
      version: 1,
      criteria: { successCriteria: ['The agent says "noon"'] },
    });
    expect(earlier).toMatchObject({ agentVersion: 1, status: "failed", replay: { differingTurns: 0 } });
    expect(earlier.results?.criteria[0]?.passed).toBe(false);

    const listed = await json<{ data: ReplayView[] }>(await ws.api(`/v1/agents/${agent.id}/test-runs?mode=replay`));
    expect(listed.data.map((r) => r.id)).toEqual([earlier.id, changed.id, same.id]);
    expect(listed.data.every((r) => FINAL.includes(r.status))).toBe(true);
  });

  it("replays a call's transcript; another agent's or another workspace's call is a 404; bad bodies are 400s", async () => {
    const ws = await createWorkspace();
    const agent = await testAgent(ws);
    const turns: TranscriptTurn[] = [
      { role: "agent", text: "Hello, Acme dental.", startMs: 0, endMs: 1_000 },
      { role: "user", text: "I need to move my cleaning", startMs: 2_000, endMs: 3_000 },
      { role: "agent", text: "You said:", startMs: 3_500, endMs: 4_000 },
      { role: "agent", text: "I need to move   my cleaning.", startMs: 4_000, endMs: 5_000 },
      { role: "user", text: "Thursday works", startMs: 6_000, endMs: 7_000 },
      { role: "agent", text: "Sorry, Thursday is full.", startMs: 7_500, endMs: 8_500 },
    ];
    const insertCall = async (organizationId: string, agentId: string) => {
      const [row] = await testDb()
        .insert(calls)
        .values({
          organizationId,
          agentId,
          agentName: "Desk",
          type: "phone",
          direction: "inbound",
          status: "completed",
          deadlineAt: new Date(Date.now() + 3_600_000),
          transcript: turns,
        })
        .returning({ id: calls.id });
      return row?.id as string;
    };
    const callId = await insertCall(ws.organizationId, agent.id);

    const run = await replayToEnd(ws, agent.id, { callId });
    expect(run.status, run.error ?? "").toBe("passed");
    // A split reply is joined; white space and case do not count; a different reply does.
    expect(run.replay).toMatchObject({ source: { kind: "call", id: callId }, differingTurns: 1 });
    expect(run.replay?.turns).toEqual([
      {
        index: 0,
        caller: "I need to move my cleaning",
        recorded: "You said: I need to move   my cleaning.",
        replayed: "You said: I need to move my cleaning.",
        differs: false,
      },
      { index: 1, caller: "Thursday works", recorded: "Sorry, Thursday is full.", replayed: "You said: Thursday works.", differs: true },
    ]);

    const other = await testAgent(ws);
    await expectError(await ws.api(`/v1/agents/${other.id}/replays`, { method: "POST", json: { callId } }), 404, "not_found");
    const theirs = await createWorkspace();
    const theirAgent = await testAgent(theirs);
    const theirCall = await insertCall(theirs.organizationId, theirAgent.id);
    await expectError(await ws.api(`/v1/agents/${agent.id}/replays`, { method: "POST", json: { callId: theirCall } }), 404, "not_found");
    await expectError(await ws.api(`/v1/agents/${agent.id}/replays`, { method: "POST", json: { chatId: callId } }), 404, "not_found");
    await expectError(await ws.api(`/v1/agents/${agent.id}/replays`, { method: "POST", json: { callId, version: 9 } }), 404, "not_found");
    await expectError(
      await ws.api(`/v1/agents/${agent.id}/replays`, { method: "POST", json: { callId, chatId: callId } }),
      400,
      "validation_failed",
    );
    await expectError(await ws.api(`/v1/agents/${agent.id}/replays`, { method: "POST", json: {} }), 400, "validation_failed");
  });
});
