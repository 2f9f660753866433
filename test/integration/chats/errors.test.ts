// GET /v1/chats and /v1/chats/:id refusing: another workspace's chat is a 404 exactly like a
// missing one (widget chat or messaging session), a malformed id or filter is a 400, and no
// filter reaches another workspace's chats.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createAgent } from "../../support/calls";
import { createWorkspace, expectError } from "../../support/harness";
import { createWidget, visitor } from "../../support/widgets";
import { insertChannel, insertSession, listIds, widgetChat } from "./helpers";

const NO_CHAT = "No chat with that id in this workspace.";

describe("GET /v1/chats/:id refusing", () => {
  it("answers another workspace's chat exactly like a missing one (404), widget or messaging", async () => {
    const owner = await createWorkspace("Chat owner");
    const agent = await createAgent(owner);
    const widgetChatId = await widgetChat((await createWidget(owner, { agentId: agent.id })).token, visitor(), ["Private"]);
    const messagingId = (await insertSession(owner, { channel: await insertChannel(owner, agent.id, "whatsapp") })).id;
    expect((await owner.api(`/v1/chats/${widgetChatId}`)).status).toBe(200);
    expect((await owner.api(`/v1/chats/${messagingId}`)).status).toBe(200);

    const stranger = await createWorkspace("Chat stranger");
    const missing = await expectError(await stranger.api(`/v1/chats/${randomUUID()}`), 404, "not_found");
    expect(missing.message).toBe(NO_CHAT);
    for (const id of [widgetChatId, messagingId]) {
      const foreign = await expectError(await stranger.api(`/v1/chats/${id}`), 404, "not_found");
      expect({ ...foreign, requestId: "" }).toEqual({ ...missing, requestId: "" });
    }
  });

  it("refuses an id that is not a UUID (400)", async () => {
    const ws = await createWorkspace();
    const body = await expectError(await ws.api("/v1/chats/not-a-uuid"), 400, "validation_failed");
    expect(body.message).toContain("Chat id must be a UUID");
  });
});

describe("GET /v1/chats refusing", () => {
  it("refuses bad filters (400 naming the parameter) and a cursor it did not give (400)", async () => {
    const ws = await createWorkspace();
    const bad: Array<[string, string]> = [
      ["channel=sms", "channel"],
      ["channel=Widget", "channel"],
      ["status=ended", "status"],
      ["agentId=nope", "agentId"],
      ["channelId=123", "channelId"],
      ["limit=0", "limit"],
      ["limit=101", "limit"],
      ["limit=abc", "limit"],
      ["createdAfter=yesterday", "createdAfter"],
      ["createdBefore=2025-01-15", "createdBefore"],
      ["created_after=2025-01-15T00:00:00Z", "created_after"],
      ["channel_id=0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77", "channel_id"],
    ];
    for (const [query, field] of bad) {
      const body = await expectError(await ws.api(`/v1/chats?${query}`), 400, "validation_failed");
      // The field's path, or for an unknown parameter the message that names it.
      expect([...(body.issues ?? []).map((i) => `${i.path} ${i.message}`), body.message].join(" "), query).toContain(field);
    }
    await expectError(await ws.api("/v1/chats?cursor=not-a-cursor"), 400, "bad_request");
    await expectError(await ws.api(`/v1/chats?cursor=${btoa(JSON.stringify({ id: "x" }))}`), 400, "bad_request");
  });

  it("never lists another workspace's chats, whatever the filter names", async () => {
    const ws = await createWorkspace("Chat lister");
    const other = await createWorkspace("Chat neighbour");
    const theirAgent = await createAgent(other);
    const theirWidget = await createWidget(other, { agentId: theirAgent.id });
    const theirChannel = await insertChannel(other, theirAgent.id, "telegram");
    await widgetChat(theirWidget.token, visitor(), ["Theirs"]);
    await insertSession(other, { channel: theirChannel });
    const mine = await widgetChat((await createWidget(ws)).token, visitor(), ["Mine"]);

    expect(await listIds(other, "")).toHaveLength(2);
    expect(await listIds(ws, "")).toEqual([mine]);
    for (const query of [`agentId=${theirAgent.id}`, `channelId=${theirWidget.id}`, `channelId=${theirChannel.id}`, "channel=telegram"]) {
      expect(await listIds(ws, query), query).toEqual([]);
    }
  });
});
