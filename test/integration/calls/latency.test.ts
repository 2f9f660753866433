// Each agent reply's latency trace, as docs/calls.md ("Latency") promises it, read through the API
// (`GET /v1/calls/:id`, `transcript.turns[].latency`) on a completed call and in its
// `call.completed` webhook: on every reply to the caller, none on the first message (no caller
// speech before it), the parts adding up to the whole, and the call's medians over them.
import { beforeAll, describe, expect, it } from "vitest";
import { createAgent, joinWebCall, speech, WEB_RATE, waitForCall } from "../../calls";
import { receiversPerTest } from "../../deliveries";
import { createWorkspace, json } from "../../harness";

const { subscribed } = receiversPerTest();

beforeAll(async () => {
  await speech("Warming up.", WEB_RATE); // the sandbox's speech thread starts cold (see happy.test.ts)
}, 30_000);

describe("latency on each agent turn", () => {
  it("is on every reply of a completed call, in the API and in call.completed", async () => {
    const ws = await createWorkspace();
    const { receiver } = await subscribed(ws, { channels: ["voice"], events: ["call.completed"] });
    const agent = await createAgent(ws, { firstMessage: "Hello, this is the web agent." });
    const { call, webCall } = await json<{ call: { id: string }; webCall: { url: string } }>(
      await ws.api(`/v1/agents/${agent.id}/web-call`, { method: "POST", json: {} }),
    );
    // Made before the call starts: on a busy stack the sandbox's one speech thread can take longer
    // than the agent's 30 s silence timeout, which would end the call before the caller spoke.
    const line = await speech("I would like to book an appointment.", WEB_RATE);
    const client = await joinWebCall(webCall.url);
    await client.waitForEvent((e) => e.type === "mark");
    await client.played();
    await client.say(line);
    await client.waitForEvent((e) => e.type === "mark" && e.name !== "reply-1");
    await client.played();
    client.ws.close();
    await client.closed;

    const done = await waitForCall(ws, call.id, (c) => c.status === "completed");
    const turns = done.transcript.turns;
    expect(turns.map((t) => t.role)).toEqual(["agent", "user", "agent"]);
    expect(turns[0]?.latency).toBeUndefined(); // the first message: no caller speech before it
    const reply = turns[2]?.latency;
    expect(reply, JSON.stringify(turns[2])).toMatchObject({
      voiceToVoiceMs: expect.any(Number),
      sttMs: expect.any(Number),
      llmMs: expect.any(Number),
      ttsMs: expect.any(Number),
      platformMs: expect.any(Number),
    });
    const l = reply as NonNullable<typeof reply>;
    expect(l.voiceToVoiceMs).toBeGreaterThan(0);
    expect((l.endpointingMs ?? 0) + l.sttMs + l.llmMs + l.ttsMs + l.platformMs).toBe(l.voiceToVoiceMs);
    expect(done.latency).toEqual({ turns: 1, voiceToVoiceMsP50: l.voiceToVoiceMs, platformMsP50: l.platformMs });

    const [completed] = await receiver.waitFor(1);
    const sent = JSON.parse(completed?.body ?? "{}") as { transcript: { turns: Array<{ latency?: unknown }> } };
    expect(sent.transcript.turns.map((t) => t.latency)).toEqual(turns.map((t) => t.latency));
  }, 60_000);
});
