// Reading calls through the one calls service (src/calls/service.ts): the API's list and the
// dashboard's list apply the same filters to the same workspace; a call's page and GET
// /v1/calls/:id show the same cost; another workspace's call is a 404 on both surfaces.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createAgent, waitForCall } from "../../calls";
import { createWorkspace, expectError, json, request, signIn, type Workspace } from "../../harness";

const BUSY = "+12025550102";
const NO_CALL = "No call with that id in this workspace.";

/** A dashboard error page: its status and its message. */
async function expectPage(res: Response, status: number, message: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toContain("text/html");
  expect(await res.text()).toContain(`<p role="alert">${message}</p>`);
}

const webCall = async (ws: Workspace, agentId: string) =>
  (await json<{ call: { id: string } }>(await ws.api(`/v1/agents/${agentId}/web-call`, { method: "POST", json: {} }))).call.id;

/** The ids of the calls a page of the dashboard links to, in its order. */
const linkedCalls = (html: string) => [...html.matchAll(/href="\/dashboard\/calls\/([0-9a-f-]{36})"/g)].map((m) => m[1]);

describe("call reads: the API and the dashboard", () => {
  it("list the same calls for the same filters, newest first, and only the workspace's", async () => {
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
      ["direction=inbound", [webB, webA]],
      [`agentId=${a.id}&type=web&direction=inbound&status=queued`, [webA]],
    ];
    for (const [query, ids] of expected) {
      expect(await api(query), `GET /v1/calls?${query}`).toEqual(ids);
      expect(await page(query), `/dashboard/calls?${query}`).toEqual(ids);
    }
    // A value the dashboard's form does not offer filters nothing there; the API refuses it.
    expect(await page("status=bogus&type=fax&agentId=nope")).toEqual([webB, webA, phone.id]);
    await expectError(await ws.api("/v1/calls?status=bogus"), 400, "validation_failed");
  }, 60_000);

  it("show a call's cost the same way, and answer 404 for another workspace's call or a missing one", async () => {
    const ws = await createWorkspace("Call reads, one call");
    const agent = await createAgent(ws);
    const phone = await json<{ id: string }>(await ws.api(`/v1/agents/${agent.id}/calls`, { method: "POST", json: { phoneNumber: BUSY } }));
    const call = await waitForCall(ws, phone.id, (c) => c.status === "busy", 20_000);
    const { cookie } = await signIn(ws.admin.email, ws.admin.password);
    const html = await (await request(`/dashboard/calls/${phone.id}`, { headers: { cookie } })).text();
    expect(html).toContain(`${call.cost.credits} credits`);

    const other = await createWorkspace("Call reads, stranger");
    const stranger = await signIn(other.admin.email, other.admin.password);
    for (const id of [phone.id, randomUUID()]) {
      const res = await expectError(await other.api(`/v1/calls/${id}`), 404, "not_found");
      expect(res.message).toBe(NO_CALL);
      await expectError(await other.api(`/v1/calls/${id}/recording`), 404, "not_found");
      await expectPage(await request(`/dashboard/calls/${id}`, { headers: { cookie: stranger.cookie } }), 404, NO_CALL);
      await expectPage(await request(`/dashboard/calls/${id}/recording`, { headers: { cookie: stranger.cookie } }), 404, NO_CALL);
    }
    await expectPage(await request("/dashboard/calls/not-a-uuid", { headers: { cookie } }), 404, NO_CALL);
    // A call without a recording: each surface in its own words.
    const none = await expectError(await ws.api(`/v1/calls/${phone.id}/recording`), 404, "not_found");
    expect(none.message).toBe("This call has no recording (yet).");
    await expectPage(await request(`/dashboard/calls/${phone.id}/recording`, { headers: { cookie } }), 404, "This call has no recording.");
  });
});
