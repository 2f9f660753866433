// Interruptions with streaming transcription (docs/calls.md, "Interruptions, backchannels and
// noise"), in a real web call: while the agent speaks, an "mhm" interrupts nothing and is not
// answered; "wait, stop" interrupts it, and what the caller heard is kept.
import { beforeAll, describe, expect, it } from "vitest";
import { createAgent, joinWebCall, speech, WEB_RATE, waitForCall } from "../../calls";
import { createWorkspace, json } from "../../harness";

const GREETING =
  "Hello, thank you for calling Acme Dental. We are open from nine to five every weekday, on Saturday mornings from nine to twelve, and we take walk-ins on Wednesdays.";

beforeAll(async () => {
  await speech("Warming up.", WEB_RATE); // the sandbox's speech thread starts cold
}, 30_000);

describe("interruptions (streaming transcription)", () => {
  it("a backchannel over the agent stops nothing and is not a turn; a real interruption stops it", async () => {
    const ws = await createWorkspace();
    const agent = await createAgent(ws, { firstMessage: GREETING, silenceTimeoutSeconds: 30 });
    const { call, webCall } = await json<{ call: { id: string }; webCall: { url: string } }>(
      await ws.api(`/v1/agents/${agent.id}/web-call`, { method: "POST", json: {} }),
    );
    const [mhm, stop] = await Promise.all([speech("Mhm.", WEB_RATE), speech("Wait, stop.", WEB_RATE)]);
    const client = await joinWebCall(webCall.url);
    await client.waitForEvent((e) => e.type === "status" && e.status === "in-progress");
    await client.waitForEvent((e) => e.type === "transcript" && e.role === "agent"); // the greeting is playing (about 10 s of it)
    await client.say(mhm, 1_500); // "mhm", then a second and a half of silence while the agent goes on
    expect(client.events.filter((e) => e.type === "clear")).toEqual([]);
    await client.say(stop, 200);
    const clear = await client.waitForEvent((e) => e.type === "clear", 10_000);
    expect(clear).toBeDefined();
    client.ws.close();
    await client.closed;

    const done = await waitForCall(ws, call.id, (c) => c.status === "completed");
    const turns = done.transcript.turns;
    expect(turns[0]).toMatchObject({ role: "agent", interrupted: true });
    expect(GREETING.startsWith(turns[0]?.text ?? "")).toBe(true);
    expect(turns[0]?.text.length).toBeLessThan(GREETING.length);
    // "Mhm" was never a turn; "Wait, stop." is the caller's (answered or kept as the last words).
    expect(turns.filter((t) => t.role === "user").map((t) => t.text)).not.toContain("Mhm.");
    expect(turns.some((t) => t.role === "user" && /wait/i.test(t.text))).toBe(true);
  }, 60_000);
});
