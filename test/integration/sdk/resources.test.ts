// Every resource of the SDK (packages/sdk) against the real worker on the local stack: what each
// method sends is what the API takes, and what it returns is the API's answer, typed. Errors:
// errors.test.ts; retries and idempotency: retries.test.ts; pages: pagination.test.ts; webhook
// verification and the call recording: webhooks.test.ts; the built package in Node and workerd:
// runtimes.test.ts.
import { describe, expect, it } from "vitest";
import { ConflictError, NotFoundError, ValidationError } from "../../../packages/sdk/src/index";
import { parseWav } from "../../../src/lib/audio";
import { BUSY } from "../../support/callees";
import { freshNumber, twilioHas } from "../../support/calls";
import { createWorkspace, settled } from "../../support/harness";
import { newBot } from "../../support/messaging";
import { PERSONA, sdkFor } from "../../support/sdk";
import { SITE, visitor, chat as widgetChat } from "../../support/widgets";

const ALLOY = "00000000-0000-7000-8000-000000000001";

describe("SDK resources", () => {
  it("me.retrieve: who the key is", async () => {
    const ws = await createWorkspace();
    const me = await sdkFor(ws).me.retrieve();
    expect(me).toMatchObject({ authenticated: true, authType: "api_key", organizationId: ws.organizationId, role: "admin" });
  });

  it("agents: create, retrieve, update, rotateToolSecret, list, del", async () => {
    const client = sdkFor(await createWorkspace());
    const agent = await client.agents.create({ name: "Front desk", personaId: PERSONA, firstMessage: "Hello!" });
    expect(agent).toMatchObject({ name: "Front desk", personaId: PERSONA, firstMessage: "Hello!" });
    // The tool secret is shown in full on creation only (docs/tools.md), masked when read.
    expect(await client.agents.retrieve(agent.id)).toEqual({ ...agent, toolSecret: `tss_...${agent.toolSecret?.slice(-6)}` });
    const updated = await client.agents.update(agent.id, { name: "Reception", temperature: 0.2 });
    expect(updated).toMatchObject({ id: agent.id, name: "Reception", temperature: 0.2 });
    const rotated = await client.agents.rotateToolSecret(agent.id);
    expect(rotated.toolSecret).toMatch(/^tss_[A-Za-z0-9]{20,}$/);
    expect((await client.agents.retrieve(agent.id)).toolSecret).not.toBe(rotated.toolSecret); // masked once shown
    const page = await client.agents.list({ name: "recep" });
    expect(page.data.map((a) => a.id)).toEqual([agent.id]);
    expect(page.hasMore).toBe(false);
    await expect(client.agents.del(agent.id)).resolves.toBeUndefined();
    await expect(client.agents.retrieve(agent.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it("agents' versions: saveDraft, publish, rollback, listVersions, retrieveVersion, diffVersions", async () => {
    const client = sdkFor(await createWorkspace());
    const agent = await client.agents.create({ name: "Front desk", personaId: PERSONA, systemPrompt: "One." });
    const drafted = await client.agents.saveDraft(agent.id, { systemPrompt: "Two." });
    expect(drafted).toMatchObject({ systemPrompt: "One.", liveVersion: 1, latestVersion: 2, hasDraft: true });
    expect(await client.agents.publish(agent.id)).toMatchObject({ systemPrompt: "Two.", liveVersion: 2, hasDraft: false });
    expect(await client.agents.rollback(agent.id, { version: 1 })).toMatchObject({ systemPrompt: "One.", liveVersion: 3 });
    const versions = await client.agents.listVersions(agent.id, { limit: 2 });
    expect(versions.data.map((v) => v.version)).toEqual([3, 2]);
    expect(versions.hasMore).toBe(true);
    expect((await client.agents.retrieveVersion(agent.id, 2)).config.systemPrompt).toBe("Two.");
    const diff = await client.agents.diffVersions(agent.id, 2, 3);
    expect(diff.changes).toEqual([{ field: "systemPrompt", before: "Two.", after: "One." }]);
    await expect(client.agents.retrieveVersion(agent.id, 9)).rejects.toBeInstanceOf(NotFoundError);
  });

  it("voices: system voices listed; an owned voice created, retrieved, updated, filtered, deleted", async () => {
    const client = sdkFor(await createWorkspace());
    const system = await client.voices.list({ type: "system", limit: 100 });
    expect(system.data.some((v) => v.id === ALLOY && v.type === "system")).toBe(true);
    const voice = await client.voices.create({ name: "Clara", provider: "sandbox", providerVoiceId: "echo", language: "en" });
    expect(voice).toMatchObject({ type: "owned", name: "Clara", provider: "sandbox" });
    expect((await client.voices.retrieve(voice.id)).id).toBe(voice.id);
    expect((await client.voices.update(voice.id, { name: "Clara (support)" })).name).toBe("Clara (support)");
    expect((await client.voices.list({ type: "owned" })).data.map((v) => v.id)).toEqual([voice.id]);
    await client.voices.del(voice.id);
    expect((await client.voices.list({ type: "owned" })).data).toEqual([]);
  });

  it("knowledgeBases: a base created, a file and text added and processed, queried, listed, updated; a document and the base deleted", async () => {
    const client = sdkFor(await createWorkspace());
    const base = await client.knowledgeBases.create({ name: "Office" });
    expect(base).toMatchObject({ name: "Office", documentCount: 0 });
    const file = await client.knowledgeBases.documents.create(base.id, {
      file: new TextEncoder().encode("# Parking\n\nFree parking behind the building."),
      filename: "parking.md",
    });
    expect(file).toMatchObject({ status: "processing", name: "parking.md", contentType: "text/markdown" });
    const text = await client.knowledgeBases.documents.create(base.id, { type: "text", name: "Hours", text: "Open 8 to 18 on weekdays." });
    const ready = await client.knowledgeBases.documents.waitUntilProcessed(base.id, file.id, { intervalMs: 50 });
    expect(ready.status).toBe("ready");
    expect((await client.knowledgeBases.documents.waitUntilProcessed(base.id, text.id, { intervalMs: 50 })).status).toBe("ready");
    expect((await client.knowledgeBases.documents.retrieve(base.id, file.id)).chunkCount).toBe(1);
    const found = await client.knowledgeBases.query(base.id, { query: "Where do I park?", topK: 1 });
    expect(found.data[0]).toMatchObject({ documentId: file.id, heading: "Parking" });
    expect((await client.knowledgeBases.documents.list(base.id, { status: "ready" })).data).toHaveLength(2);
    expect((await client.knowledgeBases.update(base.id, { description: "Front desk" })).description).toBe("Front desk");
    expect((await client.knowledgeBases.retrieve(base.id)).documentCount).toBe(2);
    await client.knowledgeBases.documents.del(base.id, text.id);
    expect((await client.knowledgeBases.list()).data.map((b) => b.documentCount)).toEqual([1]);
    await client.knowledgeBases.del(base.id);
    await expect(client.knowledgeBases.retrieve(base.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it("phoneNumbers and calls: a caller id added and given an agent to answer it, a call placed from it, read and listed, a web call started and ended; the number removed", async () => {
    const ws = await createWorkspace();
    const client = sdkFor(ws);
    const number = await twilioHas(freshNumber());
    const added = await client.phoneNumbers.create({ number, label: "Main line" });
    expect(added).toMatchObject({ number, label: "Main line" });
    expect((await client.phoneNumbers.list()).data.map((n) => n.id)).toEqual([added.id]);

    const agent = await client.agents.create({ name: "Caller", personaId: PERSONA, llmModel: "sandbox-chat" });
    const answering = await client.phoneNumbers.update(added.id, { label: "Front desk", agentId: agent.id });
    expect(answering).toMatchObject({ id: added.id, label: "Front desk", agentId: agent.id });
    const call = await client.calls.create(agent.id, { phoneNumber: BUSY, phoneNumberId: added.id, metadata: { order: 1042 } });
    expect(call).toMatchObject({ type: "phone", direction: "outbound", toNumber: BUSY, fromNumber: number, metadata: { order: 1042 } });
    expect((await client.calls.retrieve(call.id)).id).toBe(call.id);

    const web = await client.calls.createWebCall(agent.id, { variables: { name: "Ada" } });
    expect(web.call).toMatchObject({ type: "web", agentId: agent.id });
    expect(web.webCall).toMatchObject({ sampleRate: 16000, encoding: "pcm_s16le" });
    expect(web.webCall.url).toMatch(/^ws:\/\//);

    const phoneCalls = await client.calls.list({ agentId: agent.id, type: "phone" });
    expect(phoneCalls.data.map((c) => c.id)).toEqual([call.id]);
    const all = await client.calls.list({ agentId: agent.id });
    expect(all.data.map((c) => c.id)).toEqual([web.call.id, call.id]);
    // A web call nobody joined is canceled at once; ending it again is a conflict.
    const canceled = await client.calls.end(web.call.id);
    expect(canceled).toMatchObject({ id: web.call.id, status: "canceled", endedReason: "call-canceled" });
    await expect(client.calls.end(web.call.id)).rejects.toBeInstanceOf(ConflictError);

    await client.phoneNumbers.del(added.id);
    expect((await client.phoneNumbers.list()).data).toEqual([]);
  });

  it("widgets: create, retrieve, update, list, rotateToken, revoke, del; chats: a widget conversation listed and read", async () => {
    const client = sdkFor(await createWorkspace());
    const agent = await client.agents.create({ name: "Site agent", personaId: PERSONA, llmModel: "sandbox-chat" });
    const widget = await client.widgets.create({ agentId: agent.id, name: "Shop", allowedOrigins: [SITE] });
    expect(widget).toMatchObject({ agentId: agent.id, name: "Shop", status: "active" });
    expect((await client.widgets.retrieve(widget.id)).token).toBe(widget.token);
    expect((await client.widgets.update(widget.id, { title: "Ask us" })).title).toBe("Ask us");
    expect((await client.widgets.list({ agentId: agent.id })).data.map((w) => w.id)).toEqual([widget.id]);

    const reply = await widgetChat(widget.token, { visitorId: visitor(), message: "Hello there" });
    const chats = await client.chats.list({ channel: "widget", channelId: widget.id });
    expect(chats.data.map((c) => c.id)).toEqual([reply.sessionId]);
    const chat = await client.chats.retrieve(reply.sessionId);
    expect(chat).toMatchObject({ id: reply.sessionId, agentId: agent.id });

    const rotated = await client.widgets.rotateToken(widget.id);
    expect(rotated.token).not.toBe(widget.token);
    expect((await client.widgets.revoke(widget.id)).status).toBe("revoked");
    await client.widgets.del(widget.id);
    await expect(client.widgets.retrieve(widget.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it("channels: a Telegram bot connected, read, paused, listed, tested, removed", async () => {
    const client = sdkFor(await createWorkspace());
    const agent = await client.agents.create({ name: "Bot agent", personaId: PERSONA, llmModel: "sandbox-chat" });
    const bot = await newBot();
    const channel = await client.channels.create({
      type: "telegram",
      name: "Support bot",
      agentId: agent.id,
      credentials: { botToken: bot.token },
    });
    expect(channel).toMatchObject({ type: "telegram", status: "active", agentId: agent.id });
    expect(JSON.stringify(channel)).not.toContain(bot.token);
    expect((await client.channels.retrieve(channel.id)).id).toBe(channel.id);
    expect((await client.channels.update(channel.id, { status: "paused" })).status).toBe("paused");
    expect((await client.channels.list({ type: "telegram", status: "paused" })).data.map((c) => c.id)).toEqual([channel.id]);
    const check = await client.channels.test(channel.id);
    expect(check.ok).toBe(true);
    await client.channels.del(channel.id);
    expect((await client.channels.list()).data).toEqual([]);
  });

  it("models: chat (both paths), tts and audio.speech as bytes, stt and audio.transcriptions from bytes and a Blob; usage and its log", async () => {
    const ws = await createWorkspace();
    const client = sdkFor(ws);
    const messages = [{ role: "user" as const, content: "Say hello." }];
    const completion = await client.chat.create({ model: "sandbox-chat", messages });
    expect(completion.choices[0]?.message.content).toEqual(expect.any(String));
    expect(completion.usage?.total_tokens).toBeGreaterThan(0);
    expect((await client.chat.completions.create({ model: "sandbox-chat", messages })).object).toBe("chat.completion");

    const wav = await client.tts.create({ text: "Hello from the SDK.", voiceId: ALLOY });
    expect(wav).toBeInstanceOf(Uint8Array);
    expect(parseWav(wav)?.durationSeconds).toBeGreaterThan(0.5);
    const speechBytes = await client.audio.speech.create({ model: "tts-1", voice: "alloy", input: "Through the OpenAI path." });
    expect(parseWav(speechBytes)?.durationSeconds).toBeGreaterThan(0.3);

    // A Node Buffer (a Uint8Array), then a Blob with a file name.
    const fromBuffer = await client.stt.create({ file: Buffer.from(wav), language: "en" });
    expect(fromBuffer.text.toLowerCase()).toContain("hello");
    expect(fromBuffer.durationSeconds).toBeGreaterThan(0.5);
    const spoken = await client.tts.create({ text: "Tuesday morning works for me.", voiceId: ALLOY });
    const text = await client.audio.transcriptions.create({
      file: new Blob([spoken], { type: "audio/wav" }),
      filename: "line.wav",
      model: "whisper-1",
      response_format: "text",
    });
    expect(typeof text).toBe("string");
    expect(text.toLowerCase()).toContain("tuesday");

    await settled(ws.organizationId);
    const usage = await client.usage.retrieve({ modality: "tts" });
    expect(usage.credits.remaining).toBeGreaterThan(0);
    expect(usage.requests.data.every((e) => e.modality === "tts")).toBe(true);
    const events = [];
    for await (const e of client.usage.listEvents({ limit: 2 })) events.push(e);
    expect(events.map((e) => e.modality).sort()).toEqual(["chat", "chat", "stt", "stt", "tts", "tts", "tts"].sort());
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
  });

  it("webhookEndpoints: create, retrieve, update, list, sendTest, the delivery log, resend, the test receiver, rotateSecret, del", async () => {
    const client = sdkFor(await createWorkspace());
    const endpoint = await client.webhookEndpoints.create({ name: "Receiver", channels: ["voice"], useTestReceiver: true });
    expect(endpoint.secret).toMatch(/^whs_/);
    expect((await client.webhookEndpoints.retrieve(endpoint.id)).secret).not.toBe(endpoint.secret); // masked after creation
    expect((await client.webhookEndpoints.update(endpoint.id, { description: "For the tour" })).description).toBe("For the tour");
    expect((await client.webhookEndpoints.list()).data.map((e) => e.id)).toEqual([endpoint.id]);

    const delivery = await client.webhookEndpoints.sendTest(endpoint.id);
    expect(delivery).toMatchObject({ endpointId: endpoint.id, event: "call.completed", status: "succeeded" });
    const log = await client.webhookEndpoints.deliveries.list(endpoint.id);
    expect(log.data.map((d) => d.id)).toEqual([delivery.id]);
    const resent = await client.webhookEndpoints.deliveries.resend(endpoint.id, delivery.id);
    expect(resent.id).toBe(delivery.id);
    expect(resent.attempts.length).toBe(2);
    const captures = await client.webhookEndpoints.testReceiverCaptures(endpoint.id);
    expect(captures.requests).toHaveLength(2);
    expect(captures.requests[0]?.headers["x-service-delivery-id"]).toBe(delivery.id);
    // Send Test of another event: its synthetic payload, chat-shaped; an event not sent is a 400.
    const widget = await client.webhookEndpoints.sendTest(endpoint.id, { event: "widget.completed" });
    expect(widget).toMatchObject({ event: "widget.completed", status: "succeeded" });
    expect(JSON.parse(widget.body)).toMatchObject({ event: "widget.completed", channel: "widget", chat: { status: "completed" } });
    await expect(client.webhookEndpoints.sendTest(endpoint.id, { event: "sms.started" as "call.started" })).rejects.toBeInstanceOf(
      ValidationError,
    );

    const rotated = await client.webhookEndpoints.rotateSecret(endpoint.id);
    expect(rotated.secret).toMatch(/^whs_/);
    expect(rotated.secret).not.toBe(endpoint.secret);
    await client.webhookEndpoints.del(endpoint.id);
    await expect(client.webhookEndpoints.retrieve(endpoint.id)).rejects.toBeInstanceOf(NotFoundError);
  });
});
