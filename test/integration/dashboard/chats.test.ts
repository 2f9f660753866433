// The Chats screen over HTTP: a widget chat and a Telegram conversation (through the sandbox and
// the real adapters) in one list, with the filters; a chat's page with its transcript (voice
// notes, unsupported messages and undelivered replies marked), its end user, channel and webhook
// deliveries; paging that keeps the filters. Other workspaces' chats: the security table.

import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { type ChatTurn, chats } from "../../../src/db/schema";
import { createWorkspace, json, request, signIn, testDb, until, type Workspace } from "../../support/harness";
import { connectTelegram, createAgent, telegram } from "../../support/messaging";
import { createEndpoint } from "../../support/webhooks";
import { chat, createWidget, SITE, visitor } from "../../support/widgets";
import { insertChannel, insertSession } from "../chats/helpers";

async function pagesAs(ws: Workspace) {
  const { cookie } = await signIn(ws.admin.email, ws.admin.password);
  return async (path: string) => {
    const res = await request(path, { headers: { cookie } });
    return { status: res.status, html: await res.text() };
  };
}

/** The chats a list page links to, in its order. */
const linked = (html: string) => [...html.matchAll(/<a href="\/dashboard\/chats\/([0-9a-f-]{36})">/g)].map((m) => m[1]);

const user = () => 2_000_000 + Math.floor(Math.random() * 1_000_000);

describe("dashboard chats", () => {
  it("lists a widget chat and a Telegram conversation together, filters them, and shows each one's transcript and deliveries", async () => {
    const ws = await createWorkspace("Chats screen");
    const agent = await createAgent(ws, { name: "Front desk" });
    const other = await createAgent(ws, { name: "Idle agent" });
    await createEndpoint(ws, {
      name: "Chat events",
      useTestReceiver: true,
      channels: ["chat"],
      events: ["telegram.started", "telegram.completed"],
    });
    const widget = await createWidget(ws, { agentId: agent.id, name: "Shop widget" });
    const v = visitor();
    const widgetChat = (await chat(widget.token, { visitorId: v, message: "Hello from the widget" })).sessionId;

    const { bot, channel } = await connectTelegram(ws, { agentId: agent.id });
    const chatId = user();
    await telegram.send(bot, chatId, { voice: "What are your opening hours on Saturday?", from: { first_name: "Ada", last_name: "L" } });
    await telegram.next(bot, chatId);
    await telegram.send(bot, chatId, { sticker: { emoji: "👍" } });
    await telegram.next(bot, chatId);
    await telegram.send(bot, chatId, { text: "/end" });
    await telegram.next(bot, chatId);
    const page = await pagesAs(ws);
    type Listed = { data: Array<{ id: string; channel: string; status: string }> };
    const all = await until(
      async () => (await json<Listed>(await ws.api("/v1/chats"))).data,
      (rows) => rows.some((r) => r.channel === "telegram" && r.status === "completed"),
      20_000,
    );
    const tg = all.find((r) => r.channel === "telegram")?.id ?? "";

    const list = await page("/dashboard/chats");
    expect(list.status).toBe(200);
    expect(linked(list.html)).toEqual([tg, widgetChat]);
    expect(list.html).toContain("Shop widget");
    expect(list.html).toContain("Support bot");
    expect(list.html).toContain("Ada L");
    expect(list.html).toContain(`<option value="${channel.id}">Telegram: Support bot</option>`);

    expect(linked((await page("/dashboard/chats?channel=telegram")).html)).toEqual([tg]);
    expect(linked((await page(`/dashboard/chats?channel=${widget.id}`)).html)).toEqual([widgetChat]);
    expect(linked((await page("/dashboard/chats?status=in-progress")).html)).toEqual([widgetChat]);
    expect(linked((await page(`/dashboard/chats?agentId=${agent.id}&status=completed`)).html)).toEqual([tg]);
    const none = await page(`/dashboard/chats?agentId=${other.id}`);
    expect(linked(none.html)).toEqual([]);
    expect(none.html).toContain("No chats match these filters.");
    expect(none.html).toContain(`<option value="${other.id}" selected="">Idle agent</option>`);
    // The channel's page links to its chats.
    expect((await page(`/dashboard/channels/${channel.id}`)).html).toContain(`href="/dashboard/chats?channel=${channel.id}"`);

    const detail = await until(
      () => page(`/dashboard/chats/${tg}`),
      (p) => p.html.includes("telegram.completed"),
      20_000,
    );
    expect(detail.status).toBe(200);
    expect(detail.html).toMatch(/What are your opening hours on Saturday\? <span class="badge">voice note, transcribed<\/span>/);
    expect(detail.html).toMatch(/\[sticker\] <span class="badge off">unsupported message<\/span>/);
    expect(detail.html).toContain("/end");
    expect(detail.html).toContain(`Ada L <span class="mono small">${chatId}</span>`);
    expect(detail.html).toContain(`<a href="/dashboard/channels/${channel.id}">Support bot</a>`);
    expect(detail.html).toContain(`<a href="/dashboard/agents/${agent.id}">Front desk</a>`);
    expect(detail.html).toContain("(version 1)"); // the version the chat ran with
    expect(detail.html).toContain("user-ended");
    expect(detail.html).toMatch(/<td class="mono">telegram\.started<\/td>/);
    expect(detail.html).toMatch(/<td class="mono">telegram\.completed<\/td>/);
    expect(detail.html).toContain("Chat events");
    expect(detail.html).not.toContain("No messages.");

    const widgetPage = await page(`/dashboard/chats/${widgetChat}`);
    expect(widgetPage.html).toContain("Hello from the widget");
    expect(widgetPage.html).toContain(`<span class="mono small">${v}</span><span class="small"> on ${SITE}</span>`);
    expect(widgetPage.html).toContain(`<a href="/dashboard/widgets/${widget.id}">Shop widget</a>`);
    expect(widgetPage.html).toContain("This chat is in progress.");
    expect(widgetPage.html).toContain("None (no endpoint subscribes to the events of this chat&#39;s channel, or none fired yet).");
  }, 60_000);

  it("marks a reply the provider refused with its reason", async () => {
    const ws = await createWorkspace("Chats undelivered");
    const agent = await createAgent(ws);
    const whatsapp = await insertChannel(ws, agent.id, "whatsapp");
    const at = new Date().toISOString();
    const transcript: ChatTurn[] = [
      { role: "user", text: "Still open?", at, kind: "text" },
      { role: "agent", text: "Yes, until 18:00.", at, undelivered: "outside the 24-hour customer service window" },
    ];
    const session = await insertSession(ws, { channel: whatsapp, transcript });
    const detail = await (await pagesAs(ws))(`/dashboard/chats/${session.id}`);
    expect(detail.html).toMatch(
      /Yes, until 18:00\. <span class="badge bad">not delivered<\/span> <span class="small">outside the 24-hour customer service window<\/span>/,
    );
    expect(detail.html).not.toMatch(/Still open\? <span class="badge/);
  });

  it("shows when each message was written on the UTC clock, as a call's page does, and the date once the day has changed", async () => {
    const ws = await createWorkspace("Chats clock");
    const agent = await createAgent(ws);
    const telegramChannel = await insertChannel(ws, agent.id, "telegram");
    const transcript: ChatTurn[] = [
      { role: "user", text: "Are you open today?", at: "2026-03-01T09:05:12.000Z", kind: "text" },
      { role: "agent", text: "Until 18:00.", at: "2026-03-01T09:05:14.250Z" },
      { role: "user", text: "And now?", at: "2026-03-03T08:00:01.000Z", kind: "text" },
    ];
    const session = await insertSession(ws, { channel: telegramChannel, transcript });
    await testDb()
      .update(chats)
      .set({ startedAt: new Date("2026-03-01T09:05:12.000Z") })
      .where(eq(chats.id, session.id));
    const html = (await (await pagesAs(ws))(`/dashboard/chats/${session.id}`)).html;
    expect(html).toContain('<time class="muted small" datetime="2026-03-01T09:05:12.000Z">09:05:12</time> Are you open today?');
    expect(html).toContain('<time class="muted small" datetime="2026-03-01T09:05:14.250Z">09:05:14</time> Until 18:00.');
    expect(html).toContain('<time class="muted small" datetime="2026-03-03T08:00:01.000Z">2026-03-03 08:00:01 UTC</time> And now?');
    expect(html).not.toMatch(/\d+\.\d s<\/time>/); // no longer seconds since the start
  });

  it("pages through older chats, keeping the filters", async () => {
    const ws = await createWorkspace("Chats paging");
    const agent = await createAgent(ws);
    const whatsapp = await insertChannel(ws, agent.id, "whatsapp");
    const ids: string[] = [];
    for (let i = 0; i < 51; i++) ids.unshift((await insertSession(ws, { channel: whatsapp })).id);
    const widget = await createWidget(ws, { agentId: agent.id });
    await chat(widget.token, { visitorId: visitor(), message: "Not on a WhatsApp page" });
    const page = await pagesAs(ws);

    const first = await page("/dashboard/chats?channel=whatsapp&status=");
    expect(linked(first.html)).toEqual(ids.slice(0, 50));
    const older = /<a href="([^"]+)">Older chats<\/a>/.exec(first.html)?.[1]?.replace(/&amp;/g, "&") ?? "";
    expect(older).toMatch(/^\/dashboard\/chats\?channel=whatsapp&cursor=[A-Za-z0-9_-]+$/);
    const second = await page(older);
    expect(linked(second.html)).toEqual(ids.slice(50));
    expect(second.html).not.toContain("Older chats");
  });

  it("shows each chat's first message, and finds chats by the end user's name or id, or by the chat's id", async () => {
    const ws = await createWorkspace("Chats search");
    const agent = await createAgent(ws, { name: "Desk" });
    const channel = await insertChannel(ws, agent.id, "telegram");
    const ada = await insertSession(ws, { channel }); // Ada Lovelace, "Hi, are you open on Sunday?"
    const long = "x".repeat(300);
    const grace = await insertSession(ws, {
      channel,
      transcript: [
        { role: "agent", text: "Welcome!", at: new Date().toISOString() },
        { role: "user", text: long, at: new Date().toISOString() },
      ],
    });
    await testDb().update(chats).set({ endUserName: "Grace 100% Hopper" }).where(eq(chats.id, grace.id));
    const page = await pagesAs(ws);
    const all = (await page("/dashboard/chats")).html;
    expect(all).toContain('<span class="preview">Hi, are you open on Sunday?</span>');
    expect(all).toContain(`<span class="preview">${"x".repeat(140)}</span>`); // the first user message, cut
    expect(linked((await page("/dashboard/chats?search=lovelace")).html)).toEqual([ada.id]);
    expect(linked((await page(`/dashboard/chats?search=${ada.endUserId.slice(2, 8)}`)).html)).toEqual([ada.id]);
    expect(linked((await page(`/dashboard/chats?search=${grace.id.toUpperCase()}`)).html)).toEqual([grace.id]);
    // % and _ are the name's own characters, not patterns.
    expect(linked((await page(`/dashboard/chats?search=${encodeURIComponent("100%")}`)).html)).toEqual([grace.id]);
    expect(linked((await page(`/dashboard/chats?search=${encodeURIComponent("%")}&agentId=${agent.id}`)).html)).toEqual([grace.id]);
    expect((await page("/dashboard/chats?search=nobody")).html).toContain("No chats match these filters.");
  });
});
