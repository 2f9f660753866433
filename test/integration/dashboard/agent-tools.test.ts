// The agent page's tool builder over HTTP: a function tool added from fields (the API's own tool
// and list schemas; the signing secret made with the first tool, the API's URL guard), its errors on
// the fields with the typing kept (a bad name, bad JSON, a duplicate), and a tool removed; the agent
// then calls the new tool in a test chat. The JSON text area stays the whole list's advanced view.
import { afterEach, describe, expect, it } from "vitest";
import { createAgent } from "../../support/calls";
import { createWorkspace, json } from "../../support/harness";
import { pagesAs } from "../../support/pages";
import { startToolServer, type ToolServer } from "../../support/tools";

const servers: ToolServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

interface AgentOut {
  tools: Array<{ type: string; name?: string; url?: string; timeoutSeconds?: number; parameters?: unknown; messages?: unknown }>;
  toolSecret: string | null;
}

describe("the agent page's tool builder", () => {
  it("adds a tool from fields, refuses bad ones on the fields, removes one; the agent calls it", async () => {
    const ws = await createWorkspace("Tool builder");
    const server = await startToolServer();
    servers.push(server);
    const agent = await createAgent(ws);
    const page = await pagesAs(ws.admin.email, ws.admin.password);
    const fields = {
      toolName: "lookup_order",
      toolDescription: "Looks up an order by its number.",
      toolUrl: `${server.url}/order`,
      toolTimeout: "5",
      toolParameters: '{"type":"object","properties":{"orderId":{"type":"string"}},"required":["orderId"]}',
      toolRequestStart: "One moment, let me check.",
    };
    const added = await page(`/dashboard/agents/${agent.id}/tools`, fields);
    expect([added.status, added.location]).toEqual([303, `/dashboard/agents/${agent.id}?saved=1#tools`]);
    const saved = await json<AgentOut>(await ws.api(`/v1/agents/${agent.id}`));
    expect(saved.tools).toEqual([
      {
        type: "function",
        name: "lookup_order",
        description: "Looks up an order by its number.",
        url: `${server.url}/order`,
        timeoutSeconds: 5,
        parameters: { type: "object", properties: { orderId: { type: "string" } }, required: ["orderId"] },
        messages: { requestStart: "One moment, let me check." },
      },
    ]);
    expect(saved.toolSecret).toMatch(/^tss_\.\.\./); // made with the first tool
    const shown = (await page(`/dashboard/agents/${agent.id}`)).html;
    expect(shown).toContain(`<code>lookup_order</code><span class="muted small">${server.url}/order · 5 s</span>`);

    // Refusals: on the fields, the typing kept, nothing saved.
    const bad = await page(`/dashboard/agents/${agent.id}/tools`, {
      ...fields,
      toolName: "no spaces allowed",
      toolParameters: "{not json",
    });
    expect(bad.status).toBe(400);
    expect(bad.html).toContain('id="f-toolName-error"');
    expect(bad.html).toContain('value="no spaces allowed"');
    expect(bad.html).toMatch(/id="f-toolParameters-error"[^>]*>[^<]*JSON/);
    const twice = await page(`/dashboard/agents/${agent.id}/tools`, fields);
    expect(twice.status).toBe(400);
    expect(twice.html).toContain("duplicates another tool&#39;s name (lookup_order)");
    expect((await json<AgentOut>(await ws.api(`/v1/agents/${agent.id}`))).tools).toHaveLength(1);

    // The agent calls it in the page's test chat.
    const secret = await json<{ toolSecret: string }>(await ws.api(`/v1/agents/${agent.id}/rotate-tool-secret`, { method: "POST" }));
    server.secret = secret.toolSecret;
    const chat = await page(`/dashboard/agents/${agent.id}/chat`, {
      conversationId: "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77",
      message: "Please lookup order 42",
      history: "[]",
    });
    expect(JSON.parse(chat.html).tools[0]).toContain("lookup_order");
    expect(server.requests[0]?.verified).toBe(true);

    const removed = await page(`/dashboard/agents/${agent.id}/tools/remove`, { name: "lookup_order" });
    expect(removed.location).toBe(`/dashboard/agents/${agent.id}?saved=1#tools`);
    expect((await json<AgentOut>(await ws.api(`/v1/agents/${agent.id}`))).tools).toEqual([]);
    expect((await page(`/dashboard/agents/${agent.id}/tools/remove`, { name: "lookup_order" })).status).toBe(404);
  });
});
