// Outbound phone calls through the Twilio adapter, answered by the telephony sandbox (dev/sandbox/
// telephony.ts): the whole call, every way it ends, forged callbacks and streams, duplicate
// callbacks, and Idempotency-Key under concurrent retries.
import { createHmac } from "node:crypto";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import WebSocket from "ws";
import { calls, organizations, usageEvents } from "../../../src/db/schema";
import {
  type CallView,
  createAgent,
  freshNumber,
  providerCallId,
  redeliverCallback,
  settledSandboxCall,
  twilioHas,
  waitForCall,
} from "../../calls";
import { createWorkspace, expectError, json, request, stack, testDb, type Workspace } from "../../harness";
import { startReceiver } from "../../receiver";
import { stripeAccepts } from "../../stripe";
import { createEndpoint } from "../../webhooks";

const CONVERSATION = "+12025550100";
const SILENT = "+12025550101";
const BUSY = "+12025550102";
const NO_ANSWER = "+12025550103";
const UNREACHABLE = "+12025550104";
const CHATTERBOX = "+12025550105";
const BARGE_IN = "+12025550106";
const HANGS_UP = "+12025550107";
const INVALID = "+15005550001";

const place = async (ws: Workspace, agentId: string, body: Record<string, unknown>, headers: Record<string, string> = {}) => {
  const res = await ws.api(`/v1/agents/${agentId}/calls`, { method: "POST", json: body, headers });
  if (res.status !== 201) throw new Error(`place call: ${res.status} ${await res.text()}`);
  return json<CallView>(res);
};

const ended = (c: CallView) => !["queued", "ringing", "in-progress"].includes(c.status);
const credits = async (orgId: string) =>
  Number((await testDb().select({ c: organizations.creditsMicro }).from(organizations).where(eq(organizations.id, orgId)))[0]?.c);

describe("a whole outbound call", () => {
  it("connects, converses, ends by the agent's phrase, is analysed, fires verified webhooks and is charged once", async () => {
    const ws = await createWorkspace();
    const receiver = await startReceiver();
    try {
      const endpoint = await createEndpoint(ws, { url: receiver.url, channels: ["voice"] });
      const agent = await createAgent(ws, {
        firstMessage: "Hello {{customer}}, this is Acme Dental. How can I help?",
        endCallPhrases: ["goodbye"],
        analysisPlan: {
          successCriteria: ["The caller asked for an appointment"],
          extractionFields: [{ name: "wants_appointment", type: "boolean", description: "Did the caller ask for an appointment?" }],
        },
      });
      const before = await credits(ws.organizationId);
      const placed = await place(ws, agent.id, { phoneNumber: CONVERSATION, variables: { customer: "Ada" }, metadata: { ticket: "T-1" } });
      expect(placed).toMatchObject({
        status: "queued",
        type: "phone",
        direction: "outbound",
        toNumber: CONVERSATION,
        fromNumber: "+15005550006",
      });

      const sid = await providerCallId(placed.id);
      const callee = await settledSandboxCall(sid, 60_000);
      expect(callee.statuses.map((s) => s.status)).toEqual(["queued", "initiated", "ringing", "in-progress", "completed"]);
      expect(callee.callbacks.every((cb) => cb.httpStatus === 204)).toBe(true);
      expect(callee.endedBy).toBe("worker");
      expect(callee.underruns).toBe(0);
      expect(callee.errors).toEqual([]);

      const call = await waitForCall(ws, placed.id, (c) => c.analysis !== null || c.analysisError !== null, 30_000);
      expect(call).toMatchObject({ status: "completed", endedReason: "agent-ended-call", metadata: { ticket: "T-1" } });
      expect(call.durationSeconds).toBeGreaterThan(3);
      const turns = call.transcript.turns;
      expect(turns[0]).toMatchObject({ role: "agent", text: "Hello Ada, this is Acme Dental. How can I help?" });
      expect(turns.filter((t) => t.role === "user").map((t) => t.text)).toEqual(callee.said.map((s) => s.text));
      expect(turns.filter((t) => t.role === "user")).toHaveLength(3);
      expect(turns.at(-1)?.text).toMatch(/^Goodbye!/);
      expect(call.transcript.fullText).toContain("User: Hi, I would like to book an appointment.");
      expect(call.analysis).toMatchObject({ sentiment: expect.any(String) });
      expect(call.report).toMatchObject({ criteriaResults: [{ criterion: "The caller asked for an appointment" }] });
      expect(call.latency?.turns).toBe(3);

      // Every STT second, LLM token and TTS character is charged once: the usage rows, the
      // call's cost and the balance all agree.
      const rows = await testDb().select().from(usageEvents).where(eq(usageEvents.callId, placed.id));
      const charged = rows.reduce((n, r) => n + Number(r.costMicro), 0);
      expect(rows.filter((r) => r.modality === "stt" && r.status === 200)).toHaveLength(3);
      expect(rows.filter((r) => r.modality === "tts" && r.status === 200)).toHaveLength(4);
      expect(rows.filter((r) => r.modality === "chat" && r.status === 200).length).toBeGreaterThanOrEqual(4); // 3 replies + analysis
      expect(Math.round(call.cost.credits * 1_000_000)).toBe(charged);
      expect(before - (await credits(ws.organizationId))).toBe(charged);
      const [stored] = await testDb().select({ cost: calls.costMicro }).from(calls).where(eq(calls.id, placed.id));
      expect(Number(stored?.cost)).toBe(charged);

      const got = await receiver.waitFor(3);
      expect(got.map((r) => JSON.parse(r.body).event)).toEqual(["call.started", "call.completed", "call.analyzed"]);
      for (const r of got) expect(stripeAccepts(r.body, String(r.headers["x-service-signature"]), endpoint.secret)).toBe(true);
      const completed = JSON.parse(got[1]?.body ?? "{}");
      expect(completed.call).toMatchObject({ id: placed.id, status: "completed", toNumber: CONVERSATION, agentName: "Call agent" });
      expect(completed.transcript.turns.length).toBe(turns.length);
      const analyzed = JSON.parse(got[2]?.body ?? "{}");
      expect(analyzed.analysis.summary).toEqual(expect.any(String));
      expect(analyzed.report.extractedData).toHaveProperty("wants_appointment");

      // A duplicate of the last callback (completed) changes nothing and fires nothing.
      expect((await redeliverCallback(sid)).httpStatus).toBe(204);
      await new Promise((r) => setTimeout(r, 500));
      expect(receiver.received).toHaveLength(3);
      expect((await waitForCall(ws, placed.id, () => true)).endedReason).toBe("agent-ended-call");

      // The recording holds both sides.
      const rec = await ws.api(`/v1/calls/${placed.id}/recording`);
      expect(rec.status).toBe(200);
      expect(rec.headers.get("content-type")).toBe("audio/wav");
      const wav = new Uint8Array(await rec.arrayBuffer());
      expect(new DataView(wav.buffer).getUint16(22, true)).toBe(2);
      expect(wav.length).toBeGreaterThan(8_000 * 4 * 3);
    } finally {
      await receiver.stop();
    }
  }, 90_000);
});

describe("how phone calls end", () => {
  it("an invalid number: 201 with the call failed, and call.failed", async () => {
    const ws = await createWorkspace();
    const receiver = await startReceiver();
    try {
      await createEndpoint(ws, { url: receiver.url, channels: ["voice"] });
      const agent = await createAgent(ws);
      const call = await place(ws, agent.id, { phoneNumber: INVALID });
      expect(call).toMatchObject({ status: "failed", endedReason: "dial-failed", endedReasonCategory: "telephony" });
      const [event] = await receiver.waitFor(1);
      expect(JSON.parse(event?.body ?? "{}")).toMatchObject({ event: "call.failed", call: { id: call.id, status: "failed" } });
    } finally {
      await receiver.stop();
    }
  });

  it.each([
    [UNREACHABLE, "failed", "dial-failed"],
    [BUSY, "busy", "customer-busy"],
    [NO_ANSWER, "no-answer", "customer-did-not-answer"],
  ])(
    "%s ends %s (%s) with call.failed",
    async (number, status, reason) => {
      const ws = await createWorkspace();
      const receiver = await startReceiver();
      try {
        await createEndpoint(ws, { url: receiver.url, channels: ["voice"] });
        const agent = await createAgent(ws);
        const placed = await place(ws, agent.id, { phoneNumber: number });
        const call = await waitForCall(ws, placed.id, ended, 20_000);
        expect(call).toMatchObject({ status, endedReason: reason, durationSeconds: null });
        const [event] = await receiver.waitFor(1);
        expect(JSON.parse(event?.body ?? "{}")).toMatchObject({ event: "call.failed", call: { status } });
        expect(receiver.received).toHaveLength(1);
      } finally {
        await receiver.stop();
      }
    },
    30_000,
  );

  it("a silent callee: the silence timeout", async () => {
    const ws = await createWorkspace();
    const agent = await createAgent(ws, { silenceTimeoutSeconds: 5 });
    const placed = await place(ws, agent.id, { phoneNumber: SILENT });
    const call = await waitForCall(ws, placed.id, ended, 30_000);
    expect(call).toMatchObject({ status: "completed", endedReason: "silence-timeout" });
    expect(call.durationSeconds).toBeGreaterThanOrEqual(4.5);
    expect(call.durationSeconds).toBeLessThan(8);
  }, 40_000);

  it("a callee who never stops: max duration", async () => {
    const ws = await createWorkspace();
    const agent = await createAgent(ws, { maxDurationSeconds: 10 });
    const placed = await place(ws, agent.id, { phoneNumber: CHATTERBOX });
    const call = await waitForCall(ws, placed.id, ended, 30_000);
    expect(call).toMatchObject({ status: "completed", endedReason: "max-duration-reached" });
    expect(call.durationSeconds).toBeGreaterThanOrEqual(9.5);
    expect(call.durationSeconds).toBeLessThan(12);
  }, 40_000);

  it("the callee hangs up: customer-ended-call with the transcript so far", async () => {
    const ws = await createWorkspace();
    const agent = await createAgent(ws, { firstMessage: "Hello, this is Acme." });
    const placed = await place(ws, agent.id, { phoneNumber: HANGS_UP });
    const call = await waitForCall(ws, placed.id, ended, 30_000);
    expect(call).toMatchObject({ status: "completed", endedReason: "customer-ended-call" });
    expect(call.transcript.turns[0]).toMatchObject({ role: "agent", text: "Hello, this is Acme." });
  }, 40_000);

  it("the callee talks over the agent: barge-in clears its audio and marks the turn interrupted", async () => {
    const ws = await createWorkspace();
    const agent = await createAgent(ws, {
      firstMessage: "Hello, thank you for calling Acme Dental, we are open from nine to five every weekday and on Saturday mornings.",
      endCallPhrases: ["goodbye"],
    });
    const placed = await place(ws, agent.id, { phoneNumber: BARGE_IN });
    const sid = await providerCallId(placed.id);
    const call = await waitForCall(ws, placed.id, ended, 40_000);
    const callee = await settledSandboxCall(sid);
    expect(callee.clears).toBeGreaterThanOrEqual(1);
    expect(callee.bargeIn?.clearAfterMs).toBeLessThan(500);
    expect(call.transcript.turns[0]).toMatchObject({ role: "agent", interrupted: true });
    expect(call.transcript.turns[0]?.endMs).toBeLessThan(3_000);
  }, 50_000);

  it("the agent's LLM fails mid-call: llm-provider-error and call.failed", async () => {
    const ws = await createWorkspace();
    const receiver = await startReceiver();
    try {
      await createEndpoint(ws, { url: receiver.url, channels: ["voice"] });
      const agent = await createAgent(ws, { llmModel: "fault-500" });
      const placed = await place(ws, agent.id, { phoneNumber: CONVERSATION });
      const call = await waitForCall(ws, placed.id, ended, 30_000);
      expect(call).toMatchObject({ status: "failed", endedReason: "llm-provider-error", endedReasonCategory: "provider" });
      expect(call.cost.llm.credits).toBe(0);
      const events = (await receiver.waitFor(2)).map((r) => JSON.parse(r.body).event);
      expect(events.slice(0, 2)).toEqual(["call.started", "call.failed"]);
    } finally {
      await receiver.stop();
    }
  }, 40_000);
});

describe("forged telephony traffic", () => {
  const sign = (token: string, url: string, params: URLSearchParams) => {
    const data =
      url +
      [...params.entries()]
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([k, v]) => k + v)
        .join("");
    return createHmac("sha1", token).update(data).digest("base64");
  };

  it("refuses status callbacks without Twilio's signature, with a wrong one, or signed for another URL", async () => {
    const ws = await createWorkspace();
    const agent = await createAgent(ws, { silenceTimeoutSeconds: 5 });
    const placed = await place(ws, agent.id, { phoneNumber: SILENT });
    const sid = await providerCallId(placed.id);
    const path = `/telephony/twilio/status/${placed.id}`;
    const params = new URLSearchParams({ CallSid: sid, CallStatus: "busy", AccountSid: stack().vars.TWILIO_ACCOUNT_SID ?? "" });
    const post = (signature?: string) =>
      request(path, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", ...(signature ? { "x-twilio-signature": signature } : {}) },
        body: params.toString(),
      });
    const token = stack().vars.TWILIO_AUTH_TOKEN ?? "";
    await expectError(await post(), 401, "unauthorized");
    await expectError(await post(sign("not-the-token", `${stack().baseUrl}${path}`, params)), 401, "unauthorized");
    await expectError(await post(sign(token, `${stack().baseUrl}/telephony/twilio/status/${sid}`, params)), 401, "unauthorized");
    // None of them moved the call; a genuine callback would have (busy).
    const call = await waitForCall(ws, placed.id, ended, 30_000);
    expect(call.endedReason).toBe("silence-timeout");
  }, 40_000);

  it("closes a media stream whose start carries the wrong stream token", async () => {
    const ws = await createWorkspace();
    const agent = await createAgent(ws);
    const placed = await place(ws, agent.id, { phoneNumber: SILENT });
    const url = `${stack().baseUrl.replace(/^http/, "ws")}/telephony/twilio/media/${placed.id}`;
    const socket = new WebSocket(url);
    await new Promise((resolve, reject) => {
      socket.once("open", resolve);
      socket.once("error", reject);
    });
    const closed = new Promise<number>((resolve) => socket.once("close", (code) => resolve(code)));
    socket.send(JSON.stringify({ event: "connected", protocol: "Call", version: "1.0.0" }));
    socket.send(
      JSON.stringify({
        event: "start",
        sequenceNumber: "1",
        streamSid: "MZ0",
        start: { streamSid: "MZ0", callSid: "CA0", customParameters: { token: "forged", callId: placed.id }, tracks: ["inbound"] },
      }),
    );
    expect(await closed).toBe(1008);
    const res = await request(`/telephony/twilio/media/${placed.id}`);
    await expectError(res, 426, "upgrade_required");
  }, 30_000);
});

describe("Idempotency-Key", () => {
  it("answers concurrent retries with one call and dials once; another body with the same key is a 409", async () => {
    const ws = await createWorkspace();
    const agent = await createAgent(ws, { silenceTimeoutSeconds: 5 });
    const key = `retry-${Date.now()}`;
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        ws.api(`/v1/agents/${agent.id}/calls`, { method: "POST", json: { phoneNumber: SILENT }, headers: { "idempotency-key": key } }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(6).fill(201));
    const ids = new Set(await Promise.all(results.map(async (r) => (await json<CallView>(r)).id)));
    expect(ids.size).toBe(1);
    expect(results.filter((r) => r.headers.get("idempotent-replayed") === "true")).toHaveLength(5);
    const rows = await testDb().select().from(calls).where(eq(calls.organizationId, ws.organizationId));
    expect(rows).toHaveLength(1);
    const [callId] = [...ids];
    const sid = await providerCallId(callId as string);
    expect(sid).toMatch(/^CA/);

    const other = await ws.api(`/v1/agents/${agent.id}/calls`, {
      method: "POST",
      json: { phoneNumber: CONVERSATION },
      headers: { "idempotency-key": key },
    });
    await expectError(other, 409, "idempotency_conflict");
    await expectError(
      await ws.api(`/v1/agents/${agent.id}/calls`, { method: "POST", json: { phoneNumber: SILENT }, headers: { "idempotency-key": "" } }),
      400,
      "bad_request",
    );
  }, 30_000);

  it("validates the number and the caller id", async () => {
    const ws = await createWorkspace();
    const agent = await createAgent(ws, { silenceTimeoutSeconds: 5 });
    for (const phoneNumber of ["2025550100", "+0123456789", "+1 202 555 0100", 12025550100, "", "+1202555010012345"]) {
      await expectError(await ws.api(`/v1/agents/${agent.id}/calls`, { method: "POST", json: { phoneNumber } }), 400, "validation_failed");
    }
    const number = await twilioHas(freshNumber());
    const notOurs = await ws.api(`/v1/agents/${agent.id}/calls`, {
      method: "POST",
      json: { phoneNumber: SILENT, fromNumber: number },
    });
    const err = await expectError(notOurs, 400, "validation_failed");
    expect(err.issues?.[0]?.path).toBe("fromNumber");
    const added = await json<{ id: string }>(await ws.api("/v1/phone-numbers", { method: "POST", json: { number, label: "Sales" } }));
    await expectError(await ws.api("/v1/phone-numbers", { method: "POST", json: { number } }), 409, "conflict");
    const placed = await place(ws, agent.id, { phoneNumber: SILENT, phoneNumberId: added.id });
    expect(placed.fromNumber).toBe(number);
    expect((await waitForCall(ws, placed.id, ended, 30_000)).endedReason).toBe("silence-timeout");
  }, 60_000);
});
