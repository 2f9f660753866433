// Voice-mode test runs through the real worker (docs/agent-tests.md, "Voice mode"): the run places a
// web call, the worker joins it as the caller and says each line through the provider sandbox's
// speech, the agent hears it through the sandbox's speech-to-text (which gives back the words the
// sandbox spoke) and answers through the whole pipeline; the call's transcript is judged and its
// per-reply trace is the run's latency. Also: a simulated caller, a recorded chat replayed through the
// voice pipeline, the calls-in-flight limit, bad input.
import { eq, or } from "drizzle-orm";
import { describe, it } from "vitest";
import { organizations, usageEvents } from "../../../src/db/schema";
import { createTest, finalVoiceRun, startRun, type TestRunView, testAgent } from "../../support/agent-tests";
import { type CallView, waitForCall } from "../../support/calls";
import { createWorkspace, expectError, json, testDb } from "../../support/harness";
import { pagesAs } from "../../support/pages";
import { chat, createWidget, visitor } from "../../support/widgets";

const voiceRuns = async (ws: Awaited<ReturnType<typeof createWorkspace>>, agentId: string, testId?: string) =>
  startRun(ws, agentId, testId, { mode: "voice" });

describe.concurrent("a voice-mode run", () => {
  it("speaks a script through a web call, is judged on what the agent heard, and reports voice-to-voice latency and the call", async ({
    expect,
  }) => {
    const ws = await createWorkspace();
    const agent = await testAgent(ws, { firstMessage: "Hello, how can I help?" });
    const lines = ["I would like to book an appointment.", "Tuesday morning works for me."];
    const good = await createTest(ws, agent.id, {
      name: "Books Tuesday",
      scenario: { kind: "script", turns: lines },
      criteria: { successCriteria: ['The agent says "Tuesday morning"'], extractionFields: [] },
    });
    const bad = await createTest(ws, agent.id, {
      name: "Offers a refund",
      scenario: { kind: "script", turns: lines },
      criteria: { successCriteria: ['The agent says "refund"'], extractionFields: [] },
    });
    const { data, batchId } = await voiceRuns(ws, agent.id);
    expect(batchId).not.toBeNull();
    expect(data.map((r) => [r.mode, r.status, r.callId])).toEqual([
      ["voice", "queued", null],
      ["voice", "queued", null],
    ]);
    const runs = await Promise.all(data.map((r) => finalVoiceRun(ws, agent.id, r.id)));
    const byTest = new Map(runs.map((r) => [r.testId, r]));
    const passed = byTest.get(good.id) as TestRunView;
    const failed = byTest.get(bad.id) as TestRunView;
    expect(passed.status, passed.error ?? "").toBe("passed");
    expect(failed.status, failed.error ?? "").toBe("failed");
    expect(failed.error).toBe('Failed: "The agent says \\"refund\\"".');
    expect(failed.results?.criteria).toEqual([
      { criterion: 'The agent says "refund"', passed: false, reason: 'The transcript never mentions "refund".' },
    ]);

    for (const run of runs) {
      // The transcript is the call's: the caller's lines as the agent's speech-to-text heard them.
      expect(run.transcript.map((t) => [t.role, t.text])).toEqual([
        ["agent", "Hello, how can I help?"],
        ["user", lines[0]],
        ["agent", `You said: ${lines[0]}`],
        ["user", lines[1]],
        ["agent", `You said: ${lines[1]}`],
      ]);
      // One voice-to-voice time per reply to the caller (the first message has none), from the call's trace.
      const latency = run.latency as NonNullable<TestRunView["latency"]>;
      expect(latency.turns).toBe(2);
      for (const ms of [latency.averageMs, latency.p50Ms, latency.p95Ms, latency.maxMs]) expect(ms).toBeGreaterThan(0);
      expect(latency.p50Ms).toBeLessThanOrEqual(latency.p95Ms as number);
      expect(latency.p95Ms).toBeLessThanOrEqual(latency.maxMs as number);

      // The call it placed: a web call of this agent at the run's version, hung up by the caller, with the same trace.
      const call = await waitForCall(ws, run.callId as string, (c) => c.analysis !== null || c.analysisError !== null);
      expect(call).toMatchObject({
        type: "web",
        status: "completed",
        endedReason: "customer-ended-call",
        agentId: agent.id,
        agentVersion: run.agentVersion,
        metadata: { agentTestRunId: run.id },
      });
      expect(run.agentVersion).toBe(1);
      const v2v = call.transcript.turns.flatMap((t) => (t.latency ? [t.latency.voiceToVoiceMs] : []));
      expect(v2v).toHaveLength(2);
      expect(latency.maxMs).toBe(Math.max(...v2v));
      expect(call.recording).not.toBeNull();

      // Its cost: the call's own (speech-to-text, the agent's LLM and speech, the analysis) plus the
      // caller's speech and the judge, each metered once.
      const usage = await testDb()
        .select()
        .from(usageEvents)
        .where(or(eq(usageEvents.chatId, run.id), eq(usageEvents.callId, call.id)));
      expect(usage.filter((u) => u.chatId === run.id).map((u) => u.modality)).toEqual(expect.arrayContaining(["tts", "chat"]));
      expect(usage.filter((u) => u.callId === call.id).map((u) => u.modality)).toEqual(expect.arrayContaining(["stt", "tts"]));
      // The run's own usage and the call's, summed when the run ended (a late settlement of the call's may land after).
      const own = usage.filter((u) => u.chatId === run.id).reduce((n, u) => n + u.costMicro, 0);
      expect(run.costMicro).toBeGreaterThan(own);
      expect(run.costMicro).toBeLessThanOrEqual(usage.reduce((n, u) => n + u.costMicro, 0));
    }
    console.log(`voice-mode runs, voice to voice (ms): ${runs.map((r) => `p50 ${r.latency?.p50Ms} p95 ${r.latency?.p95Ms}`).join("; ")}`);
    // The dashboard's run page says how it played, links the call and shows voice to voice.
    const page = await pagesAs(ws.admin.email, ws.admin.password);
    const html = (await page(`/dashboard/agents/${agent.id}/test-runs/${passed.id}`)).html;
    expect(html).toContain("Voice call");
    expect(html).toContain(`href="/dashboard/calls/${passed.callId}"`);
    expect(html).toContain(`voice to voice ${passed.latency?.p50Ms} ms at p50`);
    // Listed by mode.
    const listed = await json<{ data: TestRunView[] }>(await ws.api(`/v1/agents/${agent.id}/test-runs?mode=voice`));
    expect(listed.data.map((r) => r.id).sort()).toEqual(runs.map((r) => r.id).sort());
    expect((await json<{ data: TestRunView[] }>(await ws.api(`/v1/agents/${agent.id}/test-runs?mode=chat`))).data).toEqual([]);
  }, 120_000);

  it("with a simulated caller: its lines said one by one until the agent ends the call after the goodbye", async ({ expect }) => {
    const ws = await createWorkspace();
    const agent = await testAgent(ws);
    const test = await createTest(ws, agent.id, {
      scenario: { kind: "simulated", persona: "A regular guest.", goal: "I need a table for two. Friday at eight works. Thanks, goodbye." },
      criteria: { successCriteria: ['The agent says "Friday at eight"'], extractionFields: [] },
    });
    const { data } = await voiceRuns(ws, agent.id, test.id);
    const run = await finalVoiceRun(ws, agent.id, (data[0] as TestRunView).id);
    expect(run.status, run.error ?? "").toBe("passed");
    expect(run.transcript.filter((t) => t.role === "user").map((t) => t.text)).toEqual([
      "I need a table for two.",
      "Friday at eight works.",
      "Thanks, goodbye.",
    ]);
    expect(run.latency?.turns).toBe(3);
    const call = await waitForCall(ws, run.callId as string, (c) => c.endedReason !== null);
    expect(call).toMatchObject({ status: "completed", endedReason: "agent-ended-call" });
  }, 120_000);

  it("ends as an error with the reason when the workspace has as many calls in flight as it may", async ({ expect }) => {
    const ws = await createWorkspace();
    const agent = await testAgent(ws);
    const test = await createTest(ws, agent.id, { scenario: { kind: "script", turns: ["I would like to book an appointment."] } });
    await testDb().update(organizations).set({ maxCallsInFlight: 1 }).where(eq(organizations.id, ws.organizationId));
    const held = await json<{ call: CallView }>(await ws.api(`/v1/agents/${agent.id}/web-call`, { method: "POST", json: {} }));
    try {
      const { data } = await voiceRuns(ws, agent.id, test.id);
      const run = await finalVoiceRun(ws, agent.id, (data[0] as TestRunView).id);
      expect(run).toMatchObject({ status: "error", callId: null, transcript: [], results: null, latency: null });
      expect(run.error).toMatch(/as many calls in flight as it may/);
    } finally {
      await ws.api(`/v1/calls/${held.call.id}/end`, { method: "POST" });
    }
  });

  it("replays a recorded chat through the voice pipeline: the caller turns spoken, exactly the turns a changed prompt changes differ", async ({
    expect,
  }) => {
    const ws = await createWorkspace();
    const agent = await testAgent(ws);
    const { token } = await createWidget(ws, { agentId: agent.id });
    const lines = ["I would like to book a table.", "What are your opening hours?", "That is all for now."];
    const visitorId = visitor();
    let sessionId: string | null = null;
    for (const message of lines) sessionId = (await chat(token, { visitorId, sessionId, message })).sessionId;
    const patched = await ws.api(`/v1/agents/${agent.id}`, {
      method: "PATCH",
      json: { systemPrompt: 'When the user says "opening hours", reply "We open at noon."' },
    });
    expect(patched.status, await patched.clone().text()).toBe(200);

    const res = await ws.api(`/v1/agents/${agent.id}/replays`, { method: "POST", json: { chatId: sessionId, mode: "voice" } });
    expect(res.status, await res.clone().text()).toBe(202);
    const queued = await json<TestRunView & { replay: { mode: string } }>(res);
    expect(queued).toMatchObject({ mode: "replay", agentVersion: 2, replay: { mode: "voice", source: { kind: "chat", id: sessionId } } });
    type Replayed = TestRunView & {
      replay: {
        mode: string;
        differingTurns: number;
        turns: Array<{ caller: string; recorded: string; replayed: string | null; differs: boolean }>;
      };
    };
    const run = (await finalVoiceRun(ws, agent.id, queued.id)) as Replayed;
    expect(run.status, run.error ?? "").toBe("passed");
    expect(run.replay.differingTurns).toBe(1);
    expect(run.replay.turns.map((t) => [t.caller, t.replayed, t.differs])).toEqual([
      [lines[0], `You said: ${lines[0]}`, false],
      [lines[1], "We open at noon.", true],
      [lines[2], `You said: ${lines[2]}`, false],
    ]);
    // Spoken and heard: the new call's transcript, its voice to voice per reply.
    expect(run.transcript.filter((t) => t.role === "user").map((t) => t.text)).toEqual(lines);
    expect(run.latency?.turns).toBe(3);
    const call = await waitForCall(ws, run.callId as string, (c) => c.endedReason !== null);
    expect(call).toMatchObject({ type: "web", agentVersion: 2, metadata: { agentTestRunId: run.id } });
  }, 120_000);

  it("is asked for with a mode the API knows: anything else is a 400", async ({ expect }) => {
    const ws = await createWorkspace();
    const agent = await testAgent(ws);
    const test = await createTest(ws, agent.id, { scenario: { kind: "script", turns: ["Hi there, how are you?"] } });
    for (const path of [`/v1/agents/${agent.id}/tests/${test.id}/runs`, `/v1/agents/${agent.id}/tests/runs`]) {
      const body = await expectError(await ws.api(path, { method: "POST", json: { mode: "video" } }), 400, "validation_failed");
      expect(JSON.stringify(body.issues)).toContain("mode");
    }
    await expectError(await ws.api(`/v1/agents/${agent.id}/test-runs?mode=video`), 400, "validation_failed");
    await expectError(
      await ws.api(`/v1/agents/${agent.id}/replays`, { method: "POST", json: { chatId: crypto.randomUUID(), mode: "video" } }),
      400,
      "validation_failed",
    );
    expect((await json<{ data: unknown[] }>(await ws.api(`/v1/agents/${agent.id}/test-runs`))).data).toEqual([]);
  });
});
