// The agents and voices pages apply the services' ownership rules (agents/service.ts,
// voices/service.ts) in the pages' own words: a system voice cannot be changed (409 page), and
// another workspace's or a missing voice or agent is not in this workspace (404 page). The /v1
// wording of the same rules is pinned by test/integration/{agents,voices}/.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { csrfToken } from "../../../src/dashboard/session";
import { createWorkspace, json, request, signIn, type Workspace } from "../../support/harness";

const ALLOY = "00000000-0000-7000-8000-000000000001";
const VOICE = { name: "Clara", provider: "sandbox", providerVoiceId: "sandbox-1", language: "en-US" };
const READ_ONLY = "System voices are shared by every workspace and cannot be changed.";
const NO_VOICE = "No voice with that id in this workspace.";
const NO_AGENT = "No agent with that id in this workspace.";

async function signedIn(ws: Workspace) {
  const { cookie, token } = await signIn(ws.admin.email, ws.admin.password);
  const csrf = await csrfToken(token);
  return (path: string, fields?: Record<string, string>) =>
    request(path, {
      method: fields ? "POST" : "GET",
      headers: { cookie, ...(fields ? { "content-type": "application/x-www-form-urlencoded" } : {}) },
      body: fields ? new URLSearchParams({ ...fields, _csrf: csrf }) : undefined,
    });
}

async function expectPage(res: Response, status: number, message: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toContain("text/html");
  expect(await res.text()).toContain(`<p role="alert">${message}</p>`);
}

describe("voice pages: the ownership rule", () => {
  it("a system voice has no edit page, and cannot be saved or deleted (409), and is left unchanged", async () => {
    const ws = await createWorkspace("Pages system voice");
    const page = await signedIn(ws);
    const before = await json(await ws.api(`/v1/voices/${ALLOY}`));
    await expectPage(await page(`/dashboard/voices/${ALLOY}`), 409, READ_ONLY);
    await expectPage(await page(`/dashboard/voices/${ALLOY}`, { ...VOICE, name: "Mine now" }), 409, READ_ONLY);
    await expectPage(await page(`/dashboard/voices/${ALLOY}/delete`, {}), 409, READ_ONLY);
    expect(await json(await ws.api(`/v1/voices/${ALLOY}`))).toEqual(before);
  });

  it("another workspace's voice, a missing one and a malformed id are not in this workspace (404), and nothing changes", async () => {
    const owner = await createWorkspace("Pages voice owner");
    const theirs = await json<{ id: string }>(await owner.api("/v1/voices", { method: "POST", json: VOICE }));
    const page = await signedIn(await createWorkspace("Pages voice other"));
    for (const id of [theirs.id, randomUUID(), "not-a-uuid"]) {
      await expectPage(await page(`/dashboard/voices/${id}`), 404, NO_VOICE);
      await expectPage(await page(`/dashboard/voices/${id}`, { ...VOICE, name: "Stolen" }), 404, NO_VOICE);
      await expectPage(await page(`/dashboard/voices/${id}/delete`, {}), 404, NO_VOICE);
    }
    expect(await json(await owner.api(`/v1/voices/${theirs.id}`))).toEqual(theirs);
  });

  it("the workspace's own voice is edited and deleted", async () => {
    const ws = await createWorkspace("Pages own voice");
    const page = await signedIn(ws);
    const mine = await json<{ id: string }>(await ws.api("/v1/voices", { method: "POST", json: VOICE }));
    expect((await page(`/dashboard/voices/${mine.id}`)).status).toBe(200);
    const saved = await page(`/dashboard/voices/${mine.id}`, { ...VOICE, name: "Clara (sales)" });
    expect(saved.status).toBe(303);
    expect(saved.headers.get("location")).toBe(`/dashboard/voices/${mine.id}?saved=1`);
    expect(await json(await ws.api(`/v1/voices/${mine.id}`))).toMatchObject({ name: "Clara (sales)" });
    const deleted = await page(`/dashboard/voices/${mine.id}/delete`, {});
    expect(deleted.status).toBe(303);
    expect(deleted.headers.get("location")).toBe("/dashboard/voices?deleted=1");
    expect((await ws.api(`/v1/voices/${mine.id}`)).status).toBe(404);
  });
});

describe("agent pages: the ownership rule", () => {
  it("another workspace's agent, a missing one and a malformed id are not in this workspace (404), and nothing changes", async () => {
    const owner = await createWorkspace("Pages agent owner");
    const created = await json<{ id: string; toolSecret: string }>(
      await owner.api("/v1/agents", { method: "POST", json: { name: "Theirs", personaId: randomUUID() } }),
    );
    // The create response alone shows the tool signing secret in full.
    const theirs = { ...created, toolSecret: `tss_...${created.toolSecret.slice(-6)}` };
    const page = await signedIn(await createWorkspace("Pages agent other"));
    for (const id of [theirs.id, randomUUID(), "not-a-uuid"]) {
      await expectPage(await page(`/dashboard/agents/${id}`), 404, NO_AGENT);
      await expectPage(await page(`/dashboard/agents/${id}`, { name: "Stolen", personaId: randomUUID() }), 404, NO_AGENT);
      await expectPage(await page(`/dashboard/agents/${id}/delete`, {}), 404, NO_AGENT);
    }
    expect(await json(await owner.api(`/v1/agents/${theirs.id}`))).toEqual(theirs);
  });

  it("refuses another workspace's voice on the agent form, in the field, like the API", async () => {
    const other = await createWorkspace("Pages agent voice owner");
    const theirVoice = await json<{ id: string }>(await other.api("/v1/voices", { method: "POST", json: VOICE }));
    const ws = await createWorkspace("Pages agent voice");
    const page = await signedIn(ws);
    const res = await page("/dashboard/agents", {
      name: "Desk",
      personaId: randomUUID(),
      language: "en-US",
      llmModel: "gpt-4o-mini",
      voiceId: theirVoice.id,
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain("no voice with this id in this workspace or the system catalog");
    expect((await json<{ data: unknown[] }>(await ws.api("/v1/agents"))).data).toEqual([]);
  });
});
