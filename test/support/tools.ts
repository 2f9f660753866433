// A customer's tool server for the tests (docs/tools.md): it verifies every request exactly as a
// webhook receiver does, with the verification snippet of docs/webhooks.md (loaded from the doc
// itself), refuses a request id it has already served (a replay), and answers by path: `/order`
// JSON after `delayMs`, `/slow` never in time, `/boom` 500, `/text` not JSON, `/bloated` gzipped JSON
// that inflates past the platform's cap.
import { readFileSync, writeFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

type Verify = (raw: string, header: string, secret: string, tolerance?: number) => boolean;

let snippet: Promise<Verify> | null = null;
/** The verifier of docs/webhooks.md, as a customer copies it. */
export function docsVerifier(): Promise<Verify> {
  snippet ??= (async () => {
    const doc = readFileSync(new URL("../../docs/webhooks.md", import.meta.url), "utf8");
    const code = /```js\n([\s\S]*?verifyWebhook[\s\S]*?)```/.exec(doc)?.[1];
    if (!code) throw new Error("docs/webhooks.md lost its verification snippet");
    const file = join(tmpdir(), `verify-tools-${process.pid}-${Date.now()}.mjs`);
    writeFileSync(file, code);
    return (await import(file)).verifyWebhook as Verify;
  })();
  return snippet;
}

export interface ToolRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** Parsed body (null when it was not JSON). */
  json: Record<string, unknown> | null;
  /** The verifier's answer with the server's secret. */
  verified: boolean;
  receivedAt: number;
  answeredAt: number | null;
  status: number;
}

export interface ToolServer {
  url: string;
  requests: ToolRequest[];
  /** The secret the verifier uses: the agent's toolSecret, set once the agent exists. */
  secret: string;
  /** Replays a captured request (its exact headers and body) to the server. */
  replay(req: ToolRequest, change?: { body?: string; signature?: string; requestId?: string }): Promise<Response>;
  stop(): Promise<void>;
}

export async function startToolServer(opts: { delayMs?: number } = {}): Promise<ToolServer> {
  const verify = await docsVerifier();
  const requests: ToolRequest[] = [];
  const seen = new Set<string>();
  const state = { secret: "" };
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    const path = new URL(req.url ?? "/", "http://x").pathname;
    let parsed: Record<string, unknown> | null = null;
    try {
      parsed = JSON.parse(body);
    } catch {}
    const verified = verify(body, String(req.headers["x-service-signature"] ?? ""), state.secret);
    const entry: ToolRequest = {
      path,
      headers: req.headers,
      body,
      json: parsed,
      verified,
      receivedAt: Date.now(),
      answeredAt: null,
      status: 0,
    };
    requests.push(entry);
    const answer = (status: number, text: string, type = "application/json") => {
      entry.status = status;
      entry.answeredAt = Date.now();
      if (!res.destroyed) res.writeHead(status, { "content-type": type }).end(text);
    };
    // The customer's checks: a valid signature, and each request id served once.
    if (!verified) return answer(401, JSON.stringify({ error: "bad signature" }));
    const id = String(parsed?.id ?? "");
    if (!id || id !== req.headers["x-service-delivery-id"]) return answer(400, JSON.stringify({ error: "no request id" }));
    if (seen.has(id)) return answer(409, JSON.stringify({ error: "already served" }));
    seen.add(id);
    const args = ((parsed?.toolCall as { arguments?: unknown } | undefined)?.arguments ?? {}) as Record<string, unknown>;
    if (path === "/order") {
      await new Promise((r) => setTimeout(r, opts.delayMs ?? 0));
      return answer(200, JSON.stringify({ status: "shipped", carrier: "Parcelo", asked: args }));
    }
    if (path === "/stock") {
      await new Promise((r) => setTimeout(r, opts.delayMs ?? 0));
      return answer(200, JSON.stringify({ inStock: 7 }));
    }
    if (path === "/slow") {
      // Past the longest timeout a tool may have (30 s): a reply made before it did not wait for it.
      const late = setTimeout(() => answer(200, JSON.stringify({ late: true })), 40_000);
      res.once("close", () => clearTimeout(late)); // the platform gave up on it
      return;
    }
    if (path === "/boom") return answer(500, JSON.stringify({ error: "database down" }));
    if (path === "/text") return answer(200, "shipped, probably", "text/plain");
    if (path === "/bloated") {
      // 1 MB of JSON gzipped to about a kilobyte: a Content-Length far under the cap, an answer far over it.
      const gzipped = gzipSync(JSON.stringify({ pad: "x".repeat(1024 * 1024) }));
      entry.status = 200;
      entry.answeredAt = Date.now();
      const headers = { "content-type": "application/json", "content-encoding": "gzip", "content-length": String(gzipped.length) };
      res.writeHead(200, headers).end(gzipped);
      return;
    }
    return answer(404, "{}");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const addr = server.address();
  if (!addr || typeof addr === "string") throw new Error("tool server did not bind");
  const url = `http://127.0.0.1:${addr.port}`;
  return {
    url,
    requests,
    get secret() {
      return state.secret;
    },
    set secret(value: string) {
      state.secret = value;
    },
    replay: (r, change = {}) =>
      fetch(`${url}${r.path}`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-service-delivery-id": change.requestId ?? String(r.headers["x-service-delivery-id"]),
          "x-service-signature": change.signature ?? String(r.headers["x-service-signature"]),
        },
        body: change.body ?? r.body,
      }),
    stop: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const PERSONA = "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77";

/** An agent body with the tools of the tool server at `base`. */
export const agentWithTools = (base: string, extra: Record<string, unknown> = {}) => ({
  name: "Order desk",
  personaId: PERSONA,
  tools: [
    {
      type: "function",
      name: "lookup_order",
      description: "Looks up an order by its number.",
      parameters: { type: "object", properties: { orderId: { type: "string" } }, required: ["orderId"] },
      url: `${base}/order`,
      messages: { requestStart: "One moment, let me check.", requestFailed: "Sorry, the order system is not answering." },
    },
    {
      type: "function",
      name: "check_stock",
      description: "How many are in stock.",
      url: `${base}/stock`,
    },
    { type: "function", name: "slow_tool", description: "Never answers in time.", url: `${base}/slow`, timeoutSeconds: 1 },
    { type: "function", name: "broken_tool", description: "Fails.", url: `${base}/boom` },
    { type: "function", name: "chatty_tool", description: "Answers text.", url: `${base}/text` },
    { type: "function", name: "bloated_tool", description: "Answers more than a tool may.", url: `${base}/bloated` },
    {
      type: "function",
      name: "pin_check",
      description: "Checks a six-digit pin.",
      parameters: { type: "object", properties: { pin: { type: "string", pattern: "^[0-9]{6}$" } }, required: ["pin"] },
      url: `${base}/order`,
    },
    { type: "end_call", messages: { requestStart: "Thanks for chatting, goodbye!" } },
    { type: "transfer_call", destinations: [{ number: "+14155550100" }] },
  ],
  ...extra,
});
