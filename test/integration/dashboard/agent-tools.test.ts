// The agent page's tool builder over HTTP: a function tool added from fields, its parameters as rows
// (name, type, description, required, allowed values for text) that make its JSON Schema, or the
// JSON itself (the advanced view); its errors on the fields with the typing kept (a bad name, bad
// JSON, a bad row, a duplicate); a tool opened, edited and renamed; changes published or saved as a
// draft, as the agent form's are (docs/agents.md, "Versions"); a tool removed; and the tool
// signing secret shown once, in full, when a change makes it (the agent then calls the tool, signed
// with it). The JSON text area of the form stays the whole list's advanced view.
import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { agents } from "../../../src/db/schema";
import { createAgent } from "../../support/calls";
import { createWorkspace, json, testDb, type Workspace } from "../../support/harness";
import { pagesAs } from "../../support/pages";
import { startToolServer, type ToolServer } from "../../support/tools";

const servers: ToolServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

interface AgentOut {
  tools: Array<{ type: string; name?: string; url?: string; timeoutSeconds?: number; parameters?: unknown; messages?: unknown }>;
  toolSecret: string | null;
  liveVersion: number;
  latestVersion: number;
}

const read = async (ws: Workspace, id: string) => json<AgentOut>(await ws.api(`/v1/agents/${id}`));
const newestTools = async (ws: Workspace, id: string) => {
  const agent = await read(ws, id);
  const version = await json<{ config: { tools: AgentOut["tools"] } }>(await ws.api(`/v1/agents/${id}/versions/${agent.latestVersion}`));
  return version.config.tools;
};

/** A test chat on the agent's page that asks it to look up an order (the sandbox LLM then calls `lookup_order`). */
const askForOrder = (page: Awaited<ReturnType<typeof pagesAs>>, id: string) =>
  page(`/dashboard/agents/${id}/chat`, { conversationId: crypto.randomUUID(), message: "Please lookup order 42", history: "[]" });

const SECRET = /<code id="tool-secret">(tss_[A-Za-z0-9]{40})<\/code>/;

describe("the agent page's tool builder", () => {
  it("adds a tool from fields and parameter rows, refuses bad ones on the fields, removes one; the agent calls it", async () => {
    const ws = await createWorkspace("Tool builder");
    const server = await startToolServer();
    servers.push(server);
    const agent = await createAgent(ws);
    const page = await pagesAs(ws.admin.email, ws.admin.password);
    const blank = (await page(`/dashboard/agents/${agent.id}`)).html;
    expect(blank).toContain('<input id="f-param-0-name" name="param.0.name" type="text" value=""');
    expect(blank).toContain('<option value="integer">Whole number</option>');
    const fields = {
      toolName: "lookup_order",
      toolDescription: "Looks up an order by its number.",
      toolUrl: `${server.url}/order`,
      toolTimeout: "5",
      toolRequestStart: "One moment, let me check.",
      "param.0.name": "orderId",
      "param.0.type": "string",
      "param.0.description": "The order number",
      "param.0.required": "on",
      "param.0.choices": "",
      "param.1.name": "size",
      "param.1.type": "string",
      "param.1.description": "",
      "param.1.choices": "small, large",
      "param.2.name": "",
      "param.2.type": "string",
      "param.2.description": "",
      "param.2.choices": "",
      "param.3.name": "express",
      "param.3.type": "boolean",
      "param.3.description": "",
      "param.3.choices": "",
    };
    const added = await page(`/dashboard/agents/${agent.id}/tools`, fields);
    expect([added.status, added.location]).toEqual([303, `/dashboard/agents/${agent.id}?saved=1#tools`]);
    const saved = await read(ws, agent.id);
    expect(saved.tools).toEqual([
      {
        type: "function",
        name: "lookup_order",
        description: "Looks up an order by its number.",
        url: `${server.url}/order`,
        timeoutSeconds: 5,
        parameters: {
          type: "object",
          properties: {
            orderId: { type: "string", description: "The order number" },
            size: { type: "string", enum: ["small", "large"] },
            express: { type: "boolean" },
          },
          required: ["orderId"],
        },
        messages: { requestStart: "One moment, let me check." },
      },
    ]);
    expect(saved.toolSecret).toMatch(/^tss_\.\.\./); // the agent's (made when it was created): masked
    expect(saved.liveVersion).toBe(2); // published
    const shown = (await page(`/dashboard/agents/${agent.id}`)).html;
    expect(shown).toContain(`<code>lookup_order</code><span class="muted small">${server.url}/order · 5 s</span>`);
    expect(shown).toContain(`href="/dashboard/agents/${agent.id}?tool=lookup_order#tools" aria-label="Edit lookup_order"`);

    // Refusals: on the fields, the typing kept, nothing saved.
    const bad = await page(`/dashboard/agents/${agent.id}/tools`, {
      ...fields,
      toolName: "no spaces allowed",
      "param.0.name": "1st",
      "param.3.choices": "yes, no",
    });
    expect(bad.status).toBe(400);
    expect(bad.html).toContain('id="f-toolName-error"');
    expect(bad.html).toContain('value="no spaces allowed"');
    // The rows as typed, numbered as shown (the blank row dropped): their own errors, named in the summary.
    expect(bad.html).toContain(
      '<p class="field-error" id="f-param-0-name-error">must be 1 to 64 letters, digits or _, not starting with a digit</p>',
    );
    expect(bad.html).toContain('<p class="field-error" id="f-param-2-choices-error">only a text parameter takes allowed values</p>');
    expect(bad.html).toContain('<a href="#f-param-2-choices">Parameter 3 allowed values</a>');
    expect(bad.html).toContain('<input id="f-param-2-name" name="param.2.name" type="text" value="express"');
    const badJson = await page(`/dashboard/agents/${agent.id}/tools`, { ...fields, toolParamsAsJson: "1", toolParameters: "{not json" });
    expect(badJson.status).toBe(400);
    expect(badJson.html).toMatch(/id="f-toolParameters-error"[^>]*>must be valid JSON/);
    expect(badJson.html).toContain('<details class="advanced" open="" data-param-json="true">');
    const twice = await page(`/dashboard/agents/${agent.id}/tools`, fields);
    expect(twice.status).toBe(400);
    expect(twice.html).toContain("duplicates another tool&#39;s name (lookup_order)");
    expect((await read(ws, agent.id)).tools).toHaveLength(1);

    // The agent calls it in the page's test chat.
    const secret = await json<{ toolSecret: string }>(await ws.api(`/v1/agents/${agent.id}/rotate-tool-secret`, { method: "POST" }));
    server.secret = secret.toolSecret;
    expect(JSON.parse((await askForOrder(page, agent.id)).html).tools[0]).toContain("lookup_order");
    expect(server.requests[0]?.verified).toBe(true);

    const removed = await page(`/dashboard/agents/${agent.id}/tools/remove`, { name: "lookup_order" });
    expect(removed.location).toBe(`/dashboard/agents/${agent.id}?saved=1#tools`);
    expect((await read(ws, agent.id)).tools).toEqual([]);
    expect((await page(`/dashboard/agents/${agent.id}/tools/remove`, { name: "lookup_order" })).status).toBe(404);
  });

  it("takes the parameters as JSON Schema (the advanced view); a schema the rows cannot say opens as JSON", async () => {
    const ws = await createWorkspace("Tool builder JSON");
    const agent = await createAgent(ws);
    const page = await pagesAs(ws.admin.email, ws.admin.password);
    const nested = {
      type: "object",
      properties: { items: { type: "array", items: { type: "string" }, minItems: 1 } },
      required: ["items"],
    };
    const added = await page(`/dashboard/agents/${agent.id}/tools`, {
      toolName: "add_items",
      toolDescription: "Adds items to the basket.",
      toolUrl: "https://tools.example.com/items",
      toolTimeout: "10",
      "param.0.name": "ignored",
      "param.0.type": "string",
      toolParamsAsJson: "1",
      toolParameters: JSON.stringify(nested),
    });
    expect(added.status).toBe(303);
    expect((await read(ws, agent.id)).tools[0]?.parameters).toEqual(nested);
    const opened = (await page(`/dashboard/agents/${agent.id}?tool=add_items`)).html;
    expect(opened).toContain("<h3>Edit the tool add_items</h3>");
    expect(opened).toContain('<input type="checkbox" id="f-toolParamsAsJson" name="toolParamsAsJson" value="1" checked=""/>');
    expect(opened).toContain("&quot;minItems&quot;: 1");
    expect(opened).toContain('<input id="f-param-0-name" name="param.0.name" type="text" value=""'); // no row: one blank
    expect((await page(`/dashboard/agents/${agent.id}?tool=nope`)).html).toContain("The agent has no tool named “nope”.");
  });

  it("opens a tool, edits and renames it; a draft leaves the live version as it was, the next draft builds on it", async () => {
    const ws = await createWorkspace("Tool builder edit");
    const agent = await createAgent(ws, {
      tools: [
        {
          type: "function",
          name: "lookup_order",
          description: "Looks up an order.",
          url: "https://tools.example.com/order",
          parameters: { type: "object", properties: { orderId: { type: "string", description: "The number" } }, required: ["orderId"] },
          messages: { requestFailed: "Sorry, the order system is down." },
        },
        { type: "end_call" },
      ],
    });
    const page = await pagesAs(ws.admin.email, ws.admin.password);
    const opened = (await page(`/dashboard/agents/${agent.id}?tool=lookup_order#tools`)).html;
    expect(opened).toContain("<h3>Edit the tool lookup_order</h3>");
    expect(opened).toContain('<input type="hidden" name="toolOriginal" value="lookup_order"/>');
    expect(opened).toContain('<input id="f-param-0-name" name="param.0.name" type="text" value="orderId"');
    expect(opened).toContain('<input type="checkbox" id="f-param-0-required" name="param.0.required" value="on" checked=""/>');
    expect(opened).toContain('value="Sorry, the order system is down."');
    expect(opened).toContain('<input id="f-param-1-name" name="param.1.name" type="text" value=""'); // a blank row to add one

    const edit = {
      toolOriginal: "lookup_order",
      toolName: "find_order",
      toolDescription: "Finds an order by number.",
      toolUrl: "https://tools.example.com/find",
      toolTimeout: "7",
      toolRequestFailed: "Sorry, the order system is down.",
      "param.0.name": "orderId",
      "param.0.type": "integer",
      "param.0.description": "The number",
      "param.0.required": "on",
    };
    // Save as draft: the live version keeps the old tool; the draft has the new one in its place.
    const drafted = await page(`/dashboard/agents/${agent.id}/tools`, { ...edit, draft: "1" });
    expect([drafted.status, drafted.location]).toEqual([303, `/dashboard/agents/${agent.id}?saved=draft#tools`]);
    const live = await read(ws, agent.id);
    expect(live).toMatchObject({ liveVersion: 1, latestVersion: 2 });
    expect(live.tools.map((t) => t.name ?? t.type)).toEqual(["lookup_order", "end_call"]);
    expect(await newestTools(ws, agent.id)).toEqual([
      {
        type: "function",
        name: "find_order",
        description: "Finds an order by number.",
        url: "https://tools.example.com/find",
        timeoutSeconds: 7,
        parameters: { type: "object", properties: { orderId: { type: "integer", description: "The number" } }, required: ["orderId"] },
        messages: { requestFailed: "Sorry, the order system is down." },
      },
      { type: "end_call", messages: {} },
    ]);
    // The next draft builds on the draft: end_call removed from it; the live version still has both.
    const removed = await page(`/dashboard/agents/${agent.id}/tools/remove`, { name: "end_call", draft: "1" });
    expect(removed.location).toBe(`/dashboard/agents/${agent.id}?saved=draft#tools`);
    expect((await newestTools(ws, agent.id)).map((t) => t.name ?? t.type)).toEqual(["find_order"]);
    expect((await read(ws, agent.id)).tools.map((t) => t.name ?? t.type)).toEqual(["lookup_order", "end_call"]);
    // A draft edit of a tool the draft no longer has is told on the form.
    const gone = await page(`/dashboard/agents/${agent.id}/tools`, { ...edit, toolOriginal: "lookup_order", draft: "1" });
    expect(gone.status).toBe(400);
    expect(gone.html).toContain("The agent&#39;s newest version has no tool named &quot;lookup_order&quot;.");

    // Save and publish: built on the live version (as the form's Save and publish is), live at once.
    const published = await page(`/dashboard/agents/${agent.id}/tools`, edit);
    expect([published.status, published.location]).toEqual([303, `/dashboard/agents/${agent.id}?saved=1#tools`]);
    const after = await read(ws, agent.id);
    expect(after).toMatchObject({ liveVersion: 4, latestVersion: 4 });
    expect(after.tools.map((t) => t.name ?? t.type)).toEqual(["find_order", "end_call"]);
    // Renamed onto another tool's name: refused.
    const clash = await page(`/dashboard/agents/${agent.id}/tools`, { ...edit, toolOriginal: "find_order", toolName: "end_call" });
    expect(clash.status).toBe(400);
    expect(clash.html).toContain('id="f-toolName-error"');
  });

  it("shows the tool signing secret once, in full, when a change makes it: an agent created with tools, or given its first", async () => {
    const ws = await createWorkspace("Tool secret shown once");
    const server = await startToolServer();
    servers.push(server);
    const page = await pagesAs(ws.admin.email, ws.admin.password);
    const tool = {
      type: "function",
      name: "lookup_order",
      description: "Looks up an order.",
      url: `${server.url}/order`,
      parameters: { type: "object", properties: { orderId: { type: "string" } } },
    };
    const form = { name: "Shop desk", personaId: crypto.randomUUID(), language: "en-US", llmModel: "sandbox-chat" };

    // Created with a tool (Tools JSON): the page itself, with the secret; it signs the agent's tool calls.
    const created = await page("/dashboard/agents", { ...form, tools: JSON.stringify([tool]) });
    expect(created.status).toBe(200);
    expect(created.html).toContain("Agent created. Its tool signing secret is shown once");
    expect(created.html).toContain("The agent&#39;s tool signing secret, made with its tools. Copy it now: it is not shown again.");
    const secret = SECRET.exec(created.html)?.[1] ?? "";
    expect(secret).not.toBe("");
    const id = /action="\/dashboard\/agents\/([0-9a-f-]{36})\/tools#tools"/.exec(created.html)?.[1] as string;
    expect((await read(ws, id)).toolSecret).toBe(`tss_...${secret.slice(-6)}`);
    expect(SECRET.test((await page(`/dashboard/agents/${id}`)).html)).toBe(false); // once
    server.secret = secret;
    await askForOrder(page, id);
    expect(server.requests.at(-1)?.verified).toBe(true);

    // Created without a tool of its own: the usual redirect, no secret on the way.
    const plain = await page("/dashboard/agents", { ...form, name: "No tools" });
    expect(plain.status).toBe(303);

    // An agent that had no secret (made before tools existed) gets one with its first tool from the builder: shown once.
    const old = await createAgent(ws, { name: "Old desk" });
    await testDb().update(agents).set({ toolSecret: null }).where(eq(agents.id, old.id));
    const first = await page(`/dashboard/agents/${old.id}/tools`, {
      toolName: "lookup_order",
      toolDescription: "Looks up an order.",
      toolUrl: `${server.url}/order`,
      toolTimeout: "10",
    });
    expect(first.status).toBe(200);
    const made = SECRET.exec(first.html)?.[1] ?? "";
    expect(made).not.toBe("");
    expect((await read(ws, old.id)).toolSecret).toBe(`tss_...${made.slice(-6)}`);
    server.secret = made;
    await askForOrder(page, old.id);
    expect(server.requests.at(-1)?.verified).toBe(true);
    // The next tool changes nothing of the secret: a redirect, as usual.
    const second = await page(`/dashboard/agents/${old.id}/tools/remove`, { name: "lookup_order" });
    expect(second.status).toBe(303);

    // The same through the form's Tools JSON.
    const older = await createAgent(ws, { name: "Older desk" });
    await testDb().update(agents).set({ toolSecret: null }).where(eq(agents.id, older.id));
    const viaForm = await page(`/dashboard/agents/${older.id}`, { ...form, name: "Older desk", tools: JSON.stringify([tool]) });
    expect(viaForm.status).toBe(200);
    expect(SECRET.exec(viaForm.html)?.[1]).toMatch(/^tss_/);
  });
});
