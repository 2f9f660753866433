// A web call end to end: the browser's socket (PCM16 16 kHz), the agent's first message, a
// caller turn recognised by the sandbox's speech-to-text, a reply, the end-call phrase, the
// call's record, and its webhooks.
import { describe, expect, it } from "vitest";
import { createAgent, joinWebCall, refusedUpgrade, speech, WEB_RATE, waitForCall } from "../../calls";
import { createWorkspace, json } from "../../harness";
import { startReceiver } from "../../receiver";
import { createEndpoint } from "../../webhooks";

describe("web calls", () => {
  it("runs a conversation over the browser socket and records it", async () => {
    const ws = await createWorkspace();
    const receiver = await startReceiver();
    try {
      await createEndpoint(ws, { url: receiver.url, channels: ["voice"] });
      const agent = await createAgent(ws, { firstMessage: "Hello {{name}}, this is the web agent.", endCallPhrases: ["goodbye"] });
      const res = await ws.api(`/v1/agents/${agent.id}/web-call`, { method: "POST", json: { variables: { name: "Ada" } } });
      expect(res.status).toBe(201);
      const { call, webCall } = await json<{ call: { id: string; status: string; type: string }; webCall: { url: string; token: string } }>(
        res,
      );
      expect(call).toMatchObject({ status: "queued", type: "web" });

      const client = await joinWebCall(webCall.url);
      await client.waitForEvent((e) => e.type === "status" && e.status === "in-progress");
      await client.waitForEvent((e) => e.type === "transcript" && e.role === "agent");
      await client.waitForEvent((e) => e.type === "mark");
      await client.played();
      await client.say(await speech("I would like to book an appointment.", WEB_RATE));
      await client.waitForEvent((e) => e.type === "transcript" && e.role === "user");
      await client.waitForEvent((e) => e.type === "mark" && e.name !== "turn-0");
      await client.played();
      await client.say(await speech("No thanks, goodbye.", WEB_RATE));
      const ended = await client.waitForEvent((e) => e.type === "ended");
      expect(ended.reason).toBe("agent-ended-call");
      await client.closed;

      const done = await waitForCall(ws, call.id, (c) => c.analysis !== null || c.analysisError !== null);
      expect(done).toMatchObject({ status: "completed", endedReason: "agent-ended-call", endedReasonCategory: "none" });
      const turns = done.transcript.turns;
      expect(turns[0]).toMatchObject({ role: "agent", text: "Hello Ada, this is the web agent." });
      expect(turns.filter((t) => t.role === "user").map((t) => t.text)).toEqual([
        "I would like to book an appointment.",
        "No thanks, goodbye.",
      ]);
      expect(turns.at(-1)?.role).toBe("agent");
      expect(turns.at(-1)?.text.toLowerCase()).toContain("goodbye");
      expect(done.cost.stt.quantity).toBeGreaterThan(0);
      expect(done.cost.llm.quantity).toBeGreaterThan(0);
      expect(done.cost.tts.quantity).toBeGreaterThan(0);
      expect(done.latency?.turns).toBe(2);
      expect(done.analysisError).toBeNull();

      const events = (await receiver.waitFor(3)).map((r) => JSON.parse(r.body).event);
      expect(events).toEqual(["call.started", "call.completed", "call.analyzed"]);

      // The token worked once.
      expect(await refusedUpgrade(webCall.url)).toMatchObject({ status: 401, body: { code: "unauthorized" } });
    } finally {
      await receiver.stop();
    }
  }, 90_000);
});

describe("web calls: how they end", () => {
  it("ends by the silence timeout when nobody speaks", async () => {
    const ws = await createWorkspace();
    const agent = await createAgent(ws, { silenceTimeoutSeconds: 5 });
    const { call, webCall } = await json<{ call: { id: string }; webCall: { url: string } }>(
      await ws.api(`/v1/agents/${agent.id}/web-call`, { method: "POST", json: {} }),
    );
    const client = await joinWebCall(webCall.url);
    const started = Date.now();
    const silence = client.silence(9_000);
    const ended = await client.waitForEvent((e) => e.type === "ended", 15_000);
    expect(ended.reason).toBe("silence-timeout");
    expect(Date.now() - started).toBeGreaterThanOrEqual(4_800);
    expect(Date.now() - started).toBeLessThan(8_000);
    await silence;
    const done = await waitForCall(ws, call.id, (c) => c.status !== "in-progress");
    expect(done).toMatchObject({ status: "completed", endedReason: "silence-timeout", transcript: { turns: [] } });
  }, 30_000);

  it("ends at the agent's max duration while the caller keeps talking", async () => {
    const ws = await createWorkspace();
    const agent = await createAgent(ws, { maxDurationSeconds: 10, silenceTimeoutSeconds: 60 });
    const { call, webCall } = await json<{ call: { id: string }; webCall: { url: string } }>(
      await ws.api(`/v1/agents/${agent.id}/web-call`, { method: "POST", json: {} }),
    );
    const client = await joinWebCall(webCall.url);
    const line = await speech("Let me tell you a very long story about my week.", WEB_RATE);
    const talking = (async () => {
      while (client.ws.readyState === client.ws.OPEN) await client.say(line, 300);
    })();
    const ended = await client.waitForEvent((e) => e.type === "ended", 20_000);
    expect(ended.reason).toBe("max-duration-reached");
    await talking;
    const done = await waitForCall(ws, call.id, (c) => c.status !== "in-progress");
    expect(done.status).toBe("completed");
    expect(done.durationSeconds).toBeGreaterThanOrEqual(9.5);
    expect(done.durationSeconds).toBeLessThan(12);
  }, 40_000);

  it("fails the call when the agent's LLM fails mid-call, charging only what succeeded", async () => {
    const ws = await createWorkspace();
    const receiver = await startReceiver();
    try {
      await createEndpoint(ws, { url: receiver.url, channels: ["voice"] });
      const agent = await createAgent(ws, { llmModel: "fault-500" });
      const { call, webCall } = await json<{ call: { id: string }; webCall: { url: string } }>(
        await ws.api(`/v1/agents/${agent.id}/web-call`, { method: "POST", json: {} }),
      );
      const client = await joinWebCall(webCall.url);
      await client.say(await speech("Hello, is anyone there?", WEB_RATE));
      const ended = await client.waitForEvent((e) => e.type === "ended", 20_000);
      expect(ended.reason).toBe("llm-provider-error");
      const done = await waitForCall(ws, call.id, (c) => c.status !== "in-progress");
      expect(done).toMatchObject({ status: "failed", endedReason: "llm-provider-error", endedReasonCategory: "provider" });
      expect(done.transcript.turns.map((t) => t.role)).toEqual(["user"]);
      expect(done.cost.stt.credits).toBeGreaterThan(0);
      expect(done.cost.llm.credits).toBe(0);
      const events = (await receiver.waitFor(2)).map((r) => JSON.parse(r.body).event);
      expect(events.slice(0, 2)).toEqual(["call.started", "call.failed"]);
    } finally {
      await receiver.stop();
    }
  }, 40_000);

  it("refuses a wrong token, and the watchdog cancels a web call nobody joined", async () => {
    const ws = await createWorkspace();
    const receiver = await startReceiver();
    try {
      await createEndpoint(ws, { url: receiver.url, channels: ["voice"] });
      const agent = await createAgent(ws);
      const { call, webCall } = await json<{ call: { id: string }; webCall: { url: string; token: string } }>(
        await ws.api(`/v1/agents/${agent.id}/web-call`, { method: "POST", json: {} }),
      );
      const wrong = webCall.url.replace(webCall.token, `${webCall.token.slice(0, -1)}x`);
      expect(await refusedUpgrade(wrong)).toMatchObject({ status: 401, body: { code: "unauthorized" } });
      expect(await refusedUpgrade(webCall.url.replace(/\?token=.*/, ""))).toMatchObject({ status: 401 });
      // Token lifetime 10 s + watchdog slack 5 s in the test stack (test/setup/stack.ts).
      const done = await waitForCall(ws, call.id, (c) => c.status !== "queued", 30_000);
      expect(done).toMatchObject({ status: "canceled", endedReason: "web-call-not-joined" });
      expect(await refusedUpgrade(webCall.url)).toMatchObject({ status: 401 });
      const [event] = await receiver.waitFor(1);
      expect(JSON.parse(event?.body ?? "{}")).toMatchObject({ event: "call.failed", call: { id: call.id, status: "canceled" } });
    } finally {
      await receiver.stop();
    }
  }, 45_000);
});
