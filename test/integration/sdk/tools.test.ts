// A customer's tool server written with the SDK (docs/tools.md, docs/sdk.md): a fetch handler that
// verifies each request with client.tools.constructRequest, serves each id once and answers with
// client.tools.response. A widget chat's agent, made with the SDK, calls it through the real
// worker: the request is verified, holds to the document's `tool.call`, and the answer is in what
// the agent says next. A forged request (changed body, another agent's secret) and a replayed one
// (as captured, and after the tolerance) are what the SDK's verifier, or the id check, refuses.
import { createServer, type Server } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { type ToolRequest, type VoiceAgentPlatform, WebhookVerificationError } from "../../../packages/sdk/src/index";
import { createWorkspace } from "../../support/harness";
import { servedContract } from "../../support/openapi";
import { sdkFor } from "../../support/sdk";
import { agentWithTools } from "../../support/tools";
import { SITE, visitor, chat as widgetChat } from "../../support/widgets";

interface Captured {
  path: string;
  body: string;
  headers: Record<string, string>;
  status: number;
  answer: string;
  request: ToolRequest<{ orderId?: string }> | null;
}

interface SdkToolServer {
  url: string;
  secret: string;
  /** Added to the verifier's clock: a receiver that gets a captured request later. */
  clockOffsetMs: number;
  captured: Captured[];
  send(path: string, body: string, headers: Record<string, string>): Promise<Response>;
  stop(): Promise<void>;
}

/** The customer's handler: the SDK's verifier, an id served once, the SDK's response. */
function handler(client: VoiceAgentPlatform, state: { secret: string; clockOffsetMs: number }, seen: Set<string>) {
  return async (request: Request): Promise<{ res: Response; req: Captured["request"] }> => {
    let req: ToolRequest<{ orderId?: string }>;
    try {
      req = await client.tools.constructRequest<{ orderId?: string }>(await request.text(), request.headers, state.secret, {
        now: Date.now() + state.clockOffsetMs,
      });
    } catch (err) {
      if (err instanceof WebhookVerificationError)
        return { res: client.tools.response({ error: err.message }, { status: 401 }), req: null };
      throw err;
    }
    if (seen.has(req.id)) return { res: client.tools.response({ error: "already served" }, { status: 409 }), req };
    seen.add(req.id);
    const answer = { status: "shipped", carrier: "Parcelo", orderId: req.toolCall.arguments.orderId, chat: req.chat?.channel };
    return { res: client.tools.response(answer), req };
  };
}

async function startSdkToolServer(client: VoiceAgentPlatform): Promise<SdkToolServer> {
  const state = { secret: "", clockOffsetMs: 0 };
  const captured: Captured[] = [];
  const handle = handler(client, state, new Set());
  // node:http in front of the fetch handler, as a Node framework adapter does.
  const server: Server = createServer(async (incoming, out) => {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    const headers = Object.fromEntries(Object.entries(incoming.headers).map(([k, v]) => [k, String(v)]));
    const path = new URL(incoming.url ?? "/", "http://x").pathname;
    const { res, req } = await handle(new Request(`http://x${path}`, { method: "POST", headers, body }));
    const answer = await res.text();
    captured.push({ path, body, headers, status: res.status, answer, request: req });
    out.writeHead(res.status, Object.fromEntries(res.headers)).end(answer);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const addr = server.address();
  if (!addr || typeof addr === "string") throw new Error("tool server did not bind");
  const url = `http://127.0.0.1:${addr.port}`;
  return {
    url,
    captured,
    get secret() {
      return state.secret;
    },
    set secret(v: string) {
      state.secret = v;
    },
    get clockOffsetMs() {
      return state.clockOffsetMs;
    },
    set clockOffsetMs(v: number) {
      state.clockOffsetMs = v;
    },
    send: (path, body, headers) => fetch(url + path, { method: "POST", headers, body }),
    stop: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const servers: SdkToolServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

async function setup() {
  const ws = await createWorkspace();
  const client = sdkFor(ws);
  const server = await startSdkToolServer(client);
  servers.push(server);
  const agent = await client.agents.create(agentWithTools(server.url) as Parameters<typeof client.agents.create>[0]);
  server.secret = String(agent.toolSecret);
  const widget = await client.widgets.create({ agentId: agent.id, name: "Shop", allowedOrigins: [SITE] });
  return { ws, client, server, agent, widget };
}

describe("a tool server built with the SDK", () => {
  it("verifies the worker's tool request, reads it typed, and its answer is what the agent says next", async () => {
    const { server, agent, widget } = await setup();
    const reply = await widgetChat(widget.token, { visitorId: visitor(), message: "Can you lookup order 42 for me?" });

    expect(server.captured).toHaveLength(1);
    const [got] = server.captured;
    expect(got?.status).toBe(200);
    expect(got?.request).toMatchObject({
      id: got?.headers["x-service-delivery-id"],
      event: "tool.call",
      toolCall: { name: "lookup_order", arguments: { orderId: expect.any(String) } },
      chat: { id: reply.sessionId, channel: "widget" },
      call: null,
      agent: { id: agent.id, name: "Order desk" },
      metadata: {},
    });
    // What the worker sent is what the document's tool.call describes (the SDK's type comes from it).
    expect((await servedContract()).checkWebhook("tool.call", JSON.parse(got?.body ?? "null"))).toEqual([]);
    // The SDK's answer, read by the platform and given to the model, is in the reply.
    expect(got?.answer).toBe(
      JSON.stringify({ status: "shipped", carrier: "Parcelo", orderId: got?.request?.toolCall.arguments.orderId, chat: "widget" }),
    );
    expect(reply.reply.text).toContain(`The tool lookup_order returned: ${got?.answer}`);
  });

  it("refuses a forged request and a replayed one", async () => {
    const { client, server, widget } = await setup();
    await widgetChat(widget.token, { visitorId: visitor(), message: "lookup order 9" });
    const original = server.captured[0];
    if (!original) throw new Error("no tool request");
    expect(original.status).toBe(200);
    const signature = original.headers["x-service-signature"] as string;
    const deliveryId = original.headers["x-service-delivery-id"] as string;
    const sent = (body: string, headers: Record<string, string> = {}) =>
      server.send(original.path, body, {
        "content-type": "application/json",
        "x-service-signature": signature,
        "x-service-delivery-id": deliveryId,
        ...headers,
      });
    const refusedFor = async (res: Response) => {
      expect(res.status).toBe(401);
      return ((await res.json()) as { error: string }).error;
    };

    // Forged: the body changed (another order), the signature kept.
    expect(await refusedFor(await sent(original.body.replace('"lookup_order"', '"cancel_order"')))).toMatch(/No signature matches/);
    // Forged: a fresh body signed with another agent's secret.
    const other = await client.agents.create(agentWithTools(server.url) as Parameters<typeof client.agents.create>[0]);
    const freshId = crypto.randomUUID();
    const fresh = original.body.replace(deliveryId, freshId);
    const { signPayload } = await import("../../../packages/sdk/src/index");
    const byOther = await signPayload(fresh, String(other.toolSecret));
    expect(await refusedFor(await sent(fresh, { "x-service-signature": byOther, "x-service-delivery-id": freshId }))).toMatch(
      /No signature matches/,
    );
    // Forged: the captured request with another id in the (unsigned) header.
    expect(await refusedFor(await sent(original.body, { "x-service-delivery-id": freshId }))).toMatch(/X-Service-Delivery-Id/);

    // Replayed as captured, within the tolerance: the signature holds, the id is served already.
    expect((await sent(original.body)).status).toBe(409);
    // Replayed after the tolerance (the receiver's clock 5 minutes and a second on): refused on its timestamp.
    server.clockOffsetMs = 301_000;
    expect(await refusedFor(await sent(original.body))).toMatch(/beyond the 300 s tolerance/);
    // The same verifier passes a genuine request (the refusals above fail for their reason only).
    server.clockOffsetMs = 0;
    const bySelf = await signPayload(fresh, server.secret);
    expect((await sent(fresh, { "x-service-signature": bySelf, "x-service-delivery-id": freshId })).status).toBe(200);
  });
});
