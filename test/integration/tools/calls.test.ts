// Tools in live calls (docs/tools.md), through the real worker, the telephony sandbox's callee
// (whose lines name the tools it wants: the chat sandbox calls every tool a message names) and a
// local tool server that verifies each request with the webhook verifier of docs/webhooks.md:
// a phone call whose agent looks up an order (its answer in what the agent says next), meets a tool
// that times out and one that answers 500 (both spoken about and recorded), and ends the call with
// end_call; a web call that does the same over the browser's socket; transfer_call handing a phone
// call on through the carrier (Twilio <Dial>), recorded on the call, ending it `transferred`.
import { randomUUID } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, it, type TestContext } from "vitest";
import { usageEvents } from "../../../src/db/schema";
import { BUSY, place, SILENT, TOOLS_CALLEE, TRANSFER_CALLEE } from "../../support/callees";
import {
  type CallView,
  createAgent,
  joinWebCall,
  postTwilioForm,
  providerCallId,
  settledSandboxCall,
  speech,
  twilioSign,
  WEB_RATE,
  waitForCall,
} from "../../support/calls";
import { subscribedOf, toolServerOf } from "../../support/concurrent";
import { createWorkspace, expectError, json, stack, testDb, type Workspace } from "../../support/harness";
import { agentWithTools } from "../../support/tools";

// The provider sandbox's one speech thread starts cold (see calls/happy.test.ts).
beforeAll(async () => {
  await speech("Warming up.", WEB_RATE);
}, 30_000);

// The calls run side by side (describe.concurrent): each test has its own workspace, tool server
// and receiver (both stopped when that test finishes), and most of a call is real-time audio.

type Turn = CallView["transcript"]["turns"][number] & { tool?: Record<string, unknown> };
type ToolCallView = CallView & {
  toolCallCount: number;
  transfer: { number: string; name: string | null; at: string; outcome: string | null; connectedSeconds: number | null } | null;
};

/** A workspace, its tool server (stopped when the test of `ctx` finishes) and an agent with its tools. */
async function setup(ctx: Pick<TestContext, "expect" | "onTestFinished">, extra: Record<string, unknown> = {}) {
  const ws = await createWorkspace();
  const server = await toolServerOf(ctx);
  const res = await ws.api("/v1/agents", {
    method: "POST",
    json: agentWithTools(server.url, { llmModel: "sandbox-chat", firstMessage: "Hello, this is the order desk.", ...extra }),
  });
  ctx.expect(res.status, await res.clone().text()).toBe(201);
  const agent = await json<{ id: string; name: string; toolSecret: string }>(res);
  server.secret = agent.toolSecret;
  return { ws, server, agent };
}

const toolsOf = (turns: Turn[]) => turns.filter((t) => t.role === "tool").map((t) => t.tool as Record<string, unknown>);
const ended = (c: CallView) => !["queued", "ringing", "in-progress"].includes(c.status);

/** The call's usage rows of one modality (every model round of a tool turn is one chat row). */
async function usageOf(ws: Workspace, callId: string, modality: "chat" | "stt" | "tts") {
  return testDb()
    .select()
    .from(usageEvents)
    .where(and(eq(usageEvents.organizationId, ws.organizationId), eq(usageEvents.callId, callId), eq(usageEvents.modality, modality)));
}

describe.concurrent("a phone call with tools", () => {
  it("calls the caller's tool signed and says its answer; a timeout and a 500 are spoken about; end_call hangs up", async (ctx) => {
    const { expect } = ctx;
    const { ws, server, agent } = await setup(ctx);
    const { receiver } = await subscribedOf(ctx, ws, { channels: ["voice"], events: ["call.completed"] });
    const placed = await place(ws, agent.id, { phoneNumber: TOOLS_CALLEE });
    const sid = await providerCallId(placed.id);
    const callee = await settledSandboxCall(sid, 90_000);
    expect(callee.endedBy).toBe("worker"); // the agent hung up (end_call), not the callee

    const analysed = (c: CallView) => ended(c) && (c.analysis !== null || c.analysisError !== null);
    const done = (await waitForCall(ws, placed.id, analysed, 30_000)) as ToolCallView;
    expect(done).toMatchObject({ status: "completed", endedReason: "agent-ended-call", endedReasonCategory: "none", transfer: null });

    // The tool server got the lookup, signed like a webhook and verified by the webhook verifier,
    // for this call; then the slow and the broken tool, in parallel.
    const lookup = server.requests.find((r) => r.path === "/order");
    expect(lookup?.verified).toBe(true);
    expect(lookup?.json).toMatchObject({
      event: "tool.call",
      toolCall: { name: "lookup_order", arguments: { orderId: expect.any(String) } },
      call: { id: placed.id },
      chat: null,
      agent: { id: agent.id, name: "Order desk" },
    });
    expect(server.requests.map((r) => r.path).sort()).toEqual(["/boom", "/order", "/slow"]);
    const slow = server.requests.find((r) => r.path === "/slow");
    const boom = server.requests.find((r) => r.path === "/boom");
    expect(Math.abs((slow?.receivedAt ?? 0) - (boom?.receivedAt ?? 0))).toBeLessThan(900); // in parallel, not one after the other

    // The transcript: the tool's start message, the tool turn, then the answer built from its JSON.
    const turns = done.transcript.turns as Turn[];
    const at = turns.findIndex((t) => t.role === "tool" && t.tool?.name === "lookup_order");
    expect(turns[at - 1]).toMatchObject({ role: "agent", text: "One moment, let me check." });
    expect(turns[at - 2]).toMatchObject({ role: "user", text: expect.stringMatching(/lookup order forty two/i) });
    expect(turns[at + 1]?.role).toBe("agent");
    expect(turns[at + 1]?.text).toMatch(/^The tool lookup_order returned: \{"status":"shipped","carrier":"Parcelo"/);

    // Each outcome recorded, with its latency; failures spoken (the default message: these tools have none).
    const tools = toolsOf(turns);
    expect(tools.map((t) => t.name)).toEqual(["lookup_order", "slow_tool", "broken_tool", "end_call"]);
    expect(tools.find((t) => t.name === "lookup_order")).toMatchObject({
      outcome: "ok",
      statusCode: 200,
      result: expect.stringContaining("shipped"),
    });
    expect(tools.find((t) => t.name === "slow_tool")).toMatchObject({ outcome: "timeout", statusCode: null });
    expect(tools.find((t) => t.name === "broken_tool")).toMatchObject({ outcome: "http_error", statusCode: 500 });
    expect(tools.find((t) => t.name === "end_call")).toMatchObject({ outcome: "ok" });
    for (const t of tools) expect(t.latencyMs).toEqual(expect.any(Number));
    expect(tools.find((t) => t.name === "slow_tool")?.latencyMs).toBeGreaterThanOrEqual(900);
    const failedAt = turns.findIndex((t) => t.tool?.name === "broken_tool");
    expect(turns.slice(failedAt + 1).find((t) => t.role === "agent")?.text).toMatch(
      /^Sorry, something went wrong on my side while checking that\./,
    );
    expect(done.toolCallCount).toBe(4);
    // end_call: the agent's goodbye is its last words, then the line was hung up.
    expect(turns.filter((t) => t.role === "agent").at(-1)?.text).toBe("Thanks for chatting, goodbye!");
    expect(done.transcript.fullText).toContain("Tool: lookup_order: ok (");

    // Every model round is metered to the call: a turn whose tools ran is two LLM requests (the
    // call, then the answer with the results); end_call's turn is one; then the post-call analysis.
    const chats = await usageOf(ws, placed.id, "chat");
    const callerTurns = turns.filter((t) => t.role === "user").length;
    expect(chats.length).toBe(callerTurns + 2 + 1);
    expect(done.cost.llm.quantity).toBe(chats.reduce((n, u) => n + Number(u.quantity), 0));

    // The webhook carries the tool turns' summary, not their arguments or results.
    const [event] = await receiver.waitFor(1);
    const body = JSON.parse(event?.body ?? "{}");
    const hooked = body.transcript.turns.filter((t: { role: string }) => t.role === "tool");
    expect(hooked.map((t: { tool: { name: string } }) => t.tool.name)).toEqual(tools.map((t) => t.name));
    expect(Object.keys(hooked[0].tool).sort()).toEqual(["latencyMs", "name", "outcome", "statusCode"]);
  }, 120_000);
});

describe.concurrent("transfer_call on a phone call", () => {
  it("hands the caller on through the carrier after its message, records where, ends transferred", async (ctx) => {
    const { expect } = ctx;
    const { ws, agent } = await setup(ctx, {
      tools: [
        {
          type: "transfer_call",
          destinations: [
            { number: "+14155550100", name: "billing", description: "Invoices and refunds.", message: "Transferring you to billing now." },
            { number: "+14155550111", name: "support", description: "Everything else." },
          ],
        },
      ],
    });
    const { receiver } = await subscribedOf(ctx, ws, { channels: ["voice"], events: ["call.completed"] });
    const placed = await place(ws, agent.id, { phoneNumber: TRANSFER_CALLEE });
    const done = (await waitForCall(ws, placed.id, ended, 60_000)) as ToolCallView;
    expect(done).toMatchObject({ status: "completed", endedReason: "transferred", endedReasonCategory: "none" });
    expect(done.transfer).toMatchObject({ number: "+14155550100", name: "billing", at: expect.any(String) });
    const turns = done.transcript.turns as Turn[];
    expect(toolsOf(turns)).toEqual([
      expect.objectContaining({ name: "transfer_call", outcome: "ok", arguments: { destination: "billing" } }),
    ]);
    expect(turns.filter((t) => t.role === "agent").at(-1)?.text).toBe("Transferring you to billing now.");

    // The carrier got a <Dial> to billing from the call's number, and answered that leg.
    const sid = await providerCallId(placed.id);
    const callee = await settledSandboxCall(sid, 60_000);
    expect(callee.transfer).toMatchObject({ to: "+14155550100", callerId: done.fromNumber, outcome: "completed" });
    expect(callee.transfer?.answeredAt).toEqual(expect.any(Number));
    // The <Dial action>: the leg was answered, so the call just hangs up, and the call records it.
    expect(callee.platformSaid).toEqual([]);
    expect(callee.endedBy).toBe("twiml-ended");
    const after = (await waitForCall(ws, placed.id, (c) => (c as ToolCallView).transfer?.outcome != null, 30_000)) as ToolCallView;
    expect(after.transfer).toMatchObject({ outcome: "completed", connectedSeconds: callee.transfer?.duration });

    // The webhook says how the call ended and where to, as the API does (the leg's outcome came later: null in it).
    const [event] = await receiver.waitFor(1);
    expect(JSON.parse(event?.body ?? "{}")).toMatchObject({
      event: "call.completed",
      call: {
        id: placed.id,
        status: "completed",
        endedReason: "transferred",
        endedReasonCategory: "none",
        transfer: { number: "+14155550100", name: "billing", at: done.transfer?.at, outcome: null, connectedSeconds: null },
      },
    });
  }, 90_000);

  it("tells the caller when the destination is busy, hangs up, and records the outcome on the call", async (ctx) => {
    const { expect } = ctx;
    const { ws, agent } = await setup(ctx, {
      tools: [{ type: "transfer_call", destinations: [{ number: BUSY, name: "billing", description: "Invoices and refunds." }] }],
    });
    const placed = await place(ws, agent.id, { phoneNumber: TRANSFER_CALLEE });
    const done = (await waitForCall(ws, placed.id, ended, 60_000)) as ToolCallView;
    expect(done).toMatchObject({ status: "completed", endedReason: "transferred" });
    const callee = await settledSandboxCall(await providerCallId(placed.id), 60_000);
    expect(callee.transfer).toMatchObject({ to: BUSY, outcome: "busy" });
    expect(callee.platformSaid).toEqual([expect.stringMatching(/^Sorry, the line I tried to transfer you to is busy\./)]);
    expect(callee.endedBy).toBe("twiml-ended");
    const after = (await waitForCall(ws, placed.id, (c) => (c as ToolCallView).transfer?.outcome != null, 30_000)) as ToolCallView;
    expect(after.transfer).toMatchObject({ number: BUSY, name: "billing", outcome: "busy", connectedSeconds: 0 });
  }, 90_000);

  it("refuses a dial result without Twilio's signature, with a wrong one, or for a call that was not transferred", async (ctx) => {
    const { expect } = ctx;
    const ws = await createWorkspace();
    const agent = await createAgent(ws, { silenceTimeoutSeconds: 5 });
    const placed = await place(ws, agent.id, { phoneNumber: SILENT });
    const sid = await providerCallId(placed.id);
    const path = `/telephony/twilio/dial/${placed.id}`;
    const params = new URLSearchParams({
      CallSid: sid,
      DialCallStatus: "busy",
      DialCallDuration: "0",
      AccountSid: stack().vars.TWILIO_ACCOUNT_SID ?? "",
    });
    const post = (signature?: string) => postTwilioForm(path, params, signature);
    const token = stack().vars.TWILIO_AUTH_TOKEN ?? "";
    await expectError(await post(), 401, "unauthorized");
    await expectError(await post(twilioSign("not-the-token", `${stack().baseUrl}${path}`, params)), 401, "unauthorized");
    await expectError(
      await post(twilioSign(token, `${stack().baseUrl}/telephony/twilio/dial/${randomUUID()}`, params)),
      401,
      "unauthorized",
    );
    // Genuinely signed, but this call was never transferred: nothing to record.
    await expectError(await post(twilioSign(token, `${stack().baseUrl}${path}`, params)), 404, "not_found");
    const call = (await waitForCall(ws, placed.id, ended, 30_000)) as ToolCallView;
    expect(call.transfer).toBeNull();
  }, 40_000);
});

describe.concurrent("a web call with tools", () => {
  it("calls the tool, says its answer over the socket, and end_call ends the call; transfer_call is not offered", async (ctx) => {
    const { expect } = ctx;
    const { ws, server, agent } = await setup(ctx);
    const res = await ws.api(`/v1/agents/${agent.id}/web-call`, { method: "POST", json: {} });
    const { call, webCall } = await json<{ call: { id: string }; webCall: { url: string } }>(res);
    const client = await joinWebCall(webCall.url);
    await client.waitForEvent((e) => e.type === "mark");
    await client.played();
    await client.say(await speech("Can you lookup order seven for me?", WEB_RATE));
    const answer = await client.waitForEvent(
      (e) => e.type === "transcript" && e.role === "agent" && String(e.text).startsWith("The tool lookup_order returned"),
      30_000,
    );
    expect(String(answer.text)).toContain('"status":"shipped"');
    await client.played();
    await client.say(await speech("Please transfer call to a person, or end call now.", WEB_RATE));
    const over = await client.waitForEvent((e) => e.type === "ended", 30_000);
    expect(over.reason).toBe("agent-ended-call");
    await client.closed;

    const done = (await waitForCall(ws, call.id, ended)) as ToolCallView;
    expect(done).toMatchObject({ status: "completed", endedReason: "agent-ended-call", transfer: null });
    // Both named, only end_call offered: a web call has no line to hand on.
    expect(toolsOf(done.transcript.turns as Turn[]).map((t) => t.name)).toEqual(["lookup_order", "end_call"]);
    expect(server.requests.find((r) => r.path === "/order")?.json).toMatchObject({ call: { id: call.id }, chat: null });
  }, 90_000);
});
