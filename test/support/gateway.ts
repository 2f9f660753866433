// A gateway in front of the real worker, for the SDK's retry tests: each request is forwarded to
// the worker unchanged, unless the test's script says otherwise for that request number: answer
// something itself (a 503 with Retry-After, as a load balancer does while the worker restarts),
// cut the connection, or forward and then never pass the answer back (a response lost on the
// way, so the client times out after the worker did the work). What it passes on, and what it
// answers itself, is held to the OpenAPI document as the worker's own answers are.
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { holdToContract, isHeldToContract } from "./openapi";

export type GatewayAction =
  | { kind: "forward" }
  | { kind: "answer"; status: number; headers?: Record<string, string>; body?: string }
  | { kind: "drop" }
  | { kind: "forward-then-hold" };

export interface GatewayExchange {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  action: GatewayAction["kind"];
  /** The worker's answer, when the request was forwarded. */
  upstream?: { status: number; headers: Headers; body: string };
}

export interface Gateway {
  url: string;
  exchanges: GatewayExchange[];
  stop(): Promise<void>;
}

export async function startGateway(
  target: string,
  script: (n: number, req: { method: string; path: string }) => GatewayAction,
): Promise<Gateway> {
  const exchanges: GatewayExchange[] = [];
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const method = req.method ?? "GET";
    const path = req.url ?? "/";
    const action = script(exchanges.length + 1, { method, path });
    const exchange: GatewayExchange = { method, path, headers: req.headers, action: action.kind };
    exchanges.push(exchange);
    if (action.kind === "drop") {
      req.socket.destroy();
      return;
    }
    if (action.kind === "answer") {
      res.writeHead(action.status, { "content-type": "application/json", ...action.headers }).end(action.body ?? "");
      return;
    }
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) {
      if (v === undefined || ["host", "connection", "content-length", "transfer-encoding"].includes(k)) continue;
      headers.set(k, Array.isArray(v) ? v.join(", ") : v);
    }
    const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
    const upstream = await fetch(target + path, { method, headers, body, redirect: "manual" });
    const bytes = Buffer.from(await upstream.arrayBuffer());
    exchange.upstream = { status: upstream.status, headers: upstream.headers, body: bytes.toString("utf8") };
    if (action.kind === "forward-then-hold") return; // the answer never reaches the client
    const out: Record<string, string> = {};
    upstream.headers.forEach((v, k) => {
      if (!["content-encoding", "content-length", "transfer-encoding", "connection"].includes(k)) out[k] = v;
    });
    res.writeHead(upstream.status, out).end(bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const addr = server.address();
  if (!addr || typeof addr === "string") throw new Error("gateway did not bind");
  const url = `http://127.0.0.1:${addr.port}`;
  if (isHeldToContract(target)) holdToContract(url);
  return {
    url,
    exchanges,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
