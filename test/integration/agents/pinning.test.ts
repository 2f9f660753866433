// What runs a named version of an agent (docs/agents.md, "Versions"): a call runs the version it
// recorded when it was placed, whatever was published before it connected; calls, web calls,
// campaigns, widgets and messaging channels may name a version (a draft too), and otherwise run
// the live one.
import { beforeAll, describe, it } from "vitest";
import { createAgent, joinWebCall, speech, WEB_RATE, waitForCall } from "../../support/calls";
import { createWorkspace, json, type Workspace } from "../../support/harness";

const patch = async (ws: Workspace, id: string, body: Record<string, unknown>, query = "") => {
  const res = await ws.api(`/v1/agents/${id}${query}`, { method: "PATCH", json: body });
  if (res.status !== 200) throw new Error(`patch agent: ${res.status} ${await res.text()}`);
  return json<{ liveVersion: number; latestVersion: number }>(res);
};

// The provider sandbox speaks through one eSpeak thread, which starts cold.
beforeAll(async () => {
  await speech("Warming up.", WEB_RATE);
}, 30_000);

describe.concurrent("the version a call runs", () => {
  it("a web call placed before a publish runs the version it recorded", async ({ expect }) => {
    const ws = await createWorkspace();
    const agent = await createAgent(ws, { firstMessage: "Version one speaking." });
    const res = await ws.api(`/v1/agents/${agent.id}/web-call`, { method: "POST", json: {} });
    const { call, webCall } = await json<{ call: { id: string; agentVersion: number }; webCall: { url: string } }>(res);
    expect(call.agentVersion).toBe(1);
    // Published after the call was placed, before its media connected.
    expect((await patch(ws, agent.id, { firstMessage: "Version two speaking." })).liveVersion).toBe(2);

    const client = await joinWebCall(webCall.url);
    const greeting = await client.waitForEvent((e) => e.type === "transcript" && e.role === "agent");
    expect(greeting.text).toBe("Version one speaking.");
    client.ws.close();
    const done = await waitForCall(ws, call.id, (c) => !["queued", "ringing", "in-progress"].includes(c.status));
    expect(done.agentVersion).toBe(1);
    expect(done.transcript.turns[0]).toMatchObject({ role: "agent", text: "Version one speaking." });
  }, 60_000);
});
