// Agent versions: every change numbered, drafts not live until published, rollback appends, calls
// and chats record the version they ran with (docs/agents.md, "Versions").
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createWorkspace, expectError, type Workspace } from "../../support/harness";
import { createWidget, visitor } from "../../support/widgets";
import { getChat, widgetChat } from "../chats/helpers";

interface AgentView {
  id: string;
  systemPrompt: string;
  temperature: number;
  liveVersion: number;
  latestVersion: number;
  hasDraft: boolean;
}
interface VersionView {
  agentId: string;
  version: number;
  live: boolean;
  changes: string[];
  createdBy: { type: string; id: string | null };
  createdAt: string;
  config?: Record<string, unknown>;
}
interface Page<T> {
  data: T[];
  nextCursor: string | null;
  hasMore: boolean;
}

const body = async <T>(res: Response, status = 200): Promise<T> => {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  return JSON.parse(text) as T;
};

const create = async (ws: Workspace, json: Record<string, unknown> = {}) =>
  body<AgentView>(await ws.api("/v1/agents", { method: "POST", json: { name: "Versioned", personaId: randomUUID(), ...json } }), 201);
const patch = async (ws: Workspace, id: string, json: Record<string, unknown>, query = "") =>
  body<AgentView>(await ws.api(`/v1/agents/${id}${query}`, { method: "PATCH", json }));
const get = async (ws: Workspace, id: string) => body<AgentView>(await ws.api(`/v1/agents/${id}`));
const version = async (ws: Workspace, id: string, n: number) => body<VersionView>(await ws.api(`/v1/agents/${id}/versions/${n}`));
const versions = async (ws: Workspace, id: string, query = "") =>
  body<Page<VersionView>>(await ws.api(`/v1/agents/${id}/versions${query}`));

describe("agent versions", () => {
  it("numbers every change, keeps drafts off the live agent, publishes and rolls back append-only", async () => {
    const ws = await createWorkspace();
    const agent = await create(ws, { systemPrompt: "One." });
    expect(agent).toMatchObject({ liveVersion: 1, latestVersion: 1, hasDraft: false });
    expect(await version(ws, agent.id, 1)).toMatchObject({
      version: 1,
      live: true,
      changes: [],
      createdBy: { type: "api_key", id: ws.apiKeyId },
      config: { systemPrompt: "One.", temperature: 0.7 },
    });

    // A PATCH is live at once (today's behaviour), as version 2.
    expect(await patch(ws, agent.id, { systemPrompt: "Two.", temperature: 0.3 })).toMatchObject({
      systemPrompt: "Two.",
      liveVersion: 2,
      latestVersion: 2,
      hasDraft: false,
    });
    expect((await version(ws, agent.id, 2)).changes).toEqual(["systemPrompt", "temperature"]);

    // A draft is version 3, not live: the agent and its calls keep version 2.
    const drafted = await patch(ws, agent.id, { systemPrompt: "Three (draft)." }, "?draft=true");
    expect(drafted).toMatchObject({ systemPrompt: "Two.", liveVersion: 2, latestVersion: 3, hasDraft: true });
    expect(await get(ws, agent.id)).toMatchObject({ systemPrompt: "Two.", liveVersion: 2, hasDraft: true });
    expect(await version(ws, agent.id, 3)).toMatchObject({
      live: false,
      changes: ["systemPrompt"],
      config: { systemPrompt: "Three (draft)." },
    });
    const placed = await body<{ call: { id: string; agentVersion: number } }>(
      await ws.api(`/v1/agents/${agent.id}/web-call`, { method: "POST", json: {} }),
      201,
    );
    expect(placed.call.agentVersion).toBe(2);
    expect((await body<{ agentVersion: number }>(await ws.api(`/v1/calls/${placed.call.id}`))).agentVersion).toBe(2);

    // A second draft builds on the first (the newest version), not on the live one.
    await patch(ws, agent.id, { temperature: 1.1 }, "?draft=true");
    expect((await version(ws, agent.id, 4)).config).toMatchObject({ systemPrompt: "Three (draft).", temperature: 1.1 });

    // Publish (default: the newest).
    const published = await body<AgentView>(await ws.api(`/v1/agents/${agent.id}/publish`, { method: "POST" }));
    expect(published).toMatchObject({
      systemPrompt: "Three (draft).",
      temperature: 1.1,
      liveVersion: 4,
      latestVersion: 4,
      hasDraft: false,
    });

    // Roll back to 2: a new version 5 with version 2's configuration, live.
    const rolled = await body<AgentView>(await ws.api(`/v1/agents/${agent.id}/rollback`, { method: "POST", json: { version: 2 } }));
    expect(rolled).toMatchObject({ systemPrompt: "Two.", temperature: 0.3, liveVersion: 5, latestVersion: 5 });
    expect((await version(ws, agent.id, 5)).config).toEqual((await version(ws, agent.id, 2)).config);
    expect((await version(ws, agent.id, 5)).changes).toEqual(["systemPrompt", "temperature"]);

    // Publishing an older version by number: the newer ones stay, so the agent has a draft again.
    expect(await body<AgentView>(await ws.api(`/v1/agents/${agent.id}/publish`, { method: "POST", json: { version: 1 } }))).toMatchObject({
      systemPrompt: "One.",
      liveVersion: 1,
      latestVersion: 5,
      hasDraft: true,
    });

    // The list: newest first, paged, without configurations.
    const first = await versions(ws, agent.id, "?limit=2");
    expect(first.data.map((v) => [v.version, v.live])).toEqual([
      [5, false],
      [4, false],
    ]);
    expect(first.data[0]).not.toHaveProperty("config");
    const rest = await versions(ws, agent.id, `?limit=10&cursor=${first.nextCursor}`);
    expect(rest.data.map((v) => v.version)).toEqual([3, 2, 1]);
    expect(rest.data.find((v) => v.version === 1)?.live).toBe(true);
    expect(rest.hasMore).toBe(false);

    // Diff: per changed field, before and after.
    expect(await body(await ws.api(`/v1/agents/${agent.id}/versions/1/diff/2`))).toEqual({
      agentId: agent.id,
      from: 1,
      to: 2,
      changes: [
        { field: "systemPrompt", before: "One.", after: "Two." },
        { field: "temperature", before: 0.7, after: 0.3 },
      ],
    });
    expect((await body<{ changes: unknown[] }>(await ws.api(`/v1/agents/${agent.id}/versions/2/diff/5`))).changes).toEqual([]);
  });

  it("makes no version for a PATCH that changes nothing", async () => {
    const ws = await createWorkspace();
    const agent = await create(ws, { temperature: 0.5 });
    expect(await patch(ws, agent.id, { temperature: 0.5 })).toMatchObject({ liveVersion: 1, latestVersion: 1 });
  });

  it("gives concurrent changes distinct numbers, each built on the one before", async () => {
    const ws = await createWorkspace();
    const agent = await create(ws);
    const prompts = Array.from({ length: 6 }, (_, i) => `Prompt ${i}.`);
    await Promise.all(prompts.map((systemPrompt) => patch(ws, agent.id, { systemPrompt })));
    const page = await versions(ws, agent.id);
    expect(page.data.map((v) => v.version)).toEqual([7, 6, 5, 4, 3, 2, 1]);
    expect((await get(ws, agent.id)).liveVersion).toBe(7);
    const kept = await Promise.all([2, 3, 4, 5, 6, 7].map(async (n) => (await version(ws, agent.id, n)).config?.systemPrompt));
    expect([...kept].sort()).toEqual([...prompts].sort());
  });

  it("records the live version on a chat", async () => {
    const ws = await createWorkspace();
    const widget = await createWidget(ws);
    await patch(ws, widget.agentId, { systemPrompt: "Version two." });
    await patch(ws, widget.agentId, { systemPrompt: "A draft." }, "?draft=true");
    const sessionId = await widgetChat(widget.token, visitor(), ["Hello"]);
    expect((await getChat(ws, sessionId)).agentVersion).toBe(2);
  });

  it("answers 404 for an unknown version, 400 for one that is no number", async () => {
    const ws = await createWorkspace();
    const agent = await create(ws);
    await expectError(await ws.api(`/v1/agents/${agent.id}/versions/2`), 404, "not_found");
    await expectError(await ws.api(`/v1/agents/${agent.id}/versions/1/diff/9`), 404, "not_found");
    await expectError(await ws.api(`/v1/agents/${agent.id}/publish`, { method: "POST", json: { version: 9 } }), 404, "not_found");
    await expectError(await ws.api(`/v1/agents/${agent.id}/rollback`, { method: "POST", json: { version: 9 } }), 404, "not_found");
    await expectError(await ws.api(`/v1/agents/${agent.id}/versions/0`), 400, "validation_failed");
    await expectError(await ws.api(`/v1/agents/${agent.id}/versions/two`), 400, "validation_failed");
    await expectError(await ws.api(`/v1/agents/${agent.id}/rollback`, { method: "POST", json: {} }), 400, "validation_failed");
    await expectError(await ws.api(`/v1/agents/${agent.id}/versions?cursor=nope`), 400, "bad_request");
    await expectError(
      await ws.api(`/v1/agents/${agent.id}?draft=maybe`, { method: "PATCH", json: { name: "X" } }),
      400,
      "validation_failed",
    );
    // Another workspace's agent is not found, its versions neither.
    const other = await createWorkspace();
    await expectError(await other.api(`/v1/agents/${agent.id}/versions/1`), 404, "not_found");
  });
});
