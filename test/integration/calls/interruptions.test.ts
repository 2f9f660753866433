// Interruptions with streaming transcription (docs/calls.md, "Interruptions, backchannels and
// noise"), in a real web call: while the agent speaks, an "mhm" interrupts nothing and is not
// answered; "wait, stop" interrupts it, and what the caller heard is kept. A greeting the caller
// cuts into keeps the words played up to the cut, on a phone call (its greeting made while the
// phone rang) and on a web call, however early the cut (docs/calls.md, "Barge-in").
import { beforeAll, describe, expect, it } from "vitest";
import { BARGE_IN, finished, place } from "../../support/callees";
import { type CallView, createAgent, joinWebCall, speech, WEB_RATE, waitForCall } from "../../support/calls";
import { createWorkspace, json } from "../../support/harness";

/** The interrupted greeting: the words played up to the cut, at least one, never all of them. */
function expectHeardPart(turn: CallView["transcript"]["turns"][number] | undefined, greeting: string) {
  expect(turn, JSON.stringify(turn)).toMatchObject({ role: "agent", interrupted: true });
  const heard = turn?.text ?? "";
  expect(heard).not.toBe("");
  expect(greeting.startsWith(heard), heard).toBe(true);
  expect(heard.length).toBeLessThan(greeting.length);
}

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

describe("an interrupted greeting keeps the words played up to the cut", () => {
  it("on a phone call: the greeting made while the phone rang, cut by the callee", async () => {
    const ws = await createWorkspace();
    const agent = await createAgent(ws, { firstMessage: GREETING, endCallPhrases: ["goodbye"] });
    const placed = await place(ws, agent.id, { phoneNumber: BARGE_IN });
    const done = await waitForCall(ws, placed.id, finished, 40_000);
    expectHeardPart(done.transcript.turns[0], GREETING);
  }, 50_000);

  // A cut inside the greeting's first word keeps that word (heardBeforeCut): it used to round it down to "".
  it("on a web call: cut as soon as its first audio arrives", async () => {
    const ws = await createWorkspace();
    const agent = await createAgent(ws, { firstMessage: GREETING, silenceTimeoutSeconds: 30 });
    const { call, webCall } = await json<{ call: { id: string }; webCall: { url: string } }>(
      await ws.api(`/v1/agents/${agent.id}/web-call`, { method: "POST", json: {} }),
    );
    const stop = await speech("Wait, stop.", WEB_RATE);
    const client = await joinWebCall(webCall.url);
    const until = Date.now() + 20_000;
    while (client.audioFrames === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
    await client.say(stop, 200); // at once: the cut falls inside the greeting's first words
    await client.waitForEvent((e) => e.type === "clear", 10_000);
    client.ws.close();
    await client.closed;
    const done = await waitForCall(ws, call.id, (c) => c.status === "completed");
    expectHeardPart(done.transcript.turns[0], GREETING);
  }, 60_000);
});
