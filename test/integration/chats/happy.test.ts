// GET /v1/chats and GET /v1/chats/:id through the real worker: widget chats made through the
// widget's public route and messaging sessions stored as the messaging runtime stores them, in
// one list, newest first, with filters and paging across both tables; one chat with its
// transcript; what each chat cost, from the usage log rows tagged with it.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { chats, messagingChannels, usageEvents } from "../../../src/db/schema";
import { createAgent } from "../../support/calls";
import { createWorkspace, settled, testDb } from "../../support/harness";
import { createWidget, SITE, visitor } from "../../support/widgets";
import { getChat, insertChannel, insertSession, insertUsage, listChats, listIds, MESSAGING_TRANSCRIPT, widgetChat } from "./helpers";

const sum = (xs: Array<number | null>) => xs.reduce<number>((a, b) => a + (b ?? 0), 0);

describe("GET /v1/chats and /v1/chats/:id", () => {
  it("list widget chats and messaging sessions together, newest first; one chat adds its transcript", async () => {
    const ws = await createWorkspace("Chats");
    const agent = await createAgent(ws, { name: "Front desk" });
    const widget = await createWidget(ws, { agentId: agent.id });
    const v = visitor();
    const ended = await widgetChat(widget.token, v, ["Hello", "Do you ship to Norway?"], true);
    const telegram = await insertChannel(ws, agent.id, "telegram");
    const tg = await insertSession(ws, { channel: telegram, agentName: "Front desk" });
    const open = await widgetChat(widget.token, visitor(), ["Still there?"]);
    const whatsapp = await insertChannel(ws, agent.id, "whatsapp");
    const wa = await insertSession(ws, { channel: whatsapp, agentName: "Front desk", status: "completed" });
    await settled(ws.organizationId); // the replies' charges are written after the answer

    const page = await listChats(ws);
    expect(page.data.map((c) => c.id)).toEqual([wa.id, open, tg.id, ended]);
    expect(page).toMatchObject({ hasMore: false, nextCursor: null });
    for (const c of page.data) expect(c).not.toHaveProperty("transcript");
    const byId = new Map(page.data.map((c) => [c.id, c]));
    const [endedRow] = await testDb().select().from(chats).where(eq(chats.id, ended));
    if (!endedRow?.endedAt) throw new Error("the visitor's end did not end the session");
    expect(byId.get(ended)).toMatchObject({
      channel: "widget",
      channelId: widget.id,
      agentId: agent.id,
      agentName: "Front desk",
      status: "completed",
      endedReason: "visitor-ended",
      endUser: { id: v, name: null, origin: SITE },
      messageCount: endedRow.transcript.length,
      startedAt: endedRow.startedAt.toISOString(),
      endedAt: endedRow.endedAt.toISOString(),
      lastActivityAt: endedRow.lastActivityAt.toISOString(),
    });
    expect(byId.get(open)).toMatchObject({ channel: "widget", status: "in-progress", endedReason: null, endedAt: null });
    expect(byId.get(tg.id)).toMatchObject({
      channel: "telegram",
      channelId: telegram.id,
      agentId: agent.id,
      agentName: "Front desk",
      status: "in-progress",
      endedReason: null,
      endUser: { id: tg.endUserId, name: "Ada Lovelace", origin: null },
      messageCount: 4,
      startedAt: tg.startedAt.toISOString(),
      endedAt: null,
    });
    expect(byId.get(wa.id)).toMatchObject({ channel: "whatsapp", channelId: whatsapp.id, status: "completed", endedReason: "user-ended" });

    // Every use of the widget's replies is tagged with its session, and the chat's cost is theirs.
    const uses = await testDb().select().from(usageEvents).where(eq(usageEvents.organizationId, ws.organizationId));
    expect(uses).toHaveLength(3);
    expect(uses.filter((u) => u.chatId === open)).toHaveLength(1);
    const mine = uses.filter((u) => u.chatId === ended);
    expect(mine).toHaveLength(2);
    const micro = sum(mine.map((u) => u.costMicro));
    expect(sum(mine.map((u) => u.quantity))).toBeGreaterThan(0);
    expect(byId.get(ended)?.cost).toEqual({
      credits: micro / 1_000_000,
      micro,
      requests: 2,
      llm: {
        quantity: sum(mine.map((u) => u.quantity)),
        unit: "tokens",
        credits: micro / 1_000_000,
        promptTokens: sum(mine.map((u) => u.promptTokens)),
        completionTokens: sum(mine.map((u) => u.completionTokens)),
      },
      stt: { quantity: 0, unit: "seconds", credits: 0 },
      tts: { quantity: 0, unit: "characters", credits: 0 },
    });
    expect(byId.get(tg.id)?.cost).toMatchObject({ credits: 0, micro: 0, requests: 0 });

    // One chat: the list's fields and the transcript, as stored, in order.
    const one = await getChat(ws, ended);
    expect(one).toEqual({
      ...byId.get(ended),
      transcript: {
        fullText: endedRow.transcript.map((t) => `${t.role === "agent" ? "Agent" : "User"}: ${t.text}`).join("\n"),
        turns: endedRow.transcript.map((t) => ({ role: t.role, text: t.text, at: t.at })),
      },
    });
    expect(one.transcript.turns.filter((t) => t.role === "user").map((t) => t.text)).toEqual(["Hello", "Do you ship to Norway?"]);
    const tgOne = await getChat(ws, tg.id);
    expect(tgOne).toEqual({ ...byId.get(tg.id), transcript: expect.any(Object) });
    expect(tgOne.transcript).toEqual({
      fullText:
        "User: Hi, are you open on Sunday?\nAgent: Yes, from 10 to 16.\nUser: [sticker]\nAgent: I can only read text and voice messages.",
      turns: MESSAGING_TRANSCRIPT,
    });
  });

  it("sum a messaging session's metered uses by modality: only successful ones, only the workspace's", async () => {
    const ws = await createWorkspace("Chat costs");
    const agent = await createAgent(ws);
    const session = await insertSession(ws, { channel: await insertChannel(ws, agent.id, "telegram") });
    const other = await insertSession(ws, { channel: await insertChannel(ws, agent.id, "whatsapp") });
    await insertUsage(ws, session.id, { modality: "stt", quantity: 12_345, costMicro: 1_235 });
    await insertUsage(ws, session.id, { modality: "chat", quantity: 300, costMicro: 180 });
    await insertUsage(ws, session.id, { modality: "chat", quantity: 200, costMicro: 120 });
    await insertUsage(ws, session.id, { modality: "tts", quantity: 40, costMicro: 600 });
    await insertUsage(ws, session.id, { modality: "chat", quantity: 0, costMicro: 0, status: 402 });
    await insertUsage(ws, other.id, { modality: "chat", quantity: 999, costMicro: 999 });
    await insertUsage(await createWorkspace("Chat costs, stranger"), session.id, { modality: "chat", quantity: 7, costMicro: 7 });

    const expected = {
      credits: 0.002135,
      micro: 2_135,
      requests: 4,
      llm: { quantity: 500, unit: "tokens", credits: 0.0003, promptTokens: 0, completionTokens: 0 },
      stt: { quantity: 12.3, unit: "seconds", credits: 0.001235 },
      tts: { quantity: 40, unit: "characters", credits: 0.0006 },
    };
    expect((await getChat(ws, session.id)).cost).toEqual(expected);
    const listed = (await listChats(ws)).data.find((c) => c.id === session.id);
    expect(listed?.cost).toEqual(expected);
  });

  it("filter by channel, channel id, agent, status and start time, across both tables", async () => {
    const ws = await createWorkspace("Chat filters");
    const [a, b] = [await createAgent(ws, { name: "Agent A" }), await createAgent(ws, { name: "Agent B" })];
    const [widgetA, widgetB] = [await createWidget(ws, { agentId: a.id }), await createWidget(ws, { agentId: b.id })];
    const [telegram, whatsapp] = [await insertChannel(ws, a.id, "telegram"), await insertChannel(ws, b.id, "whatsapp")];
    const w1 = await widgetChat(widgetA.token, visitor(), ["One"], true);
    const t1 = (await insertSession(ws, { channel: telegram })).id;
    const w2 = await widgetChat(widgetB.token, visitor(), ["Two"]);
    const a1 = (await insertSession(ws, { channel: whatsapp, status: "completed" })).id;
    const started = new Map((await listChats(ws)).data.map((c) => [c.id, c.startedAt]));
    const at = (id: string) => encodeURIComponent(started.get(id) ?? "");

    const expected: Array<[string, string[]]> = [
      ["", [a1, w2, t1, w1]],
      ["channel=widget", [w2, w1]],
      ["channel=telegram", [t1]],
      ["channel=whatsapp", [a1]],
      [`channelId=${widgetA.id}`, [w1]],
      [`channelId=${telegram.id}`, [t1]],
      [`channelId=${telegram.id}&channel=widget`, []],
      [`channelId=${crypto.randomUUID()}`, []],
      [`agentId=${a.id}`, [t1, w1]],
      [`agentId=${b.id}`, [a1, w2]],
      ["status=in-progress", [w2, t1]],
      ["status=completed", [a1, w1]],
      [`channel=widget&status=completed&agentId=${a.id}`, [w1]],
      [`createdAfter=${at(t1)}`, [a1, w2]],
      [`createdBefore=${at(w2)}`, [t1, w1]],
      [`createdAfter=${at(w1)}&createdBefore=${at(a1)}`, [w2, t1]],
      [`createdAfter=${at(w1)}&channel=telegram&status=in-progress&agentId=${a.id}&channelId=${telegram.id}`, [t1]],
    ];
    for (const [query, ids] of expected) expect(await listIds(ws, query), `GET /v1/chats?${query}`).toEqual(ids);
  });

  it("page across both tables newest first, each chat once, with the boundary between a widget chat and a messaging session", async () => {
    const ws = await createWorkspace("Chat pages");
    const agent = await createAgent(ws);
    const widget = await createWidget(ws, { agentId: agent.id });
    const telegram = await insertChannel(ws, agent.id, "telegram");
    const w1 = await widgetChat(widget.token, visitor(), ["1"]);
    const m1 = (await insertSession(ws, { channel: telegram })).id;
    const w2 = await widgetChat(widget.token, visitor(), ["2"]);
    const m2 = (await insertSession(ws, { channel: telegram })).id;
    const w3 = await widgetChat(widget.token, visitor(), ["3"]);

    const walk = async (query: string) => {
      const pages: string[][] = [];
      let cursor: string | null = null;
      do {
        const page = await listChats(ws, `${query}${cursor ? `&cursor=${cursor}` : ""}`);
        expect(page.hasMore).toBe(page.nextCursor !== null);
        pages.push(page.data.map((c) => c.id));
        cursor = page.nextCursor;
      } while (cursor && pages.length < 10);
      return pages;
    };
    expect(await walk("limit=2")).toEqual([[w3, m2], [w2, m1], [w1]]);
    expect(await walk("limit=1")).toEqual([[w3], [m2], [w2], [m1], [w1]]);
    expect(await walk("limit=4")).toEqual([[w3, m2, w2, m1], [w1]]);
    expect(await walk("limit=5")).toEqual([[w3, m2, w2, m1, w1]]);
    expect(await walk("limit=1&channel=telegram")).toEqual([[m2], [m1]]);
    expect(await walk("limit=2&channel=widget")).toEqual([[w3, w2], [w1]]);
  });

  it("keep a chat when its widget, channel or agent is deleted: channelId and agentId null, the agent's name kept", async () => {
    const ws = await createWorkspace("Chats outlive channels");
    const agent = await createAgent(ws, { name: "Gone soon" });
    const widget = await createWidget(ws, { agentId: agent.id });
    const telegram = await insertChannel(ws, agent.id, "telegram");
    const w = await widgetChat(widget.token, visitor(), ["Hello"]);
    const m = (await insertSession(ws, { channel: telegram, agentName: "Gone soon" })).id;

    expect((await ws.api(`/v1/widgets/${widget.id}`, { method: "DELETE" })).status).toBe(204);
    await testDb().delete(messagingChannels).where(eq(messagingChannels.id, telegram.id));
    expect((await listChats(ws)).data.map((c) => [c.id, c.channelId, c.agentId])).toEqual([
      [m, null, agent.id],
      [w, null, agent.id],
    ]);
    expect((await ws.api(`/v1/agents/${agent.id}`, { method: "DELETE" })).status).toBe(204);
    for (const id of [w, m]) expect(await getChat(ws, id)).toMatchObject({ channelId: null, agentId: null, agentName: "Gone soon" });
  });
});
