// Telegram channels through the real worker and the Telegram sandbox (docs/messaging.md): a
// conversation end to end with both webhooks verified, voice notes, unsupported messages, the
// end command, idle timeout, pause, removal, and the refusals: forged updates, a redelivered
// update, bad credentials, a bot connected twice, another workspace's channel.
import { and, count, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { MAX_CHAT_TURNS } from "../../../src/chats/runtime";
import { chats, messagingInbound, organizations, usageEvents } from "../../../src/db/schema";
import { FIXED_REPLIES } from "../../../src/messaging/conversation";
import { createWorkspace, expectError, request, settled, stack, testDb, until, type Workspace } from "../../support/harness";
import { connectTelegram, createAgent, newBot, telegram } from "../../support/messaging";
import { startReceiver } from "../../support/receiver";
import { stripeAccepts } from "../../support/stripe";
import { createEndpoint } from "../../support/webhooks";

let user = 1_000_000 + Math.floor(Math.random() * 1_000_000);
const nextUser = () => ++user;

async function sessionsOf(channelId: string) {
  return testDb().select().from(chats).where(eq(chats.channelId, channelId)).orderBy(chats.id);
}

async function hooked(ws: Workspace) {
  const receiver = await startReceiver();
  const endpoint = await createEndpoint(ws, {
    name: "chats",
    url: receiver.url,
    channels: ["chat"],
    events: ["telegram.started", "telegram.completed"],
  });
  return { receiver, secret: endpoint.secret as string };
}

describe("a Telegram conversation", () => {
  it("answers with the agent's LLM, ends on /end, and fires telegram.started and telegram.completed, signed", async () => {
    const ws = await createWorkspace();
    const { receiver, secret } = await hooked(ws);
    const { bot, channel, agentId } = await connectTelegram(ws);
    expect(channel).toMatchObject({
      type: "telegram",
      status: "active",
      agentId,
      info: { botId: String(bot.id), botUsername: bot.username },
    });
    expect(channel.webhookUrl).toBe(`${stack().baseUrl}/channels/telegram/${channel.id}`);
    const hook = (await telegram.bot(bot)).webhook;
    expect(hook.url).toBe(channel.webhookUrl);
    expect(hook.secret_token).toMatch(/^[A-Za-z0-9]{48}$/);
    expect(JSON.stringify(channel)).not.toContain(bot.token);

    const chatId = nextUser();
    await telegram.send(bot, chatId, { text: "Hello, what can you do?", from: { first_name: "Ada", last_name: "L" } });
    const reply = await telegram.next(bot, chatId);
    expect(reply.from).toBe("bot");
    expect(reply.text?.length).toBeGreaterThan(0);

    const [open] = await until(
      () => sessionsOf(channel.id),
      (rows) => rows[0]?.messageCount === 2,
    );
    expect(open).toMatchObject({
      status: "in-progress",
      channel: "telegram",
      endUserId: String(chatId),
      endUserName: "Ada L",
      agentId,
    });
    expect(open?.transcript.map((t) => [t.role, t.text])).toEqual([
      ["user", "Hello, what can you do?"],
      ["agent", reply.text],
    ]);
    await settled(ws.organizationId);
    const usage = await testDb().select().from(usageEvents).where(eq(usageEvents.organizationId, ws.organizationId));
    expect(usage).toEqual([expect.objectContaining({ method: "CHAT", endpoint: `/v1/chats/${open?.id}`, modality: "chat", status: 200 })]);

    await telegram.send(bot, chatId, { text: "/end" });
    expect((await telegram.next(bot, chatId)).text).toBe(FIXED_REPLIES.ended);
    const [ended] = await until(
      () => sessionsOf(channel.id),
      (rows) => rows[0]?.status === "completed",
    );
    expect(ended).toMatchObject({ status: "completed", endedReason: "user-ended", messageCount: 4 });

    const deliveries = await receiver.waitFor(2);
    const bodies = deliveries.map((d) => JSON.parse(d.body));
    expect(bodies.map((b) => b.event)).toEqual(["telegram.started", "telegram.completed"]);
    for (const d of deliveries) expect(stripeAccepts(d.body, String(d.headers["x-service-signature"]), secret)).toBe(true);
    expect(bodies[1]).toMatchObject({
      channel: "telegram",
      chat: {
        id: open?.id,
        status: "completed",
        agentId,
        channelId: channel.id,
        endUserId: String(chatId),
        endUserName: "Ada L",
        messageCount: 4,
      },
      transcript: {
        turns: [
          { role: "user", text: "Hello, what can you do?" },
          { role: "agent" },
          { role: "user", text: "/end" },
          { role: "agent", text: FIXED_REPLIES.ended },
        ],
      },
      metadata: { channelType: "telegram", endedReason: "user-ended" },
    });
    expect(bodies[0].transcript).toBeNull();
    await receiver.stop();
  });

  it("transcribes a voice note (metered) and answers it; answers a sticker with the fixed reply", async () => {
    const ws = await createWorkspace();
    const { bot, channel } = await connectTelegram(ws);
    const chatId = nextUser();
    await telegram.send(bot, chatId, { voice: "What are your opening hours on Saturday?" });
    const reply = await telegram.next(bot, chatId);
    expect(reply.text?.length).toBeGreaterThan(0);
    await telegram.send(bot, chatId, { sticker: { emoji: "👍" } });
    expect((await telegram.next(bot, chatId)).text).toBe(FIXED_REPLIES.unsupported);
    const [session] = await until(
      () => sessionsOf(channel.id),
      (rows) => rows[0]?.messageCount === 4,
    );
    expect(session?.transcript.filter((t) => t.role === "user").map((t) => [t.kind, t.text])).toEqual([
      ["voice", "What are your opening hours on Saturday?"],
      ["unsupported", "[sticker]"],
    ]);
    await settled(ws.organizationId);
    const usage = await testDb().select().from(usageEvents).where(eq(usageEvents.organizationId, ws.organizationId));
    expect(usage.map((u) => u.modality).sort()).toEqual(["chat", "stt"]);
  });

  it("answers out of credits with the documented reply, not silence", async () => {
    const ws = await createWorkspace();
    await testDb().update(organizations).set({ creditsMicro: 0 }).where(eq(organizations.id, ws.organizationId));
    const { bot } = await connectTelegram(ws);
    const chatId = nextUser();
    await telegram.send(bot, chatId, { text: "Are you there?" });
    expect((await telegram.next(bot, chatId)).text).toBe(FIXED_REPLIES.outOfCredits);
  });

  it("answers a redelivered update once", async () => {
    const ws = await createWorkspace();
    const { bot, channel } = await connectTelegram(ws);
    const chatId = nextUser();
    const { update_id } = await telegram.send(bot, chatId, { text: "Only once, please." });
    await telegram.next(bot, chatId);
    await telegram.redeliver(bot, update_id);
    await telegram.send(bot, chatId, { text: "And now a second question." });
    await telegram.next(bot, chatId);
    const log = (await telegram.chat(bot, chatId)).messages.filter((m) => m.kind !== "chat_action");
    expect(log.map((m) => m.from)).toEqual(["user", "bot", "user", "bot"]);
    const [stored] = await testDb().select({ n: count() }).from(messagingInbound).where(eq(messagingInbound.channelId, channel.id));
    expect(stored?.n).toBe(2);
  });

  it("answers one conversation's messages in order, one at a time", async () => {
    const ws = await createWorkspace();
    const { bot, channel } = await connectTelegram(ws);
    const chatId = nextUser();
    for (const text of ["first", "second", "third"]) await telegram.send(bot, chatId, { text });
    const [session] = await until(
      () => sessionsOf(channel.id),
      (rows) => rows[0]?.messageCount === 6,
      30_000,
    );
    expect(session?.transcript.map((t) => t.role)).toEqual(["user", "agent", "user", "agent", "user", "agent"]);
    expect(session?.transcript.filter((t) => t.role === "user").map((t) => t.text)).toEqual(["first", "second", "third"]);
  });

  it("a full conversation ends (session-full) and the message that found it full starts the next one, answered there", async () => {
    const ws = await createWorkspace();
    const { bot, channel } = await connectTelegram(ws);
    const chatId = nextUser();
    await telegram.send(bot, chatId, { text: "Hi" });
    await telegram.next(bot, chatId);
    const [first] = await until(
      () => sessionsOf(channel.id),
      (rows) => rows[0]?.messageCount === 2,
    );
    await testDb()
      .update(chats)
      .set({ messageCount: MAX_CHAT_TURNS - 1 })
      .where(eq(chats.channelId, channel.id));
    await telegram.send(bot, chatId, { text: "Still there?" });
    await telegram.next(bot, chatId);
    const [full, next] = await until(
      () => sessionsOf(channel.id),
      (rows) => rows.length === 2 && rows[1]?.messageCount === 2,
    );
    expect(full).toMatchObject({ id: first?.id, status: "completed", endedReason: "session-full", messageCount: MAX_CHAT_TURNS - 1 });
    expect(full?.transcript.map((t) => t.text)).not.toContain("Still there?");
    expect(next).toMatchObject({ status: "in-progress", endUserId: String(chatId) });
    expect(next?.transcript.map((t) => [t.role, t.text])[0]).toEqual(["user", "Still there?"]);
  });

  it("ends an idle conversation on the cron sweep (inactivity), and a paused channel answers nothing", async () => {
    const ws = await createWorkspace();
    const { bot, channel } = await connectTelegram(ws, { idleTimeoutSeconds: 60 });
    const chatId = nextUser();
    await telegram.send(bot, chatId, { text: "Hi" });
    await telegram.next(bot, chatId);
    // The reply's turn is written after it is sent: backdate once it is in, or the append undoes it.
    await until(
      () => sessionsOf(channel.id),
      (rows) => rows[0]?.messageCount === 2,
    );
    await testDb().update(chats).set({ lastActivityAt: sql`now() - interval '61 seconds'` }).where(eq(chats.channelId, channel.id));
    const cron = await fetch(`${stack().baseUrl}/__scheduled?cron=${encodeURIComponent("* * * * *")}`);
    expect(cron.status).toBe(200);
    const [ended] = await until(
      () => sessionsOf(channel.id),
      (rows) => rows[0]?.status === "completed",
    );
    expect(ended).toMatchObject({ status: "completed", endedReason: "inactivity" });

    expect((await ws.api(`/v1/channels/${channel.id}`, { method: "PATCH", json: { status: "paused" } })).status).toBe(200);
    const { update_id } = await telegram.send(bot, chatId, { text: "Anyone?" });
    const deliveries = await until(
      () =>
        fetch(`${telegram.url()}/__sandbox/bots/${bot.id}/deliveries`).then(
          (r) => r.json() as Promise<Array<{ update_id: number; outcome: string }>>,
        ),
      (d) => d.some((x) => x.update_id === update_id && x.outcome === "delivered"),
    );
    expect(deliveries.find((x) => x.update_id === update_id)?.outcome).toBe("delivered");
    await new Promise((r) => setTimeout(r, 500));
    expect((await telegram.chat(bot, chatId)).messages.filter((m) => m.from === "bot" && m.kind !== "chat_action")).toHaveLength(1);
    expect(await sessionsOf(channel.id)).toHaveLength(1);
  });

  it("removing the channel ends its conversations (channel-removed) and deletes the bot's webhook", async () => {
    const ws = await createWorkspace();
    const { bot, channel } = await connectTelegram(ws);
    const chatId = nextUser();
    await telegram.send(bot, chatId, { text: "Hello" });
    await telegram.next(bot, chatId);
    expect((await ws.api(`/v1/channels/${channel.id}`, { method: "DELETE" })).status).toBe(204);
    const [session] = await testDb()
      .select()
      .from(chats)
      .where(eq(chats.endUserId, String(chatId)));
    expect(session).toMatchObject({ status: "completed", endedReason: "channel-removed", channelId: null });
    expect((await telegram.bot(bot)).webhook.url).toBe("");
    await expectError(await ws.api(`/v1/channels/${channel.id}`), 404, "not_found");
  });

  it("deleting the channel's agent removes the channel; the cron sweep ends its open conversations", async () => {
    const ws = await createWorkspace();
    const { bot, channel, agentId } = await connectTelegram(ws);
    const chatId = nextUser();
    await telegram.send(bot, chatId, { text: "Hello" });
    await telegram.next(bot, chatId);
    expect((await ws.api(`/v1/agents/${agentId}`, { method: "DELETE" })).status).toBe(204);
    await expectError(await ws.api(`/v1/channels/${channel.id}`), 404, "not_found");
    expect((await fetch(`${stack().baseUrl}/__scheduled?cron=${encodeURIComponent("* * * * *")}`)).status).toBe(200);
    const read = () =>
      testDb()
        .select()
        .from(chats)
        .where(eq(chats.endUserId, String(chatId)));
    const [session] = await until(read, (rows) => rows[0]?.status === "completed");
    expect(session).toMatchObject({ status: "completed", endedReason: "channel-removed", channelId: null, agentId: null });
  });
});

describe("Telegram refusals", () => {
  it("refuses updates without, or with a wrong, secret token, and stores nothing", async () => {
    const ws = await createWorkspace();
    const { channel } = await connectTelegram(ws);
    const update = {
      update_id: 42,
      message: { message_id: 1, date: 1_700_000_000, chat: { id: 7, type: "private" }, from: { id: 7 }, text: "forged" },
    };
    await expectError(await request(`/channels/telegram/${channel.id}`, { method: "POST", json: update }), 401, "unauthorized");
    await expectError(
      await request(`/channels/telegram/${channel.id}`, {
        method: "POST",
        json: update,
        headers: { "x-telegram-bot-api-secret-token": "A".repeat(48) },
      }),
      401,
      "unauthorized",
    );
    await expectError(await request(`/channels/telegram/${crypto.randomUUID()}`, { method: "POST", json: update }), 404, "not_found");
    const [stored] = await testDb().select({ n: count() }).from(messagingInbound).where(eq(messagingInbound.channelId, channel.id));
    expect(stored?.n).toBe(0);
  });

  it("refuses a token Telegram rejects, saving nothing; a bot connected twice is 409", async () => {
    const ws = await createWorkspace();
    const agent = await createAgent(ws);
    const bot = await newBot();
    await telegram.revoke(bot);
    const refused = await ws.api("/v1/channels", {
      method: "POST",
      json: { type: "telegram", name: "x", agentId: agent.id, credentials: { botToken: bot.token } },
    });
    expect(await refused.clone().text()).not.toContain(bot.token);
    await expectError(refused, 400, "channel_credentials_rejected");
    const list = (await (await ws.api("/v1/channels")).json()) as { data: unknown[] };
    expect(list.data).toEqual([]);

    const { bot: taken } = await connectTelegram(ws);
    const again = await ws.api("/v1/channels", {
      method: "POST",
      json: { type: "telegram", name: "y", agentId: agent.id, credentials: { botToken: taken.token } },
    });
    await expectError(again, 409, "channel_taken");
  });

  it("keeps two workspaces' conversations apart, also for the same end user", async () => {
    const [a, b] = await Promise.all([createWorkspace("a"), createWorkspace("b")]);
    const [ca, cb] = await Promise.all([connectTelegram(a), connectTelegram(b)]);
    const chatId = nextUser();
    await telegram.send(ca.bot, chatId, { text: "for workspace a" });
    await telegram.send(cb.bot, chatId, { text: "for workspace b" });
    await Promise.all([telegram.next(ca.bot, chatId), telegram.next(cb.bot, chatId)]);
    const [sa] = await until(
      () => sessionsOf(ca.channel.id),
      (r) => r[0]?.messageCount === 2,
    );
    const [sb] = await until(
      () => sessionsOf(cb.channel.id),
      (r) => r[0]?.messageCount === 2,
    );
    expect(sa).toMatchObject({ organizationId: a.organizationId });
    expect(sb).toMatchObject({ organizationId: b.organizationId });
    expect(sa?.transcript[0]?.text).toBe("for workspace a");
    expect(sb?.transcript[0]?.text).toBe("for workspace b");
    await expectError(await b.api(`/v1/channels/${ca.channel.id}`), 404, "not_found");
    const rows = await testDb()
      .select({ n: count() })
      .from(chats)
      .where(and(eq(chats.organizationId, b.organizationId), eq(chats.channelId, ca.channel.id)));
    expect(rows[0]?.n).toBe(0);
  });

  it("validates what connects a channel", async () => {
    const ws = await createWorkspace();
    const agent = await createAgent(ws);
    const post = (json: unknown) => ws.api("/v1/channels", { method: "POST", json });
    await expectError(
      await post({ type: "telegram", name: "x", agentId: agent.id, credentials: { botToken: "nope" } }),
      400,
      "validation_failed",
    );
    await expectError(await post({ type: "sms", name: "x", agentId: agent.id, credentials: {} }), 400, "validation_failed");
    await expectError(
      await post({ type: "telegram", name: "x", agentId: crypto.randomUUID(), credentials: { botToken: `123456:${"A".repeat(35)}` } }),
      400,
      "validation_failed",
    );
    await expectError(
      await post({ type: "telegram", name: "", agentId: agent.id, credentials: { botToken: `123456:${"A".repeat(35)}` } }),
      400,
      "validation_failed",
    );
  });
});
