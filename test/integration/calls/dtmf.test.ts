// The phone's keypad both ways (docs/calls.md, "Keypad (DTMF)"). In: the keypad callee presses
// 1 2 # (Twilio's `dtmf` stream messages), which reach the transcript as one caller turn the agent
// answers. Out: an agent with send_dtmf reaching the sandbox's IVR presses 1 (the call updated with
// <Play digits> and a new <Connect><Stream>), the IVR hears it and answers on the new stream, and the
// same call goes on to its normal end. Bad keys are refused to the model; a web call offers no keypad.
import { createHash } from "node:crypto";
import { eq } from "drizzle-orm";
import { beforeAll, describe, it } from "vitest";
import { IVR_DEPARTMENTS, IVR_MENU } from "../../../dev/sandbox/ivr";
import { calls } from "../../../src/db/schema";
import { place } from "../../support/callees";
import {
  type CallView,
  createAgent,
  joinWebCall,
  providerCallId,
  type SandboxCall,
  settledSandboxCall,
  speech,
  WEB_RATE,
  waitForCall,
} from "../../support/calls";
import { subscribedOf } from "../../support/concurrent";
import { createWorkspace, json, testDb } from "../../support/harness";

/** The IVR callee (dev/sandbox/ivr.ts): "Press 1 for appointments, 2 for billing." */
const IVR = "+12025550110";
/** The keypad callee: presses 1, 2, # once the agent's first words are over, hangs up after the answer. */
const KEYPAD = "+12025550111";

type Turn = CallView["transcript"]["turns"][number] & { dtmf?: string; tool?: Record<string, unknown> };
type KeypadSandboxCall = SandboxCall & {
  digitsPlayed: Array<{ digits: string; at: number }>;
  dtmfSent: Array<{ digit: string; at: number }>;
  ivr?: { menus: number; heard: string; choices: string[] };
};

const ended = (c: CallView) => !["queued", "ringing", "in-progress"].includes(c.status);
const turnsOf = (c: CallView) => c.transcript.turns as Turn[];

// The provider sandbox's one speech thread starts cold (see calls/happy.test.ts).
beforeAll(async () => {
  await speech("Warming up.", WEB_RATE);
}, 30_000);

describe.concurrent("the keypad on a phone call", () => {
  it("keys the caller presses close together are one caller turn, and the agent answers it", async ({ expect }) => {
    const ws = await createWorkspace();
    const agent = await createAgent(ws, { firstMessage: "Please press one, two and the pound key." });
    const placed = await place(ws, agent.id, { phoneNumber: KEYPAD });
    const done = await waitForCall(ws, placed.id, ended, 60_000);
    expect(done).toMatchObject({ status: "completed", endedReason: "customer-ended-call" });
    const turns = turnsOf(done);
    const keys = turns.findIndex((t) => t.role === "user");
    expect(turns[keys]).toMatchObject({ role: "user", text: "[keypad] 1 2 #", dtmf: "12#" });
    expect(turns.filter((t) => t.role === "user")).toHaveLength(1);
    // The agent's reply follows it: the LLM got the keys as the caller's message, and `#` ended the entry at once.
    const reply = turns[keys + 1];
    expect(reply).toMatchObject({ role: "agent", text: "You said: [keypad] 1 2 #." });
    expect(reply?.latency?.endpointingMs).toBe(0);
    expect(done.transcript.fullText).toContain("User: [keypad] 1 2 #");

    const callee = (await settledSandboxCall(await providerCallId(placed.id))) as KeypadSandboxCall;
    expect(callee.dtmfSent.map((k) => k.digit).join("")).toBe("12#");
    expect(callee.errors).toEqual([]);
  }, 90_000);

  it("send_dtmf presses a key for an IVR, which answers on the new stream; one call carries on to its end", async (ctx) => {
    const { expect } = ctx;
    const ws = await createWorkspace();
    const { receiver } = await subscribedOf(ctx, ws, { channels: ["voice"], events: ["call.started", "call.completed"] });
    const agent = await createAgent(ws, {
      systemPrompt:
        'You call the clinic to book a visit. When the user says "Press 1 for appointments", call send_dtmf with {"digits": "1"}. When the user says "How can I help", call end_call.',
      tools: [{ type: "send_dtmf" }, { type: "end_call" }],
    });
    const placed = await place(ws, agent.id, { phoneNumber: IVR });
    const done = await waitForCall(ws, placed.id, ended, 60_000);
    expect(done).toMatchObject({ status: "completed", endedReason: "agent-ended-call" });

    const turns = turnsOf(done);
    const appointments = IVR_DEPARTMENTS["1"]?.line as string;
    // Heard before and after the keys, in one transcript: the menu, the key pressed, the department's answer, the goodbye.
    const menu = turns.findIndex((t) => t.role === "user" && t.text === IVR_MENU);
    const press = turns.findIndex((t) => t.role === "tool" && t.tool?.name === "send_dtmf");
    const answer = turns.findIndex((t) => t.role === "user" && t.text === appointments);
    expect(menu, JSON.stringify(turns)).toBeGreaterThanOrEqual(0);
    expect(press).toBeGreaterThan(menu);
    expect(answer).toBeGreaterThan(press);
    expect(turns[press]?.tool).toMatchObject({ name: "send_dtmf", outcome: "ok", arguments: { digits: "1" } });
    expect(turns.slice(answer).some((t) => t.role === "tool" && t.tool?.name === "end_call")).toBe(true);

    // The carrier got <Play digits="1"/> and a new stream with a fresh token; the IVR heard 1 and chose appointments.
    const sid = await providerCallId(placed.id);
    const callee = (await settledSandboxCall(sid, 60_000)) as KeypadSandboxCall;
    expect(callee.digitsPlayed.map((d) => d.digits)).toEqual(["1"]);
    expect(callee.ivr).toMatchObject({ menus: 1, heard: "1", choices: ["appointments"] });
    const update = callee.twimlUpdates.at(-1)?.twiml ?? "";
    expect(update).toMatch(/<Play digits="1"\/><Connect><Stream url="wss?:\/\/[^"]+\/telephony\/twilio\/media\//);
    const token = /<Parameter name="token" value="([^"]+)"\/>/.exec(update)?.[1];
    // The new stream carried the update's token, which replaced the call's: the first stream's opens nothing now.
    expect(token).toBeTruthy();
    expect(callee.customParameters.token).toBe(token);
    const [row] = await testDb().select({ hash: calls.streamTokenHash }).from(calls).where(eq(calls.id, placed.id));
    expect(row?.hash).toBe(
      createHash("sha256")
        .update(token ?? "")
        .digest("hex"),
    );
    expect(callee.said.map((s) => s.text)).toEqual([IVR_MENU, appointments]);
    expect(callee.endedBy).toBe("worker");
    expect(callee.errors).toEqual([]);

    // One call: started once, completed once, its recording whole.
    await receiver.waitFor(2);
    const withRecording = await waitForCall(ws, placed.id, (c) => c.recording !== null, 30_000);
    expect(withRecording.recording?.durationSeconds).toBeGreaterThan(0);
    const events = receiver.received.map((r) => (JSON.parse(r.body) as { event: string }).event);
    expect(events.sort()).toEqual(["call.completed", "call.started"]);
  }, 90_000);

  it("refuses keys it cannot press to the model with a clear tool error, and presses nothing", async ({ expect }) => {
    const ws = await createWorkspace();
    const agent = await createAgent(ws, {
      systemPrompt: 'When the user says "Press 1 for appointments", call send_dtmf with {"digits": "one"}.',
      tools: [{ type: "send_dtmf" }],
      silenceTimeoutSeconds: 10,
    });
    const placed = await place(ws, agent.id, { phoneNumber: IVR });
    const done = await waitForCall(ws, placed.id, (c) => ended(c) || turnsOf(c).some((t) => t.role === "tool"), 60_000);
    const tool = turnsOf(done).find((t) => t.role === "tool")?.tool;
    expect(tool).toMatchObject({ name: "send_dtmf", outcome: "invalid_arguments", arguments: { digits: "one" } });
    expect(String(tool?.error)).toMatch(/only 0-9, \*, # and w/);
    // The model got the refusal as the tool's answer (the sandbox model says what a tool returned).
    const after = await waitForCall(ws, placed.id, (c) => turnsOf(c).some((t) => t.role === "agent" && /only 0-9/.test(t.text)), 30_000);
    expect(turnsOf(after).find((t) => t.role === "agent" && /only 0-9/.test(t.text))?.text).toMatch(
      /The tool send_dtmf returned: \{"error":"digits may hold only 0-9/,
    );
    await ws.api(`/v1/calls/${placed.id}/end`, { method: "POST" });
    await waitForCall(ws, placed.id, ended, 30_000);
    const callee = (await settledSandboxCall(await providerCallId(placed.id), 60_000)) as KeypadSandboxCall;
    expect(callee.digitsPlayed).toEqual([]);
    expect(callee.twimlUpdates).toEqual([]);
  }, 90_000);
});

describe("the keypad on a web call", () => {
  it("offers no send_dtmf (no phone line to press keys on)", async ({ expect }) => {
    const ws = await createWorkspace();
    const agent = await createAgent(ws, { tools: [{ type: "send_dtmf" }], silenceTimeoutSeconds: 10 });
    const res = await ws.api(`/v1/agents/${agent.id}/web-call`, { method: "POST", json: {} });
    expect(res.status).toBe(201);
    const { call, webCall } = await json<{ call: { id: string }; webCall: { url: string } }>(res);
    const client = await joinWebCall(webCall.url);
    await client.say(await speech("Please send dtmf one for me.", WEB_RATE), 1_200);
    await client.waitForEvent((e) => e.type === "transcript" && e.role === "agent" && String(e.text).endsWith("for me."), 30_000);
    await client.played();
    client.ws.send(JSON.stringify({ type: "hangup" }));
    const done = await waitForCall(ws, call.id, ended, 30_000);
    const turns = turnsOf(done);
    // The sandbox model calls every tool a message names: send_dtmf was not among the tools offered.
    expect(turns.filter((t) => t.role === "tool")).toEqual([]);
    expect(turns.find((t) => t.role === "agent")?.text).toBe("You said: Please send dtmf one for me.");
  }, 60_000);
});
