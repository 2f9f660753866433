// Incoming phone calls (docs/calls.md, "Inbound calls"): a workspace's number assigned to one of
// its agents (PATCH /v1/phone-numbers/:id) has its incoming calls pointed at the platform in
// Twilio (the number's VoiceUrl); the telephony sandbox dials it as Twilio would (the signed voice
// webhook, then the media stream the TwiML asks for), and the same session as an outbound call
// answers, with `direction: inbound`. Forged webhooks are refused, a number without an agent turns
// the caller away politely, a number of no workspace is rejected unanswered, and a workspace
// cannot assign another workspace's agent.
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { CANNOT_TAKE_CALLS } from "../../../src/calls/inbound";
import { calls } from "../../../src/db/schema";
import { CONVERSATION } from "../../support/callees";
import {
  addCallerId,
  type CallView,
  createAgent,
  downloadRecording,
  freshNumber,
  postTwilioForm,
  type SandboxCall,
  speech,
  twilioHas,
  twilioSign,
  WEB_RATE,
  waitForCall,
} from "../../support/calls";
import { receiversPerTest } from "../../support/deliveries";
import { createWorkspace, expectError, json, stack, testDb, type Workspace } from "../../support/harness";
import { stripeAccepts } from "../../support/stripe";

const { subscribed } = receiversPerTest();
const VOICE_PATH = "/telephony/twilio/voice";

const sandbox = (path: string, init: RequestInit = {}) => {
  const { vars } = stack();
  const auth = Buffer.from(`${vars.TWILIO_ACCOUNT_SID}:${vars.TWILIO_AUTH_TOKEN}`).toString("base64");
  return fetch(`${vars.TWILIO_API_BASE_URL}${path}`, { ...init, headers: { authorization: `Basic ${auth}`, ...init.headers } });
};

/** The sandbox dials `to` from `from` as Twilio delivers an incoming call; the call once its webhook was answered. */
async function dialIn(from: string, to: string): Promise<SandboxCall & { answerTwiml?: string; platformSaid: string[] }> {
  const res = await sandbox("/__sandbox/inbound", { method: "POST", body: new URLSearchParams({ From: from, To: to }) });
  if (res.status !== 201) throw new Error(`sandbox inbound: ${res.status} ${await res.text()}`);
  return res.json() as never;
}

async function settled(sid: string, ms = 60_000): Promise<SandboxCall & { answerTwiml?: string; platformSaid: string[] }> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const body = (await (await sandbox(`/__sandbox/calls/${sid}/settled`)).json()) as { settled: boolean; call: never };
    if (body.settled) return body.call;
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`sandbox call ${sid} did not settle`);
}

/** The sandbox account's record of a bought number. */
async function accountNumber(number: string): Promise<{ sid: string; voice_url: string | null; voice_method: string }> {
  const path = `/2010-04-01/Accounts/${stack().vars.TWILIO_ACCOUNT_SID}/IncomingPhoneNumbers.json?${new URLSearchParams({ PhoneNumber: number })}`;
  const body = (await (await sandbox(path)).json()) as { incoming_phone_numbers: Array<{ sid: string; phone_number: string }> };
  const found = body.incoming_phone_numbers.find((n) => n.phone_number === number);
  if (!found) throw new Error(`${number} is not a number of the sandbox account`);
  return found as never;
}

const assign = (ws: Workspace, id: string, agentId: string | null) =>
  ws.api(`/v1/phone-numbers/${id}`, { method: "PATCH", json: { agentId } });

/** A new workspace with an agent and a number of its own assigned to that agent. */
async function assignedNumber() {
  const ws = await createWorkspace();
  const agent = await createAgent(ws);
  const number = await addCallerId(ws);
  expect((await assign(ws, number.id, agent.id)).status).toBe(200);
  return { ws, agent, number };
}

/** The form Twilio's voice webhook posts for a new call (ringing) from CONVERSATION to `to`, under a fresh CallSid. */
const ringing = (to: string) =>
  new URLSearchParams({
    AccountSid: stack().vars.TWILIO_ACCOUNT_SID ?? "",
    CallSid: `CA${randomUUID().replaceAll("-", "")}`,
    CallStatus: "ringing",
    Direction: "inbound",
    From: CONVERSATION,
    To: to,
  });

const inboundCalls = async (ws: Workspace) => (await json<{ data: CallView[] }>(await ws.api("/v1/calls?direction=inbound"))).data;

beforeAll(async () => {
  await speech("Warming up.", WEB_RATE);
}, 30_000);

describe("an incoming call to a number assigned to an agent", () => {
  it("is answered by the agent: the media stream, the conversation, direction inbound, call.* events, listed by the API", async () => {
    const ws = await createWorkspace();
    const { receiver, endpoint } = await subscribed(ws, { channels: ["voice"] });
    const agent = await createAgent(ws, {
      firstMessage: "Thank you for calling Acme Dental. How can I help?",
      endCallPhrases: ["goodbye"],
    });
    const number = await addCallerId(ws);
    const res = await assign(ws, number.id, agent.id);
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ id: number.id, number: number.number, agentId: agent.id });
    // Assigning pointed the number's incoming calls at the platform, in Twilio.
    expect(await accountNumber(number.number)).toMatchObject({ voice_url: `${stack().baseUrl}${VOICE_PATH}`, voice_method: "POST" });
    expect((await json<{ data: Array<{ id: string; agentId: string | null }> }>(await ws.api("/v1/phone-numbers"))).data).toEqual([
      expect.objectContaining({ id: number.id, agentId: agent.id }),
    ]);

    const dialled = await dialIn(CONVERSATION, number.number);
    expect(dialled).toMatchObject({ direction: "inbound", status: "in-progress" });
    expect(dialled.answerTwiml).toContain("<Connect><Stream");
    const caller = await settled(dialled.sid);
    expect(caller.errors).toEqual([]);
    expect(caller.endedBy).toBe("worker");
    expect(caller.said.map((s) => s.text)).toHaveLength(3);

    const [listed, ...others] = await inboundCalls(ws);
    expect(others).toEqual([]);
    expect(listed).toMatchObject({
      type: "phone",
      direction: "inbound",
      fromNumber: CONVERSATION,
      toNumber: number.number,
      agentId: agent.id,
    });
    const call = await waitForCall(ws, listed?.id ?? "", (c) => c.analysis !== null || c.analysisError !== null, 30_000);
    expect(call).toMatchObject({ status: "completed", endedReason: "agent-ended-call", direction: "inbound" });
    const turns = call.transcript.turns;
    expect(turns[0]).toMatchObject({ role: "agent", text: "Thank you for calling Acme Dental. How can I help?" });
    expect(turns.filter((t) => t.role === "user").map((t) => t.text)).toEqual(caller.said.map((s) => s.text));
    expect(turns.at(-1)?.text.toLowerCase()).toContain("goodbye");
    expect(call.recording).not.toBeNull();
    expect(call.cost.stt.quantity).toBeGreaterThan(0);

    const got = await receiver.waitFor(3);
    const events = got.map((r) => JSON.parse(r.body) as { event: string; call: { id: string; direction: string } });
    expect(events.map((e) => e.event)).toEqual(["call.started", "call.completed", "call.analyzed"]);
    for (const e of events) expect(e.call).toMatchObject({ id: call.id, direction: "inbound" });
    for (const r of got) expect(stripeAccepts(r.body, String(r.headers["x-service-signature"]), endpoint.secret)).toBe(true);

    // The call's recording downloads like an outbound call's.
    const recording = await downloadRecording(ws, call.id);
    expect(recording.rate).toBe(8_000);
    expect(recording.caller.length / 8_000).toBeCloseTo(Number(call.recording?.durationSeconds), 0);
  }, 90_000);
});

describe("listing calls by direction", () => {
  it('`inbound` lists incoming phone calls only, `web` the web calls, `outbound` neither (docs/calls.md, "Direction")', async () => {
    const { ws, agent, number } = await assignedNumber();
    const created = await ws.api(`/v1/agents/${agent.id}/web-call`, { method: "POST", json: {} });
    expect(created.status).toBe(201);
    const web = (await json<{ call: CallView }>(created)).call;
    expect(web).toMatchObject({ type: "web", direction: "web" });
    // Twilio's voice webhook for a call to the number makes the incoming call (ringing).
    const params = ringing(number.number);
    const url = `${stack().baseUrl}${VOICE_PATH}`;
    expect((await postTwilioForm(VOICE_PATH, params, twilioSign(stack().vars.TWILIO_AUTH_TOKEN ?? "", url, params))).status).toBe(200);

    const listed = async (direction: string) =>
      (await json<{ data: CallView[] }>(await ws.api(`/v1/calls?direction=${direction}`))).data.map((c) => [c.id, c.type, c.direction]);
    const [phone] = await inboundCalls(ws);
    expect(await listed("inbound")).toEqual([[phone?.id, "phone", "inbound"]]);
    expect(await listed("web")).toEqual([[web.id, "web", "web"]]);
    expect(await listed("outbound")).toEqual([]);
    expect((await json<{ data: CallView[] }>(await ws.api("/v1/calls"))).data.map((c) => c.id)).toEqual([phone?.id, web.id]);
    await expectError(await ws.api("/v1/calls?direction=sideways"), 400, "validation_failed");
  }, 30_000);
});

describe("incoming calls that are turned away", () => {
  it("refuses a voice webhook without Twilio's signature, with a wrong one, or signed for another URL, and creates no call", async () => {
    const { ws, number } = await assignedNumber();
    const params = ringing(number.number);
    const post = (signature?: string) => postTwilioForm(VOICE_PATH, params, signature);
    const token = stack().vars.TWILIO_AUTH_TOKEN ?? "";
    const url = `${stack().baseUrl}${VOICE_PATH}`;
    await expectError(await post(), 401, "unauthorized");
    await expectError(await post(twilioSign("not-the-token", url, params)), 401, "unauthorized");
    await expectError(await post(twilioSign(token, `${stack().baseUrl}/telephony/twilio/status/x`, params)), 401, "unauthorized");
    expect(await inboundCalls(ws)).toEqual([]);
    // The same request signed with the account's token is answered (the stream), and makes the one call;
    // Twilio sending it again for the same CallSid does not make a second.
    const genuine = await post(twilioSign(token, url, params));
    expect(genuine.status).toBe(200);
    expect(genuine.headers.get("content-type")).toContain("text/xml");
    expect(await genuine.text()).toContain("<Connect><Stream");
    expect((await post(twilioSign(token, url, params))).status).toBe(200);
    const made = await inboundCalls(ws);
    expect(made).toHaveLength(1);
    expect(made[0]).toMatchObject({ status: "ringing", direction: "inbound", toNumber: number.number });
  }, 30_000);

  it("makes one call of many concurrent copies of the same signed voice webhook (one CallSid, one call)", async () => {
    const { ws, number } = await assignedNumber();
    const token = stack().vars.TWILIO_AUTH_TOKEN ?? "";
    const url = `${stack().baseUrl}${VOICE_PATH}`;
    for (let run = 0; run < 3; run++) {
      const params = ringing(number.number);
      const answers = await Promise.all(
        Array.from({ length: 8 }, () => postTwilioForm(VOICE_PATH, params, twilioSign(token, url, params))),
      );
      expect(answers.map((r) => r.status)).toEqual(Array(8).fill(200));
      const streams = (await Promise.all(answers.map((r) => r.text()))).filter((t) => t.includes("<Connect><Stream"));
      expect(streams.length).toBeGreaterThanOrEqual(1); // each copy is answered while the call rings
      const sid = params.get("CallSid");
      const rows = await testDb()
        .select({ id: calls.id })
        .from(calls)
        .where(eq(calls.providerCallId, sid as string));
      expect(rows, `run ${run}`).toHaveLength(1);
    }
    expect(await inboundCalls(ws)).toHaveLength(3);
  }, 30_000);

  it("a number without an agent says why and hangs up; a number of no workspace is rejected unanswered; no call is made", async () => {
    const { ws, number } = await assignedNumber();
    // Unassigned again: the number stays routed to the platform, which turns its callers away.
    const unassigned = await assign(ws, number.id, null);
    expect(await json(unassigned)).toMatchObject({ id: number.id, agentId: null });
    const polite = await settled((await dialIn(CONVERSATION, number.number)).sid);
    expect(polite).toMatchObject({ status: "completed", endedBy: "worker", platformSaid: [CANNOT_TAKE_CALLS] });
    expect(polite.answerTwiml).toMatch(/<Say>.*<\/Say><Hangup\/>/);

    // A number of the account that no workspace has (removed from the workspace, VoiceUrl left).
    expect((await ws.api(`/v1/phone-numbers/${number.id}`, { method: "DELETE" })).status).toBe(204);
    const rejected = await settled((await dialIn(CONVERSATION, number.number)).sid);
    expect(rejected).toMatchObject({ status: "busy", endedBy: "worker" });
    expect(rejected.answerTwiml).toContain("<Reject");
    expect(await inboundCalls(ws)).toEqual([]);
  }, 30_000);
});

describe("assigning an agent to a number", () => {
  it("takes only the workspace's own agent, and a number that can receive calls", async () => {
    const ws = await createWorkspace();
    const other = await createWorkspace();
    const theirs = await createAgent(other);
    const number = await addCallerId(ws);
    for (const agentId of [theirs.id, randomUUID()]) {
      const err = await expectError(await assign(ws, number.id, agentId), 400, "validation_failed");
      expect(err.issues?.[0]?.path).toBe("agentId");
      expect(err.message).toBe("Invalid json: agentId: no agent with this id in this workspace");
    }
    await expectError(await assign(ws, number.id, "not-a-uuid" as string), 400, "validation_failed");
    await expectError(await ws.api(`/v1/phone-numbers/${number.id}`, { method: "PATCH", json: {} }), 400, "validation_failed");
    // Adding a number with another workspace's agent is refused the same way, and adds nothing.
    const fresh = await twilioHas(freshNumber());
    const added = await expectError(
      await ws.api("/v1/phone-numbers", { method: "POST", json: { number: fresh, agentId: theirs.id } }),
      400,
      "validation_failed",
    );
    expect(added.issues?.[0]?.path).toBe("agentId");
    // Nothing was assigned, and Twilio was not told to send the number's calls here.
    expect((await json<{ data: Array<{ agentId: string | null }> }>(await ws.api("/v1/phone-numbers"))).data).toEqual([
      expect.objectContaining({ id: number.id, agentId: null }),
    ]);
    expect((await accountNumber(number.number)).voice_url).toBeNull();
    expect((await accountNumber(fresh)).voice_url).toBeNull();
    // Another workspace cannot assign an agent to this workspace's number (404, like a missing one).
    await expectError(await assign(other, number.id, theirs.id), 404, "not_found");

    // A caller id only verified in the Twilio account cannot receive calls.
    const mine = await createAgent(ws);
    const verified = await addCallerId(ws, "verified");
    const err = await expectError(await assign(ws, verified.id, mine.id), 400, "validation_failed");
    expect(err.message).toContain("cannot receive");
    // Adding a bought number with the workspace's agent assigns it at once.
    const withAgent = await twilioHas(freshNumber());
    const created = await ws.api("/v1/phone-numbers", { method: "POST", json: { number: withAgent, agentId: mine.id } });
    expect(created.status).toBe(201);
    expect(await json(created)).toMatchObject({ number: withAgent, agentId: mine.id });
    expect((await accountNumber(withAgent)).voice_url).toBe(`${stack().baseUrl}${VOICE_PATH}`);
  }, 30_000);
});
