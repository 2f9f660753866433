// The Channels screen over HTTP, against the Telegram and WhatsApp sandboxes: connecting through
// the form (the provider checks the credentials first; a refusal is shown on the field and saves
// nothing), the channel's page, Test, Pause/Resume, the settings, removal after its confirmation
// step; credentials never come back in a page; members look but change nothing.
import { describe, expect, it } from "vitest";
import { addMemberTo, createWorkspace, json, type Workspace } from "../../support/harness";
import { type ChannelView, connectTelegram, createAgent, newBot, newNumber, telegram } from "../../support/messaging";
import { pagesAs } from "../../support/pages";

const channels = async (ws: Workspace) => (await json<{ data: ChannelView[] }>(await ws.api("/v1/channels"))).data;
const channelOf = async (ws: Workspace, id: string) => json<ChannelView>(await ws.api(`/v1/channels/${id}`));
/** The field's inline error, as the page shows it (text, entities decoded). */
const fieldError = (html: string, field: string) =>
  (new RegExp(`<p class="field-error" id="f-${field}-error">([^<]*)</p>`).exec(html)?.[1] ?? "")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, "&");

describe("dashboard channels", () => {
  it("connects a Telegram bot through the form, then tests, pauses, resumes, renames and removes it", async () => {
    const ws = await createWorkspace("Channels screen");
    const agent = await createAgent(ws, { name: "Desk" });
    const page = await pagesAs(ws.admin.email, ws.admin.password);
    expect((await page("/dashboard/channels")).html).toContain("No channels yet.");

    const form = await page("/dashboard/channels/new");
    expect(form.status).toBe(200);
    expect(form.html).toMatch(/<input id="f-botToken" name="botToken" type="password" autocomplete="off"/);
    expect(form.html).toContain(`<option value="${agent.id}" selected="">Desk</option>`);

    const bot = await newBot();
    const connected = await page("/dashboard/channels", {
      type: "telegram",
      name: "Support bot",
      agentId: agent.id,
      idleTimeoutSeconds: "600",
      botToken: bot.token,
    });
    expect(connected.status, connected.html).toBe(303);
    const id = /^\/dashboard\/channels\/([0-9a-f-]{36})\?notice=connected$/.exec(connected.location ?? "")?.[1] ?? "";
    const channel = await channelOf(ws, id);
    expect(channel).toMatchObject({ type: "telegram", name: "Support bot", agentId: agent.id, status: "active", idleTimeoutSeconds: 600 });
    expect((await telegram.bot(bot)).webhook.url).toBe(channel.webhookUrl); // pointed at us on connection

    const detail = await page(connected.location ?? "");
    expect(detail.status).toBe(200);
    expect(detail.html).toContain("Channel connected.");
    expect(detail.html).toContain(`<code id="webhook-url">${channel.webhookUrl}</code>`);
    expect(detail.html).toContain(`@${bot.username}`);
    expect(detail.html).not.toContain(bot.token);
    const list = await page("/dashboard/channels");
    expect(list.html).toContain(`<a href="/dashboard/channels/${id}">Support bot</a>`);
    expect(list.html).toContain(`@${bot.username}`);
    expect(list.html).toContain("Desk");

    const tested = await page(`/dashboard/channels/${id}/test`, {});
    expect(tested.status).toBe(200);
    expect(tested.html).toContain("Test passed");
    expect(tested.html).toContain(`@${bot.username} answers; its webhook points at this channel.`);

    const paused = await page(`/dashboard/channels/${id}/status`, { status: "paused" });
    expect([paused.status, paused.location]).toEqual([303, `/dashboard/channels/${id}?notice=paused`]);
    expect((await channelOf(ws, id)).status).toBe("paused");
    expect((await page(paused.location ?? "")).html).toContain(`<input type="hidden" name="status" value="active"/>`);
    await page(`/dashboard/channels/${id}/status`, { status: "active" });
    expect((await channelOf(ws, id)).status).toBe("active");

    const saved = await page(`/dashboard/channels/${id}`, { name: "Front desk bot", agentId: agent.id, idleTimeoutSeconds: "900" });
    expect(saved.location).toBe(`/dashboard/channels/${id}?notice=saved`);
    expect(await channelOf(ws, id)).toMatchObject({ name: "Front desk bot", idleTimeoutSeconds: 900 });
    const tooShort = await page(`/dashboard/channels/${id}`, { name: "Kept?", agentId: agent.id, idleTimeoutSeconds: "5" });
    expect(tooShort.status).toBe(400);
    expect(fieldError(tooShort.html, "idleTimeoutSeconds")).toBe("must be at least 60");
    expect(tooShort.html).toContain('value="Kept?"');
    expect((await channelOf(ws, id)).name).toBe("Front desk bot");

    // Removal is a step: the confirmation page changes nothing, its form's POST removes.
    const confirm = await page(`/dashboard/channels/${id}/remove`);
    expect(confirm.status).toBe(200);
    expect(confirm.html).toContain("Remove &quot;Front desk bot&quot;?");
    expect(confirm.html).toContain(`action="/dashboard/channels/${id}/remove"`);
    expect((await ws.api(`/v1/channels/${id}`)).status).toBe(200);
    const removed = await page(`/dashboard/channels/${id}/remove`, {});
    expect([removed.status, removed.location]).toEqual([303, "/dashboard/channels?notice=removed"]);
    expect((await ws.api(`/v1/channels/${id}`)).status).toBe(404);
    expect((await telegram.bot(bot)).webhook.url).toBe("");
    expect((await page("/dashboard/channels?notice=removed")).html).toContain("Channel removed.");
    expect((await page(`/dashboard/channels/${id}`)).status).toBe(404);
  });

  it("shows a refused or malformed token on its field, keeps the rest of the form, never echoes the token, and saves nothing", async () => {
    const ws = await createWorkspace("Channels refused");
    const agent = await createAgent(ws);
    const page = await pagesAs(ws.admin.email, ws.admin.password);
    const unknown = "123456789:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"; // the right shape; no such bot
    const refused = await page("/dashboard/channels", { type: "telegram", name: "My bot", agentId: agent.id, botToken: unknown });
    expect(refused.status).toBe(400);
    expect(fieldError(refused.html, "botToken")).toMatch(
      /^Telegram refused the credentials: .+\. Check the bot token \(from @BotFather\)\.$/,
    );
    expect(refused.html).toContain('value="My bot"');
    expect(refused.html).not.toContain(unknown);

    const malformed = await page("/dashboard/channels", { type: "telegram", name: "", agentId: agent.id, botToken: "not-a-token" });
    expect(malformed.status).toBe(400);
    expect(fieldError(malformed.html, "botToken")).toBe("a bot token from @BotFather looks like 123456789:AA…");
    expect(fieldError(malformed.html, "name")).not.toBe("");
    expect(malformed.html).not.toContain("not-a-token");

    const bot = await newBot();
    const noAgent = await page("/dashboard/channels", { type: "telegram", name: "Bot", agentId: crypto.randomUUID(), botToken: bot.token });
    expect(noAgent.status).toBe(400);
    expect(fieldError(noAgent.html, "agentId")).toBe("no agent with this id in this workspace");
    expect(await channels(ws)).toEqual([]);
    expect((await telegram.bot(bot)).webhook.url).toBe(""); // nothing was pointed at us either
  });

  it("says when Test fails: a bot whose token was revoked", async () => {
    const ws = await createWorkspace("Channels revoked");
    const { bot, channel } = await connectTelegram(ws);
    await telegram.revoke(bot);
    const page = await pagesAs(ws.admin.email, ws.admin.password);
    const tested = await page(`/dashboard/channels/${channel.id}/test`, {});
    expect(tested.status).toBe(200);
    expect(tested.html).toContain("Test failed");
    expect(tested.html).toContain("Telegram refused the credentials");
  });

  it("connects a WhatsApp number: its page gives the URL and the steps in Meta's app, and no credential", async () => {
    const ws = await createWorkspace("Channels WhatsApp");
    const agent = await createAgent(ws);
    const page = await pagesAs(ws.admin.email, ws.admin.password);
    const form = await page("/dashboard/channels/new?type=whatsapp");
    for (const field of ["accessToken", "appSecret", "verifyToken"])
      expect(form.html).toMatch(new RegExp(`<input id="f-${field}" name="${field}" type="password" autocomplete="off"`));
    const number = await newNumber();
    const secrets = { accessToken: number.access_token, appSecret: number.app_secret, verifyToken: "a-verify-token-of-mine" };
    const tooShort = await page("/dashboard/channels", {
      type: "whatsapp",
      name: "Line",
      agentId: agent.id,
      phoneNumberId: number.phone_number_id,
      ...secrets,
      verifyToken: "short",
    });
    expect(tooShort.status).toBe(400);
    expect(fieldError(tooShort.html, "verifyToken")).not.toBe("");
    expect(tooShort.html).toContain(`value="${number.phone_number_id}"`); // an id, kept; the secrets are not
    for (const secret of Object.values(secrets)) expect(tooShort.html).not.toContain(secret);

    const connected = await page("/dashboard/channels", {
      type: "whatsapp",
      name: "Line",
      agentId: agent.id,
      phoneNumberId: number.phone_number_id,
      ...secrets,
    });
    expect(connected.status, connected.html).toBe(303);
    const detail = await page(connected.location ?? "");
    const [channel] = await channels(ws);
    expect(detail.html).toContain(`<code id="webhook-url">${channel?.webhookUrl}</code>`);
    expect(detail.html).toContain("Verify token: the one you entered when you connected this channel");
    expect(detail.html).toContain(number.display_phone_number);
    for (const secret of Object.values(secrets)) expect(detail.html).not.toContain(secret);
    const tested = await page(`/dashboard/channels/${channel?.id}/test`, {});
    expect(tested.html).toContain("Test passed");
  });

  it("lets a member look at channels but not connect, test, pause, change or remove one", async () => {
    const ws = await createWorkspace("Channels member");
    const { channel, agentId } = await connectTelegram(ws);
    const member = await addMemberTo(ws, "member");
    const page = await pagesAs(member.email, member.password);
    const list = await page("/dashboard/channels");
    expect(list.status).toBe(200);
    expect(list.html).toContain("Only admins can connect, test, pause or remove a channel.");
    expect(list.html).not.toContain("Connect a channel");
    const detail = await page(`/dashboard/channels/${channel.id}`);
    expect(detail.status).toBe(200);
    expect(detail.html).toContain(channel.webhookUrl);
    expect(detail.html).not.toContain(`action="/dashboard/channels/${channel.id}/`);

    expect((await page("/dashboard/channels/new")).status).toBe(403);
    const bot = await newBot();
    const connect = await page("/dashboard/channels", { type: "telegram", name: "Mine", agentId, botToken: bot.token });
    expect(connect.status).toBe(403);
    expect(connect.html).toContain("Admin access required");
    for (const [path, fields] of [
      [`/dashboard/channels/${channel.id}/test`, {}],
      [`/dashboard/channels/${channel.id}/status`, { status: "paused" }],
      [`/dashboard/channels/${channel.id}`, { name: "Taken over" }],
      [`/dashboard/channels/${channel.id}/remove`, {}],
    ] as const)
      expect((await page(path, fields)).status, path).toBe(403);
    expect((await page(`/dashboard/channels/${channel.id}/remove`)).status).toBe(403);
    expect(await channels(ws)).toEqual([channel]);
    expect((await telegram.bot(bot)).webhook.url).toBe("");
  });
});
