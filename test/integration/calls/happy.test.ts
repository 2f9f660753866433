// Calls that work. A whole outbound phone call through the Twilio adapter, answered by the
// telephony sandbox (dev/sandbox/telephony.ts), and a whole web call over the browser's socket
// (PCM16 16 kHz): the agent's first message, the caller's turns, the end-call phrase, the call's
// record, its webhooks and its cost. How a conversation ends otherwise (silence, max duration, the
// callee hanging up, barge-in); the caller ids a workspace calls from (docs/calls.md, "Caller
// ids"); Idempotency-Key under concurrent retries; and calls read through the one calls service
// (src/calls/service.ts): the API's list and the dashboard's apply the same filters.
// Refusals: errors.test.ts; calls that fail: failures.test.ts.
import { eq } from "drizzle-orm";
import { beforeAll, describe, it } from "vitest";
import { calls, organizations, usageEvents } from "../../../src/db/schema";
import { ALLOY_VOICE_ID as ALLOY } from "../../../src/voices/service";
import {
  accepted,
  BARGE_IN,
  BUSY,
  CHATTERBOX,
  CONVERSATION,
  dial,
  finished,
  HANGS_UP,
  PLATFORM,
  place,
  SILENT,
} from "../../support/callees";
import {
  addCallerId,
  type CallView,
  createAgent,
  joinWebCall,
  providerCallId,
  redeliverCallback,
  refusedUpgrade,
  sandboxCallsFrom,
  settledSandboxCall,
  speech,
  WEB_RATE,
  waitForCall,
} from "../../support/calls";
import { subscribedOf } from "../../support/concurrent";
import { eventsWritten } from "../../support/deliveries";
import { createWorkspace, expectError, json, request, signIn, stack, testDb, type Workspace } from "../../support/harness";
import { stripeAccepts } from "../../support/stripe";

/** The worker's default CALL_MIN_INTERRUPTION_MS (src/env.ts). */
const MIN_INTERRUPTION_MS = 700;

const credits = async (orgId: string) =>
  Number((await testDb().select({ c: organizations.creditsMicro }).from(organizations).where(eq(organizations.id, orgId)))[0]?.c);

/** A call to the busy callee from a caller id, or the default one. */
const call = (ws: Workspace, agentId: string, body: Record<string, unknown>) => dial(ws, agentId, { phoneNumber: BUSY, ...body });

const webCall = async (ws: Workspace, agentId: string) =>
  (await json<{ call: { id: string } }>(await ws.api(`/v1/agents/${agentId}/web-call`, { method: "POST", json: {} }))).call.id;

/** The ids of the calls a page of the dashboard links to, in its order. */
const linkedCalls = (html: string) => [...html.matchAll(/href="\/dashboard\/calls\/([0-9a-f-]{36})"/g)].map((m) => m[1]);

// The provider sandbox speaks through one eSpeak thread, which starts cold. A phone call's callee
// makes its lines on it while the phone rings, and speaks first after 3 s of silence
// (FIRST_WORDS_MS, dev/sandbox/callee.ts): on a cold thread the agent's first message can wait
// behind those lines past that. Warmed once, every call here starts as on a running stack.
beforeAll(async () => {
  await speech("Warming up.", WEB_RATE);
}, 30_000);

// The calls run side by side (describe.concurrent, vitest's maxConcurrency at a time): each test has
// its own workspace, agent, calls and receiver (stopped when that test finishes), and most of a call
// is real-time audio and timers, not work. One test runs alone, at the end (see there).

describe.concurrent("a whole outbound call", () => {
  it("connects, converses, ends by the agent's phrase, is analysed, fires verified webhooks and is charged once", async ({
    expect,
    onTestFinished,
  }) => {
    const ws = await createWorkspace();
    const { receiver, endpoint } = await subscribedOf({ onTestFinished }, ws, { channels: ["voice"] });
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
    expect(turns[0], JSON.stringify(turns)).toMatchObject({ role: "agent", text: "Hello Ada, this is Acme Dental. How can I help?" });
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
    // Streaming transcription (docs/calls.md, "Streaming transcription"): every turn ended by the
    // provider's turn model, nothing transcribed twice; the audio streamed is billed once, in
    // seconds, at each turn's end and at the call's end: no more than the call lasted.
    const [kept] = await testDb().select({ transcript: calls.transcript }).from(calls).where(eq(calls.id, placed.id));
    const userTurns = (kept?.transcript ?? []).filter((t) => t.role === "user");
    expect(userTurns.map((t) => [t.turnTaking?.endedBy, t.turnTaking?.transcriptions])).toEqual([
      ["model", 0],
      ["model", 0],
      ["model", 0],
    ]);
    const stt = rows.filter((r) => r.modality === "stt" && r.status === 200);
    expect(stt.length).toBeGreaterThanOrEqual(3);
    const streamedSeconds = stt.reduce((n, r) => n + r.quantity, 0) / 1000;
    expect(streamedSeconds).toBeGreaterThan(3);
    expect(streamedSeconds).toBeLessThanOrEqual((call.durationSeconds ?? 0) + 1);
    // Each reply's trace adds up: the parts are the whole.
    for (const t of turns.filter((t) => t.role === "agent" && t.latency)) {
      const l = t.latency as NonNullable<typeof t.latency>;
      expect((l.endpointingMs ?? 0) + l.sttMs + l.llmMs + l.ttsMs + l.platformMs).toBe(l.voiceToVoiceMs);
    }
    expect(turns.filter((t) => t.latency)).toHaveLength(3);
    // An agent without a voice speaks with the deployment's default, Cartesia's Katie where Cartesia
    // is configured (as on this stack; docs/voices.md, "The default voice"): each reply one context,
    // every agent character charged once.
    const tts = rows.filter((r) => r.modality === "tts" && r.status === 200);
    expect(tts.map((r) => r.provider)).toEqual(["cartesia", "cartesia", "cartesia", "cartesia"]);
    const agentChars = turns.filter((t) => t.role === "agent").reduce((n, t) => n + [...t.text].length, 0);
    expect(tts.reduce((n, r) => n + r.quantity, 0)).toBe(agentChars);
    // The first message was synthesized whole while the phone rang (the streaming loop would have asked per sentence).
    expect(tts.map((r) => r.quantity)).toContain([...(turns[0]?.text ?? "")].length);
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
    // Each reply's trace is in the payload as in the API; the greeting, which answers nobody, has none.
    const sent = completed.transcript.turns as Array<{ role: string; latency?: { voiceToVoiceMs: number } | null }>;
    expect(sent[0]?.latency ?? null).toBeNull();
    expect(sent.filter((t) => t.role === "agent" && t.latency).map((t) => t.latency?.voiceToVoiceMs)).toEqual(
      turns.filter((t) => t.role === "agent" && t.latency).map((t) => t.latency?.voiceToVoiceMs),
    );
    const analyzed = JSON.parse(got[2]?.body ?? "{}");
    expect(analyzed.analysis.summary).toEqual(expect.any(String));
    expect(analyzed.report.extractedData).toHaveProperty("wants_appointment");

    // A duplicate of the last callback (completed) changes nothing and fires nothing: answered, it
    // has written any event it fired.
    expect((await redeliverCallback(sid)).httpStatus).toBe(204);
    expect(await eventsWritten(ws.organizationId)).toEqual(["call.started", "call.completed", "call.analyzed"]);
    expect(receiver.received).toHaveLength(3);
    expect((await waitForCall(ws, placed.id, () => true)).endedReason).toBe("agent-ended-call");

    // The recording holds both sides.
    const rec = await ws.api(`/v1/calls/${placed.id}/recording`);
    expect(rec.status).toBe(200);
    expect(rec.headers.get("content-type")).toBe("audio/wav");
    const wav = new Uint8Array(await rec.arrayBuffer());
    expect(new DataView(wav.buffer).getUint16(22, true)).toBe(2);
    expect(wav.length).toBeGreaterThan(8_000 * 4 * 3);
  }, 90_000);
});

describe.concurrent("web calls", () => {
  it("runs a conversation over the browser socket and records it", async ({ expect, onTestFinished }) => {
    const ws = await createWorkspace();
    const { receiver } = await subscribedOf({ onTestFinished }, ws, { channels: ["voice"] });
    // An OpenAI voice: speech without input streaming, asked for sentence by sentence as the LLM writes.
    const agent = await createAgent(ws, {
      firstMessage: "Hello {{name}}, this is the web agent.",
      endCallPhrases: ["goodbye"],
      voiceId: ALLOY,
    });
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

    // Per sentence: every agent character once, the spaces between sentences aside ("Goodbye! You said: …" is two).
    const tts = (await testDb().select().from(usageEvents).where(eq(usageEvents.callId, call.id))).filter(
      (r) => r.modality === "tts" && r.status === 200,
    );
    expect(new Set(tts.map((r) => r.provider))).toEqual(new Set(["openai-compatible"]));
    expect(tts.length).toBeGreaterThanOrEqual(4);
    const agentChars = turns.filter((t) => t.role === "agent").reduce((n, t) => n + [...t.text].length, 0);
    const ttsChars = tts.reduce((n, r) => n + r.quantity, 0);
    expect(ttsChars).toBeLessThanOrEqual(agentChars);
    expect(ttsChars).toBeGreaterThanOrEqual(agentChars - (tts.length - 3));

    const events = (await receiver.waitFor(3)).map((r) => JSON.parse(r.body).event);
    expect(events).toEqual(["call.started", "call.completed", "call.analyzed"]);

    // The token worked once.
    expect(await refusedUpgrade(webCall.url)).toMatchObject({ status: 401, body: { code: "unauthorized" } });
  }, 90_000);
});

describe.concurrent("how phone calls end", () => {
  it("a new agent's defaults: after both sides said goodbye, the agent hangs up (not the silence timeout)", async ({ expect }) => {
    const ws = await createWorkspace();
    const agent = await createAgent(ws); // no endCallPhrases sent: the default
    const placed = await place(ws, agent.id, { phoneNumber: CONVERSATION });
    const call = await waitForCall(ws, placed.id, finished, 60_000);
    expect(call.transcript.turns.at(-2), JSON.stringify(call)).toMatchObject({ role: "user", text: "No, that's all. Goodbye." });
    expect(call).toMatchObject({ status: "completed", endedReason: "agent-ended-call" });
  }, 70_000);

  it("a silent callee: the silence timeout", async ({ expect }) => {
    const ws = await createWorkspace();
    const agent = await createAgent(ws, { silenceTimeoutSeconds: 5 });
    const placed = await place(ws, agent.id, { phoneNumber: SILENT });
    const call = await waitForCall(ws, placed.id, finished, 30_000);
    expect(call).toMatchObject({ status: "completed", endedReason: "silence-timeout" });
    expect(call.durationSeconds).toBeGreaterThanOrEqual(4.5);
    expect(call.durationSeconds).toBeLessThan(8);
  }, 40_000);

  it("a callee who never stops: max duration", async ({ expect }) => {
    const ws = await createWorkspace();
    const agent = await createAgent(ws, { maxDurationSeconds: 10 });
    const placed = await place(ws, agent.id, { phoneNumber: CHATTERBOX });
    const call = await waitForCall(ws, placed.id, finished, 30_000);
    expect(call).toMatchObject({ status: "completed", endedReason: "max-duration-reached" });
    expect(call.durationSeconds).toBeGreaterThanOrEqual(9.5);
    expect(call.durationSeconds).toBeLessThan(12);
  }, 40_000);

  it("the callee hangs up: customer-ended-call with the transcript so far", async ({ expect }) => {
    const ws = await createWorkspace();
    const agent = await createAgent(ws, { firstMessage: "Hello, this is Acme." });
    const placed = await place(ws, agent.id, { phoneNumber: HANGS_UP });
    const call = await waitForCall(ws, placed.id, finished, 30_000);
    expect(call).toMatchObject({ status: "completed", endedReason: "customer-ended-call" });
    expect(call.transcript.turns[0]).toMatchObject({ role: "agent", text: "Hello, this is Acme." });
  }, 40_000);

  it("the callee talks over the agent: barge-in clears its audio and marks the turn interrupted", async ({ expect }) => {
    const ws = await createWorkspace();
    const agent = await createAgent(ws, {
      firstMessage: "Hello, thank you for calling Acme Dental, we are open from nine to five every weekday and on Saturday mornings.",
      endCallPhrases: ["goodbye"],
    });
    const placed = await place(ws, agent.id, { phoneNumber: BARGE_IN });
    const sid = await providerCallId(placed.id);
    const call = await waitForCall(ws, placed.id, finished, 40_000);
    const callee = await settledSandboxCall(sid);
    expect(callee.clears).toBeGreaterThanOrEqual(1);
    // A sound over the agent interrupts once a word is recognized or after CALL_MIN_INTERRUPTION_MS
    // of speech (docs/calls.md, "Interruptions, backchannels and noise"), plus the way back to the line.
    expect(callee.bargeIn?.clearAfterMs).toBeLessThan(MIN_INTERRUPTION_MS + 300);
    expect(call.transcript.turns[0]).toMatchObject({ role: "agent", interrupted: true });
    expect(call.transcript.turns[0]?.endMs).toBeLessThan(3_000);
    // The turn says what the caller heard before cutting in: the first words of the message, not all of it.
    const heard = call.transcript.turns[0]?.text ?? "";
    const message = "Hello, thank you for calling Acme Dental, we are open from nine to five every weekday and on Saturday mornings.";
    expect(message.startsWith(heard)).toBe(true);
    expect(heard.length).toBeLessThan(message.length);
  }, 50_000);
});

describe.concurrent("web calls: how they end", () => {
  it("ends by the silence timeout when nobody speaks", async ({ expect }) => {
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

  it("ends at the agent's max duration while the caller keeps talking", async ({ expect }) => {
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
});

describe.concurrent("caller ids", () => {
  it("a workspace calls from a number of the Twilio account it added: by number, by id, and by default", async ({ expect }) => {
    const ws = await createWorkspace();
    const agent = await createAgent(ws);
    const own = await addCallerId(ws);
    const byNumber = await accepted(await call(ws, agent.id, { fromNumber: own.number }));
    expect(byNumber.fromNumber).toBe(own.number);
    const dialled = await settledSandboxCall(await providerCallId(byNumber.id));
    expect(dialled).toMatchObject({ to: BUSY, status: "busy" });
    expect((await accepted(await call(ws, agent.id, { phoneNumberId: own.id }))).fromNumber).toBe(own.number);
    // No caller id named: the workspace's oldest number, not the platform's.
    expect((await accepted(await call(ws, agent.id, {}))).fromNumber).toBe(own.number);
    expect(await sandboxCallsFrom(own.number)).toHaveLength(3);
  });

  it("accepts a caller id verified in the Twilio account (OutgoingCallerIds)", async ({ expect }) => {
    const ws = await createWorkspace();
    const agent = await createAgent(ws);
    const verified = await addCallerId(ws, "verified");
    const res = await accepted(await call(ws, agent.id, { fromNumber: verified.number }));
    expect(res.fromNumber).toBe(verified.number);
    expect((await settledSandboxCall(await providerCallId(res.id))).status).toBe("busy");
  });

  it("the platform's shared numbers: every workspace calls from them, none can add them as its own", async ({ expect }) => {
    expect(stack().vars.TWILIO_FROM_NUMBERS).toBe(PLATFORM);
    const ws = await createWorkspace();
    const shared = await expectError(
      await ws.api("/v1/phone-numbers", { method: "POST", json: { number: PLATFORM } }),
      409,
      "phone_number_taken",
    );
    expect(shared.message).toContain("shared");
    const agent = await createAgent(ws);
    expect((await accepted(await call(ws, agent.id, { fromNumber: PLATFORM }))).fromNumber).toBe(PLATFORM);
    expect((await accepted(await call(ws, agent.id, {}))).fromNumber).toBe(PLATFORM);
  });
});

describe.concurrent("Idempotency-Key", () => {
  it("answers concurrent retries with one call and dials once; another body with the same key is a 409", async ({ expect }) => {
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
});

describe.concurrent("call reads: the API and the dashboard", () => {
  it("list the same calls for the same filters, newest first, and only the workspace's", async ({ expect }) => {
    const ws = await createWorkspace("Call reads");
    const [a, b] = [await createAgent(ws, { name: "Agent A" }), await createAgent(ws, { name: "Agent B" })];
    const phone = await json<{ id: string }>(await ws.api(`/v1/agents/${a.id}/calls`, { method: "POST", json: { phoneNumber: BUSY } }));
    await waitForCall(ws, phone.id, (c) => c.status === "busy", 20_000);
    const webA = await webCall(ws, a.id);
    const webB = await webCall(ws, b.id);
    const other = await createWorkspace("Call reads, other");
    await webCall(other, (await createAgent(other)).id);
    const { cookie } = await signIn(ws.admin.email, ws.admin.password);

    const api = async (query: string) =>
      (await json<{ data: Array<{ id: string }> }>(await ws.api(`/v1/calls?${query}`))).data.map((c) => c.id);
    const page = async (query: string) => {
      const res = await request(`/dashboard/calls?${query}`, { headers: { cookie } });
      expect(res.status).toBe(200);
      return linkedCalls(await res.text());
    };
    const expected: Array<[string, string[]]> = [
      ["", [webB, webA, phone.id]],
      [`agentId=${a.id}`, [webA, phone.id]],
      [`agentId=${b.id}`, [webB]],
      ["status=busy", [phone.id]],
      ["status=queued", [webB, webA]],
      ["status=completed", []],
      ["type=phone", [phone.id]],
      ["direction=web", [webB, webA]],
      ["direction=inbound", []],
      ["direction=outbound", [phone.id]],
      [`agentId=${a.id}&type=web&direction=web&status=queued`, [webA]],
    ];
    for (const [query, ids] of expected) {
      expect(await api(query), `GET /v1/calls?${query}`).toEqual(ids);
      expect(await page(query), `/dashboard/calls?${query}`).toEqual(ids);
    }
    // A value the dashboard's form does not offer filters nothing there; the API refuses it.
    expect(await page("status=bogus&type=fax&agentId=nope")).toEqual([webB, webA, phone.id]);
    await expectError(await ws.api("/v1/calls?status=bogus"), 400, "validation_failed");
  }, 60_000);
});

// Alone, after the calls above: the page closes as soon as the greeting is shown, and the greeting is
// kept whole only if it was sent whole by then, which its clauses are from a speech thread no other
// call is using (src/calls/pipeline/transport-out.ts, keepHeard).
describe("web calls: how they end", () => {
  it("keeps the greeting a browser was sent and shown, when it closes before playing it (no mark echoed)", async ({ expect }) => {
    const ws = await createWorkspace();
    const greeting = "Hello and welcome to Acme Dental, how can I help you today?";
    const agent = await createAgent(ws, { firstMessage: greeting });
    const { call, webCall } = await json<{ call: { id: string }; webCall: { url: string } }>(
      await ws.api(`/v1/agents/${agent.id}/web-call`, { method: "POST", json: {} }),
    );
    const client = await joinWebCall(webCall.url, { echoMarks: false });
    await client.waitForEvent((e) => e.type === "transcript" && e.role === "agent");
    client.ws.close(); // the page closed: nothing of the greeting played, its mark never came back
    await client.closed;
    const done = await waitForCall(ws, call.id, (c) => c.status !== "in-progress" && c.status !== "queued");
    expect(done).toMatchObject({ status: "completed", endedReason: "customer-ended-call" });
    expect(done.transcript.turns).toEqual([expect.objectContaining({ role: "agent", text: greeting, interrupted: true })]);
  }, 30_000);
});
