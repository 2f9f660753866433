// A call's page over HTTP: Hang up, shown while the call runs (a POST form with the session's CSRF
// token and a confirmation), ends it through the API's own operation (src/calls/hang-up.ts) and
// comes back to the call's page (303) with a flash; a call that has already ended is told on the
// page (409), not a 500; another workspace's call is the 404 page. The API's codes:
// test/integration/calls/end.test.ts.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createAgent, joinWebCall, waitForCall } from "../../support/calls";
import { createWorkspace, json, type Workspace } from "../../support/harness";
import { pagesAs } from "../../support/pages";

const NO_CALL = "No call with that id in this workspace.";

const webCall = async (ws: Workspace, agentId: string) =>
  json<{ call: { id: string }; webCall: { url: string } }>(await ws.api(`/v1/agents/${agentId}/web-call`, { method: "POST", json: {} }));

/** The Hang up form of a call's page, when it has one. */
const hangUpForm = (html: string, id: string) =>
  new RegExp(`<form method="post" action="/dashboard/calls/${id}/hang-up" data-confirm="([^"]+)">[\\s\\S]*?</form>`).exec(html);

describe("a call's page: Hang up", () => {
  it("cancels a call nobody joined: the form, the 303 back with a flash, then no form; again, the page says it has ended (409)", async () => {
    const ws = await createWorkspace("Hang up, queued");
    const agent = await createAgent(ws);
    const { call } = await webCall(ws, agent.id);
    const page = await pagesAs(ws.admin.email, ws.admin.password);

    const live = await page(`/dashboard/calls/${call.id}`);
    const form = hangUpForm(live.html, call.id);
    expect(form?.[1]).toBe("Cancel this call? It stops ringing and is not connected.");
    expect(form?.[0]).toContain('<input type="hidden" name="_csrf"');
    expect(form?.[0]).toContain("Hang up");

    const hungUp = await page(`/dashboard/calls/${call.id}/hang-up`, {});
    expect([hungUp.status, hungUp.location]).toEqual([303, `/dashboard/calls/${call.id}?notice=canceled`]);
    expect(await json(await ws.api(`/v1/calls/${call.id}`))).toMatchObject({ status: "canceled", endedReason: "call-canceled" });
    const after = await page(hungUp.location ?? "");
    expect(after.html).toContain('<div class="flash ok" role="status">Call canceled.</div>');
    expect(hangUpForm(after.html, call.id)).toBeNull();

    const again = await page(`/dashboard/calls/${call.id}/hang-up`, {});
    expect(again.status).toBe(409);
    expect(again.html).toContain('<div class="flash error" role="alert">The call has already ended.</div>');
    expect(again.html).toContain("canceled"); // the call's page, as it is
  });

  it("hangs up a web call in progress: its session ends it `ended-via-api`", async () => {
    const ws = await createWorkspace("Hang up, in progress");
    const agent = await createAgent(ws, { firstMessage: "Hello from the dashboard test." });
    const { call, webCall: session } = await webCall(ws, agent.id);
    const client = await joinWebCall(session.url);
    await client.waitForEvent((e) => e.type === "status" && e.status === "in-progress");
    const page = await pagesAs(ws.admin.email, ws.admin.password);
    expect(hangUpForm((await page(`/dashboard/calls/${call.id}`)).html, call.id)?.[1]).toBe(
      "Hang up this call? The caller is cut off at once.",
    );

    const hungUp = await page(`/dashboard/calls/${call.id}/hang-up`, {});
    expect([hungUp.status, hungUp.location]).toEqual([303, `/dashboard/calls/${call.id}?notice=ending`]);
    expect((await client.waitForEvent((e) => e.type === "ended")).reason).toBe("ended-via-api");
    const done = await waitForCall(ws, call.id, (c) => c.status !== "in-progress");
    expect(done).toMatchObject({ status: "completed", endedReason: "ended-via-api" });
    expect((await page(hungUp.location ?? "")).html).toContain("Hanging up: the call ends in a moment.");
  }, 30_000);

  it("another workspace's call, a missing one and a malformed id are the 404 page; the call goes on", async () => {
    const owner = await createWorkspace("Hang up, owner");
    const agent = await createAgent(owner);
    const { call } = await webCall(owner, agent.id);
    const other = await createWorkspace("Hang up, stranger");
    const page = await pagesAs(other.admin.email, other.admin.password);
    for (const id of [call.id, randomUUID(), "not-a-uuid"]) {
      const res = await page(`/dashboard/calls/${id}/hang-up`, {});
      expect(res.status).toBe(404);
      expect(res.html).toContain(`<p role="alert">${NO_CALL}</p>`);
    }
    expect(await json(await owner.api(`/v1/calls/${call.id}`))).toMatchObject({ status: "queued" });
  });
});
