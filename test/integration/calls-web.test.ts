// A web call end to end: the browser's socket (PCM16 16 kHz), the agent's first message, a
// caller turn recognised by the sandbox's speech-to-text, a reply, the end-call phrase, the
// call's record, and its webhooks.
import { describe, expect, it } from "vitest";
import { createAgent, joinWebCall, refusedUpgrade, speech, WEB_RATE, waitForCall } from "../calls";
import { createWorkspace, json } from "../harness";
import { startReceiver } from "../receiver";
import { createEndpoint } from "../webhooks";

describe("web calls", () => {
  it("runs a conversation over the browser socket and records it", async () => {
    const ws = await createWorkspace();
    const receiver = await startReceiver();
    try {
      await createEndpoint(ws, { url: receiver.url, channels: ["voice"] });
      const agent = await createAgent(ws, { firstMessage: "Hello {{name}}, this is the web agent.", endCallPhrases: ["goodbye"] });
      const res = await ws.api(`/v1/agents/${agent.id}/web-call`, { method: "POST", json: { variables: { name: "Ada" } } });
      expect(res.status).toBe(201);
      const { call, webCall } = await json<{ call: { id: string; status: string; type: string }; webCall: { url: string; token: string } }>(res);
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
      expect(turns.filter((t) => t.role === "user").map((t) => t.text)).toEqual(["I would like to book an appointment.", "No thanks, goodbye."]);
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
