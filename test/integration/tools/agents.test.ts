// An agent's tools through /v1/agents (docs/tools.md): defaults, the signing secret (in full once,
// masked after, minted for an agent that had none), the whole list replaced by PATCH, and every
// refusal: a parameters schema that is not a valid JSON Schema of an object, names, limits,
// built-ins given twice, transfer destinations. The URL guard (SSRF) on a worker configured as in
// production: refused at save (shape, port, a name of a private address over the test resolver)
// and again at call time, when a name saved public resolves to a private address.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorker } from "../../../dev/stack";
import { agents } from "../../../src/db/schema";
import { startDoh } from "../../support/dns";
import { createWorkspace, expectError, json, stack, testDb, type Workspace } from "../../support/harness";
import { visitor, widgetRequest } from "../../support/widgets";

const PERSONA = "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77";
const fn = (extra: Record<string, unknown> = {}) => ({
  type: "function",
  name: "lookup_order",
  description: "Looks up an order.",
  url: "https://tools.example.com/order",
  ...extra,
});

interface AgentOut {
  id: string;
  tools: Array<Record<string, unknown>>;
  toolSecret: string | null;
}

const create = (ws: Workspace, tools: unknown, base?: string) =>
  base
    ? fetch(`${base}/v1/agents`, {
        method: "POST",
        headers: { authorization: `Bearer ${ws.apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "Tools", personaId: PERSONA, tools }),
      })
    : ws.api("/v1/agents", { method: "POST", json: { name: "Tools", personaId: PERSONA, tools } });

describe("agent tools through the API", () => {
  it("stores tools with their defaults; the secret is shown in full once, then masked", async () => {
    const ws = await createWorkspace();
    const res = await create(ws, [fn(), { type: "end_call" }, { type: "transfer_call", destinations: [{ number: "+14155550100" }] }]);
    expect(res.status).toBe(201);
    const agent = await json<AgentOut>(res);
    expect(agent.tools).toEqual([
      { ...fn(), parameters: { type: "object", properties: {} }, timeoutSeconds: 10, messages: {} },
      { type: "end_call", messages: {} },
      { type: "transfer_call", destinations: [{ number: "+14155550100" }] },
    ]);
    expect(agent.toolSecret).toMatch(/^tss_[A-Za-z0-9]{40}$/);
    const masked = `tss_...${agent.toolSecret?.slice(-6)}`;
    expect((await json<AgentOut>(await ws.api(`/v1/agents/${agent.id}`))).toolSecret).toBe(masked);
    const list = await json<{ data: AgentOut[] }>(await ws.api("/v1/agents"));
    expect(list.data[0]?.toolSecret).toBe(masked);
    // Sealed at rest: the column holds no plaintext.
    const [row] = await testDb().select({ s: agents.toolSecret }).from(agents).where(eq(agents.id, agent.id));
    expect(row?.s).toMatch(/^v1:/);
    expect(row?.s).not.toContain(agent.toolSecret);

    // PATCH replaces the list; the secret stays (masked in the answer).
    const patched = await json<AgentOut>(
      await ws.api(`/v1/agents/${agent.id}`, { method: "PATCH", json: { tools: [{ type: "end_call" }] } }),
    );
    expect(patched.tools).toEqual([{ type: "end_call", messages: {} }]);
    expect(patched.toolSecret).toBe(masked);
  });

  it("mints a secret for an agent that had none with its first tools, shown in full in that answer", async () => {
    const ws = await createWorkspace();
    const agent = await json<AgentOut>(await create(ws, []));
    await testDb().update(agents).set({ toolSecret: null }).where(eq(agents.id, agent.id));
    expect((await json<AgentOut>(await ws.api(`/v1/agents/${agent.id}`))).toolSecret).toBeNull();
    const patched = await json<AgentOut>(await ws.api(`/v1/agents/${agent.id}`, { method: "PATCH", json: { tools: [fn()] } }));
    expect(patched.toolSecret).toMatch(/^tss_[A-Za-z0-9]{40}$/);
    const again = await json<AgentOut>(await ws.api(`/v1/agents/${agent.id}`, { method: "PATCH", json: { tools: [fn()] } }));
    expect(again.toolSecret).toBe(`tss_...${patched.toolSecret?.slice(-6)}`);
  });

  it.each([
    [
      "a parameters type that is no JSON Schema type",
      [fn({ parameters: { type: "object", properties: { id: { type: "strin" } } } })],
      "tools.0.parameters",
      "is not a valid JSON Schema at /properties/id/type",
    ],
    [
      "an invalid regular expression",
      [fn({ parameters: { type: "object", properties: { id: { type: "string", pattern: "([" } } } })],
      "tools.0.parameters",
      'does not match format "regex"',
    ],
    ["required that is not a list", [fn({ parameters: { type: "object", required: "id" } })], "tools.0.parameters", "/required"],
    ["a schema of an array", [fn({ parameters: { type: "array" } })], "tools.0.parameters", "must be the schema of an object"],
    [
      "a remote $ref",
      [fn({ parameters: { type: "object", properties: { a: { $ref: "https://example.com/s.json" } } } })],
      "tools.0.parameters",
      "remote schemas are not fetched",
    ],
    [
      "a $ref to nothing",
      [fn({ parameters: { type: "object", properties: { a: { $ref: "#/definitions/x" } } } })],
      "tools.0.parameters",
      "points at nothing",
    ],
    ["parameters that are not an object", [fn({ parameters: [] })], "tools.0.parameters", ""],
    ["a name with spaces", [fn({ name: "look up" })], "tools.0.name", "letters, digits"],
    ["a built-in's name", [fn({ name: "end_call" })], "tools.0.name", "built-in"],
    ["two tools of one name", [fn(), fn()], "tools.1.name", "duplicates"],
    ["end_call twice", [{ type: "end_call" }, { type: "end_call" }], "tools.1.type", "once"],
    ["a timeout of 0 s", [fn({ timeoutSeconds: 0 })], "tools.0.timeoutSeconds", ""],
    ["a timeout of 31 s", [fn({ timeoutSeconds: 31 })], "tools.0.timeoutSeconds", ""],
    ["no description", [fn({ description: "" })], "tools.0.description", ""],
    ["an unknown field", [fn({ secret: "x" })], "tools.0", ""],
    ["an unknown type", [{ type: "query" }], "tools.0.type", ""],
    ["21 tools", Array.from({ length: 21 }, (_, i) => fn({ name: `t${i}` })), "tools", ""],
    [
      "a transfer number that is not E.164",
      [{ type: "transfer_call", destinations: [{ number: "4155550100" }] }],
      "tools.0.destinations.0.number",
      "E.164",
    ],
    [
      "several destinations without names",
      [{ type: "transfer_call", destinations: [{ number: "+14155550100" }, { number: "+14155550101", name: "b" }] }],
      "tools.0.destinations.0.name",
      "several",
    ],
    ["no destination", [{ type: "transfer_call", destinations: [] }], "tools.0.destinations", ""],
    ["a URL that is not one", [fn({ url: "not a url" })], "tools.0.url", "valid absolute URL"],
    ["a URL with credentials", [fn({ url: "https://u:p@tools.example.com/x" })], "tools.0.url", "credentials"],
  ])("refuses %s", async (_, tools, path, message) => {
    const ws = await createWorkspace();
    const err = await expectError(await create(ws, tools), 400, "validation_failed");
    expect(
      err.issues?.some((i: { path: string; message: string }) => i.path.startsWith(path) && i.message.includes(message)),
      JSON.stringify(err.issues),
    ).toBe(true);
    const agent = await json<AgentOut>(await create(ws, []));
    const patch = await expectError(await ws.api(`/v1/agents/${agent.id}`, { method: "PATCH", json: { tools } }), 400, "validation_failed");
    expect(patch.issues?.some((i: { path: string }) => i.path.startsWith(path))).toBe(true);
  });
});

// -- The URL guard on a worker with production settings -------------------------------------------

const PUBLIC = "93.184.216.34";
const dns: Record<string, string[]> = {
  "tools.example.com": [PUBLIC],
  "localtest.me": ["127.0.0.1"],
  "metadata.example.com": ["169.254.169.254"],
  "rebind.example.com": [PUBLIC],
};
let worker: Awaited<ReturnType<typeof startWorker>>;
let doh: Awaited<ReturnType<typeof startDoh>>;

describe("tool URLs (production settings)", () => {
  beforeAll(async () => {
    doh = await startDoh(dns);
    worker = await startWorker({ ...stack().vars, WEBHOOKS_ALLOW_PRIVATE_URLS: "0", DNS_RESOLVER_URL: doh.url });
  }, 120_000);
  afterAll(async () => {
    await worker?.stop();
    await doh?.stop();
  });

  it.each([
    ["http://tools.example.com/x", "must use https"],
    ["https://127.0.0.1/x", "points at a non-public address (loopback)"],
    ["https://[::ffff:10.0.0.1]/x", "points at a non-public address (private)"],
    ["https://localhost/x", "points at an internal host name"],
    ["https://tools.example.com:6379/x", "must use port 443 or 8443"],
    ["https://localtest.me/x", "resolves to a non-public address (loopback)"],
    ["https://metadata.example.com/latest", "resolves to a non-public address (linkLocal)"],
  ])("refuses to save %s", async (url, why) => {
    const ws = await createWorkspace();
    const err = await expectError(await create(ws, [fn({ url })], worker.baseUrl), 400, "validation_failed");
    expect(err.issues).toEqual([{ path: "tools.0.url", message: `the URL ${why}` }]);
  });

  it("refuses at call time a name that resolved public when saved and private now: nothing is sent, the failure is said", async () => {
    const ws = await createWorkspace();
    const res = await create(
      ws,
      [fn({ url: "https://rebind.example.com/order", messages: { requestFailed: "The order system is unreachable." } })],
      worker.baseUrl,
    );
    expect(res.status, await res.clone().text()).toBe(201);
    const agent = await json<AgentOut>(res);
    const widgetRes = await fetch(`${worker.baseUrl}/v1/widgets`, {
      method: "POST",
      headers: { authorization: `Bearer ${ws.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "w", agentId: agent.id, allowedOrigins: ["https://shop.example.test"] }),
    });
    const widget = await json<{ token: string }>(widgetRes);
    dns["rebind.example.com"] = ["127.0.0.1"];
    try {
      const chat = await widgetRequest("/widget/v1/chat", {
        base: worker.baseUrl,
        token: widget.token,
        json: { visitorId: visitor(), message: "lookup order 5" },
      });
      expect(chat.status).toBe(200);
      const body = await json<{ sessionId: string; reply: { text: string } }>(chat);
      expect(body.reply.text).toMatch(
        /^The order system is unreachable\. The tool lookup_order returned: \{"error":"The tool failed: refused: the URL resolves to a non-public address \(loopback\)"\}/,
      );
      const view = await json<{ transcript: { turns: Array<{ role: string; tool?: Record<string, unknown> }> } }>(
        await ws.api(`/v1/chats/${body.sessionId}`),
      );
      expect(view.transcript.turns.find((t) => t.role === "tool")?.tool).toMatchObject({
        outcome: "url_refused",
        requestId: null,
        statusCode: null,
      });
    } finally {
      dns["rebind.example.com"] = [PUBLIC];
    }
  });
});
