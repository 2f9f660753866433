// What runs a named version of an agent (docs/agents.md, "Versions"): a call runs the version it
// recorded when it was placed, whatever was published before it connected; calls, web calls,
// campaigns, widgets and messaging channels may name a version (a draft too), and otherwise run
// the live one. The sandbox's chat model answers a system prompt's reply rule (docs/sandbox.md), so
// which prompt a reply came from shows in its text.
import { eq } from "drizzle-orm";
import { beforeAll, describe, it } from "vitest";
import { calls } from "../../../src/db/schema";
import { CONVERSATION, finished, place } from "../../support/callees";
import { type CallView, createAgent, joinWebCall, speech, WEB_RATE, waitForCall } from "../../support/calls";
import { briefNumbers } from "../../support/campaign-runner";
import { SHARED_NUMBER } from "../../support/campaigns";
import { createWorkspace, expectError, json, testDb, until, type Workspace } from "../../support/harness";
import { connectTelegram, telegram } from "../../support/messaging";
import { chat, createWidget, visitor, widgetRequest } from "../../support/widgets";
import { getChat, insertChannel } from "../chats/helpers";

const LIVE = { systemPrompt: 'When the user says "appointment", reply "Live version here.".', firstMessage: "Live greeting." };
const DRAFT = {
  systemPrompt: 'When the user says "appointment", reply "Draft version here.".',
  firstMessage: "Draft greeting.",
  analysisPlan: { successCriteria: ["The caller asked for an appointment"] },
};

const patch = async (ws: Workspace, id: string, body: Record<string, unknown>, query = "") => {
  const res = await ws.api(`/v1/agents/${id}${query}`, { method: "PATCH", json: body });
  if (res.status !== 200) throw new Error(`patch agent: ${res.status} ${await res.text()}`);
  return json<{ liveVersion: number; latestVersion: number }>(res);
};

/** An agent whose live version 1 says LIVE's lines and whose draft version 2 says DRAFT's. */
async function agentWithDraft(ws: Workspace, body: Record<string, unknown> = {}): Promise<string> {
  const agent = await createAgent(ws, { ...LIVE, ...body });
  const drafted = await patch(ws, agent.id, DRAFT, "?draft=true");
  if (drafted.liveVersion !== 1 || drafted.latestVersion !== 2) throw new Error(`unexpected versions ${JSON.stringify(drafted)}`);
  return agent.id;
}

const webCall = async (ws: Workspace, agentId: string, body: Record<string, unknown> = {}) => {
  const res = await ws.api(`/v1/agents/${agentId}/web-call`, { method: "POST", json: body });
  if (res.status !== 201) throw new Error(`web call: ${res.status} ${await res.text()}`);
  return json<{ call: { id: string; agentVersion: number }; webCall: { url: string } }>(res);
};

// The provider sandbox speaks through one eSpeak thread, which starts cold.
beforeAll(async () => {
  await speech("Warming up.", WEB_RATE);
}, 30_000);

describe.concurrent("the version a call runs", () => {
  it("a web call placed before a publish runs the version it recorded", async ({ expect }) => {
    const ws = await createWorkspace();
    const agent = await createAgent(ws, { firstMessage: "Version one speaking." });
    const { call, webCall: joining } = await webCall(ws, agent.id);
    expect(call.agentVersion).toBe(1);
    // Published after the call was placed, before its media connected.
    expect((await patch(ws, agent.id, { firstMessage: "Version two speaking." })).liveVersion).toBe(2);

    const client = await joinWebCall(joining.url);
    const greeting = await client.waitForEvent((e) => e.type === "transcript" && e.role === "agent");
    expect(greeting.text).toBe("Version one speaking.");
    client.ws.close();
    const done = await waitForCall(ws, call.id, finished);
    expect(done.agentVersion).toBe(1);
    expect(done.transcript.turns[0]).toMatchObject({ role: "agent", text: "Version one speaking." });
  }, 60_000);

  it("a phone call placed with a draft version runs that draft: its first message, its prompt, its analysis plan", async ({ expect }) => {
    const ws = await createWorkspace();
    const agentId = await agentWithDraft(ws);
    const placed = await place(ws, agentId, { phoneNumber: CONVERSATION, agentVersion: 2 });
    expect(placed.agentVersion).toBe(2);
    const call = await waitForCall(ws, placed.id, (c: CallView) => c.report !== null || c.analysisError !== null, 60_000);
    const agentSaid = call.transcript.turns.filter((t) => t.role === "agent").map((t) => t.text);
    expect(agentSaid[0], JSON.stringify(call.transcript.turns)).toBe("Draft greeting.");
    // The callee's first line asks for an appointment: the draft's rule answers it.
    expect(agentSaid[1]).toBe("Draft version here.");
    expect(call.report?.criteriaResults).toEqual([expect.objectContaining({ criterion: "The caller asked for an appointment" })]);
    // The live version is untouched, and a call naming none runs it.
    const live = await json<{ liveVersion: number; firstMessage: string }>(await ws.api(`/v1/agents/${agentId}`));
    expect(live).toMatchObject({ liveVersion: 1, firstMessage: "Live greeting." });
  }, 90_000);

  it("a web call placed with a draft version runs that draft", async ({ expect }) => {
    const ws = await createWorkspace();
    const agentId = await agentWithDraft(ws);
    const { call, webCall: joining } = await webCall(ws, agentId, { agentVersion: 2 });
    expect(call.agentVersion).toBe(2);
    const client = await joinWebCall(joining.url);
    expect((await client.waitForEvent((e) => e.type === "transcript" && e.role === "agent")).text).toBe("Draft greeting.");
    await client.waitForEvent((e) => e.type === "mark");
    await client.played();
    await client.say(await speech("I would like an appointment.", WEB_RATE));
    const reply = await client.waitForEvent((e) => e.type === "transcript" && e.role === "agent" && e.text !== "Draft greeting.");
    expect(reply.text).toBe("Draft version here.");
    client.ws.close();
    expect((await waitForCall(ws, call.id, finished)).agentVersion).toBe(2);

    // Without a version: the live one.
    const plain = await webCall(ws, agentId);
    expect(plain.call.agentVersion).toBe(1);
  }, 60_000);
});

describe("naming a version that is not there", () => {
  it("is 404 for calls, web calls, campaigns, widgets and channels; a version that is no number is 400", async ({ expect }) => {
    const ws = await createWorkspace();
    const agentId = await agentWithDraft(ws);
    const missing = "This agent has no version 9.";
    const notFound = async (res: Response) => expect((await expectError(res, 404, "not_found")).message).toBe(missing);

    await notFound(await ws.api(`/v1/agents/${agentId}/calls`, { method: "POST", json: { phoneNumber: CONVERSATION, agentVersion: 9 } }));
    await notFound(await ws.api(`/v1/agents/${agentId}/web-call`, { method: "POST", json: { agentVersion: 9 } }));
    const campaign = { name: "Pinned", agentId, fromNumbers: [SHARED_NUMBER], recipients: [{ phoneNumber: "+14155550123" }] };
    await notFound(await ws.api("/v1/campaigns", { method: "POST", json: { ...campaign, agentVersion: 9 } }));
    await notFound(
      await ws.api("/v1/widgets", { method: "POST", json: { name: "W", agentId, allowedOrigins: ["https://a.test"], agentVersion: 9 } }),
    );
    const channel = { type: "telegram", name: "Bot", agentId, agentVersion: 9, credentials: { botToken: `123456:${"A".repeat(35)}` } };
    await notFound(await ws.api("/v1/channels", { method: "POST", json: channel }));

    // Changes: the same 404, and nothing changed.
    const draft = await json<{ id: string }>(await ws.api("/v1/campaigns", { method: "POST", json: campaign }));
    await notFound(await ws.api(`/v1/campaigns/${draft.id}`, { method: "PATCH", json: { agentVersion: 9 } }));
    const widget = await createWidget(ws, { agentId });
    await notFound(await ws.api(`/v1/widgets/${widget.id}`, { method: "PATCH", json: { agentVersion: 9 } }));
    const row = await insertChannel(ws, agentId, "telegram");
    await notFound(await ws.api(`/v1/channels/${row.id}`, { method: "PATCH", json: { agentVersion: 9 } }));
    expect((await json<{ agentVersion: number | null }>(await ws.api(`/v1/widgets/${widget.id}`))).agentVersion).toBeNull();

    for (const agentVersion of [0, 1.5, "2"]) {
      await expectError(
        await ws.api(`/v1/agents/${agentId}/web-call`, { method: "POST", json: { agentVersion } }),
        400,
        "validation_failed",
      );
      await expectError(await ws.api(`/v1/widgets/${widget.id}`, { method: "PATCH", json: { agentVersion } }), 400, "validation_failed");
    }
  });

  it("another workspace's agent is not found, whatever version is named", async ({ expect }) => {
    const [ws, other] = [await createWorkspace(), await createWorkspace()];
    const agentId = await agentWithDraft(ws);
    const theirs = { message: "No agent with that id in this workspace." };
    expect(
      await expectError(await other.api(`/v1/agents/${agentId}/web-call`, { method: "POST", json: { agentVersion: 2 } }), 404, "not_found"),
    ).toMatchObject(theirs);
    expect(
      await expectError(
        await other.api(`/v1/agents/${agentId}/calls`, { method: "POST", json: { phoneNumber: CONVERSATION, agentVersion: 1 } }),
        404,
        "not_found",
      ),
    ).toMatchObject(theirs);
    // A widget or campaign naming it is refused as naming an agent the workspace does not have.
    const widget = await other.api("/v1/widgets", {
      method: "POST",
      json: { name: "W", agentId, allowedOrigins: ["https://a.test"], agentVersion: 2 },
    });
    expect((await expectError(widget, 400, "validation_failed")).message).toMatch(/agentId: no agent with this id/);
    const campaign = { name: "C", agentId, agentVersion: 2, fromNumbers: [SHARED_NUMBER], recipients: [{ phoneNumber: "+14155550123" }] };
    expect(
      JSON.stringify(await expectError(await other.api("/v1/campaigns", { method: "POST", json: campaign }), 400, "validation_failed")),
    ).toMatch(/no agent with this id/);
  });
});

describe.concurrent("campaigns, widgets and channels that name a version", () => {
  it("a campaign with agentVersion dials calls that record and run it", async ({ expect }) => {
    const ws = await createWorkspace();
    const agentId = await agentWithDraft(ws);
    const numbers = briefNumbers(2);
    const res = await ws.api("/v1/campaigns", {
      method: "POST",
      json: {
        name: "Pinned",
        agentId,
        agentVersion: 2,
        fromNumbers: [SHARED_NUMBER],
        recipients: numbers.map((phoneNumber) => ({ phoneNumber })),
      },
    });
    const campaign = await json<{ id: string; agentVersion: number | null }>(res);
    expect(res.status).toBe(201);
    expect(campaign.agentVersion).toBe(2);
    // Back to live and pinned again: a change while a draft.
    const unpinned = await ws.api(`/v1/campaigns/${campaign.id}`, { method: "PATCH", json: { agentVersion: null } });
    expect((await json<{ agentVersion: number | null }>(unpinned)).agentVersion).toBeNull();
    await ws.api(`/v1/campaigns/${campaign.id}`, { method: "PATCH", json: { agentVersion: 2 } });

    expect((await ws.api(`/v1/campaigns/${campaign.id}/start`, { method: "POST" })).status).toBe(200);
    const placed = await until(
      () => testDb().select().from(calls).where(eq(calls.campaignId, campaign.id)),
      (rows) => rows.length === numbers.length,
      60_000,
    );
    expect(placed.map((c) => c.agentVersion)).toEqual([2, 2]);
    for (const c of placed) expect((await waitForCall(ws, c.id, finished)).agentVersion).toBe(2);
  }, 90_000);

  it("a widget pinned to a draft answers with the draft; an unpinned widget's chat keeps the version it started with", async ({
    expect,
  }) => {
    const ws = await createWorkspace();
    const agentId = await agentWithDraft(ws);
    const pinned = await createWidget(ws, { agentId, agentVersion: 2 });
    expect(pinned.agentVersion).toBe(2);
    const config = await json<{ greeting: string }>(await widgetRequest("/widget/v1/config", { token: pinned.token }));
    expect(config.greeting).toBe("Draft greeting.");
    const first = await chat(pinned.token, { visitorId: visitor(), message: "Can I book an appointment?" });
    expect(first.reply.text).toBe("Draft version here.");
    expect((await getChat(ws, first.sessionId)).agentVersion).toBe(2);

    // Unpinned: the live version when the chat started, through a publish in the middle of it.
    const live = await createWidget(ws, { agentId });
    const who = visitor();
    const started = await chat(live.token, { visitorId: who, message: "An appointment, please." });
    expect(started.reply.text).toBe("Live version here.");
    await ws.api(`/v1/agents/${agentId}/publish`, { method: "POST", json: { version: 2 } });
    const later = await chat(live.token, { visitorId: who, sessionId: started.sessionId, message: "The appointment again?" });
    expect(later.reply.text).toBe("Live version here.");
    expect((await getChat(ws, started.sessionId)).agentVersion).toBe(1);
    // A new chat starts on the version live now.
    expect((await chat(live.token, { visitorId: visitor(), message: "appointment" })).reply.text).toBe("Draft version here.");

    // Another agent without a version: its live one.
    const other = await createAgent(ws);
    const moved = await json<{ agentVersion: number | null }>(
      await ws.api(`/v1/widgets/${pinned.id}`, { method: "PATCH", json: { agentId: other.id } }),
    );
    expect(moved.agentVersion).toBeNull();
  });

  it("a Telegram channel pinned to a draft answers with the draft", async ({ expect }) => {
    const ws = await createWorkspace();
    const agentId = await agentWithDraft(ws);
    const { bot, channel } = await connectTelegram(ws, { agentId, agentVersion: 2 });
    expect(channel.agentVersion).toBe(2);
    const user = 3_000_000 + Math.floor(Math.random() * 1_000_000);
    await telegram.send(bot, user, { text: "Do you have an appointment free?", from: { first_name: "Ada" } });
    expect((await telegram.next(bot, user)).text).toBe("Draft version here.");
    // Back to the live version (null).
    const res = await ws.api(`/v1/channels/${channel.id}`, { method: "PATCH", json: { agentVersion: null } });
    expect((await json<{ agentVersion: number | null }>(res)).agentVersion).toBeNull();
    const next = 4_000_000 + Math.floor(Math.random() * 1_000_000);
    await telegram.send(bot, next, { text: "appointment", from: { first_name: "Bo" } });
    expect((await telegram.next(bot, next)).text).toBe("Live version here.");
  });
});
