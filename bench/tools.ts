// Tools benchmark (issue 17: "the platform's overhead per tool call (time from the LLM's tool call
// to the POST, and from the answer to the next LLM request) at p50/p95, against a bare fetch").
//
// A measured worker of the same build talks to the provider sandbox through a timing proxy, and
// its agent's tool lives on a local tool server; the proxy, the tool server and this process share
// one clock (performance.now()). Each run is a widget chat message that names the tool, so the
// sandbox answers with a tool call, the worker POSTs it (checked, signed), and asks the model
// again with the result. For each call, matched by the model's call id:
//   to POST  = the tool server got the request − the proxy finished sending the tool call;
//   to next  = the proxy got the next LLM request − the tool server finished its answer.
// The bare line is a plain fetch() from this process to the same tool server: request sent →
// received (to POST), answer sent → fetch() resolved with its body (to next). What the platform
// adds on top is the tool round itself: reading the model's answer, the argument check against
// the schema, the URL guard, the secret opened and the HMAC, and on the way back the result into
// the history and the next metered round's hold. Failures (a reply without the tool's answer, an
// unverified signature, a missing timestamp) are counted, and fail the run.
import { createHmac, randomUUID, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Stack } from "../dev/stack";
import { createDb } from "../src/db/client";
import { adjustCredits } from "../src/metering/meter";
import { percentile, round, table } from "./report";
import type { BenchWorkspace } from "./setup";
import { startBenchWorker } from "./worker-launch";

export interface ToolsBenchOptions {
  runs: number;
  log: (line: string) => void;
  workerLog?: (chunk: string) => void;
}

interface Spread {
  n: number;
  p50: number;
  p95: number;
}
export interface ToolsBenchResult {
  runs: number;
  toPost: Spread;
  toNext: Spread;
  bareToPost: Spread;
  bareToNext: Spread;
  failures: number;
  failuresWhy: string[];
}

const spread = (xs: number[]): Spread => ({ n: xs.length, p50: round(percentile(xs, 50), 2), p95: round(percentile(xs, 95), 2) });
const SITE = "https://bench.example.test";
const PERSONA = "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77";

async function body(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** Ends a response and resolves with the time its last byte was handed to the socket. */
const endAt = (res: ServerResponse, status: number, headers: Record<string, string>, data: string | Buffer) =>
  new Promise<number>((resolve) => {
    res.writeHead(status, headers);
    res.end(data, () => resolve(performance.now()));
  });

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const addr = server.address();
  if (!addr || typeof addr === "string") throw new Error("did not bind");
  return `http://127.0.0.1:${addr.port}`;
}

/** The docs' verifier (docs/webhooks.md), as the customer's server runs it. */
function verify(raw: string, header: string, secret: string): boolean {
  const parts = Object.fromEntries(header.split(",").map((kv) => kv.split("=", 2)));
  const t = Number(parts.t);
  if (!Number.isInteger(t) || !parts.v1 || Math.abs(Date.now() / 1000 - t) > 300) return false;
  const expected = createHmac("sha256", secret).update(`${t}.${raw}`).digest();
  const given = Buffer.from(parts.v1, "hex");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export async function runToolsBench(stack: Stack, ws: BenchWorkspace, opts: ToolsBenchOptions): Promise<ToolsBenchResult> {
  if (!stack.provider.sandbox)
    throw new Error("the tools bench needs the provider sandbox (its tool calls are deterministic); unset OPENAI_API_KEY");
  const upstream = stack.vars.OPENAI_BASE_URL as string;
  const toolCallSent = new Map<string, number>();
  const nextRequest = new Map<string, number>();
  const toolReceived = new Map<string, number>();
  const toolAnswered = new Map<string, number>();
  const failuresWhy: string[] = [];
  const state = { secret: "" };

  // The timing proxy in front of the provider sandbox.
  const proxy = createServer(async (req, res) => {
    const got = performance.now();
    const raw = await body(req);
    const text = raw.toString("utf8");
    if (req.url?.endsWith("/chat/completions")) {
      const sent = JSON.parse(text) as { messages?: Array<{ role: string; tool_call_id?: string }> };
      for (const m of sent.messages ?? [])
        if (m.role === "tool" && m.tool_call_id && !nextRequest.has(m.tool_call_id)) nextRequest.set(m.tool_call_id, got);
    }
    const up = await fetch(`${upstream.replace(/\/$/, "")}${req.url?.replace(/^\/v1/, "") ?? ""}`, {
      method: req.method,
      headers: {
        "content-type": String(req.headers["content-type"] ?? "application/json"),
        authorization: String(req.headers.authorization ?? ""),
      },
      body: req.method === "GET" ? undefined : raw,
    });
    const answer = Buffer.from(await up.arrayBuffer());
    const done = await endAt(res, up.status, { "content-type": up.headers.get("content-type") ?? "application/json" }, answer);
    try {
      const parsed = JSON.parse(answer.toString("utf8")) as { choices?: Array<{ message?: { tool_calls?: Array<{ id: string }> } }> };
      for (const c of parsed.choices?.[0]?.message?.tool_calls ?? []) toolCallSent.set(c.id, done);
    } catch {}
  });
  const proxyUrl = `${await listen(proxy)}/v1`;

  // The customer's tool server, and the bare fetch's target.
  const tools = createServer(async (req, res) => {
    const got = performance.now();
    const raw = (await body(req)).toString("utf8");
    if (req.url === "/bare") {
      const answeredAt = await endAt(
        res,
        200,
        { "content-type": "application/json", "x-got": String(got) },
        JSON.stringify({ status: "shipped" }),
      );
      bareAnswered.set(req.headers["x-run"] as string, answeredAt);
      bareReceived.set(req.headers["x-run"] as string, got);
      return;
    }
    const parsed = JSON.parse(raw) as { toolCall: { id: string } };
    toolReceived.set(parsed.toolCall.id, got);
    if (!verify(raw, String(req.headers["x-service-signature"] ?? ""), state.secret)) failuresWhy.push("a tool request did not verify");
    toolAnswered.set(
      parsed.toolCall.id,
      await endAt(res, 200, { "content-type": "application/json" }, JSON.stringify({ status: "shipped" })),
    );
  });
  const bareReceived = new Map<string, number>();
  const bareAnswered = new Map<string, number>();
  const toolsUrl = await listen(tools);

  const worker = await startBenchWorker(
    {
      ...stack.vars,
      OPENAI_BASE_URL: proxyUrl,
      WEBHOOKS_ALLOW_PRIVATE_URLS: "1",
      RATE_LIMIT_REQUESTS: "100000000",
      WIDGET_RATE_LIMIT_ADDRESS: "100000000",
      WIDGET_RATE_LIMIT_VISITOR: "100000000",
      WIDGET_RATE_LIMIT_WIDGET: "100000000",
    },
    { workerLog: opts.workerLog },
  );
  const { db, pool } = createDb(stack.databaseUrl, stack.wsProxy, 2);
  try {
    await adjustCredits(db, ws.organizationId, { addMicro: 1_000_000_000 });
    const api = async <T>(path: string, json: unknown): Promise<T> => {
      const res = await fetch(`${worker.baseUrl}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${ws.apiKey}`, "content-type": "application/json" },
        body: JSON.stringify(json),
      });
      if (!res.ok) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
      return (await res.json()) as T;
    };
    const agent = await api<{ id: string; toolSecret: string }>("/v1/agents", {
      name: "Tools bench",
      personaId: PERSONA,
      llmModel: "sandbox-chat",
      tools: [
        {
          type: "function",
          name: "lookup_order",
          description: "Looks up an order.",
          parameters: { type: "object", properties: { orderId: { type: "string" } }, required: ["orderId"] },
          url: `${toolsUrl}/order`,
        },
      ],
    });
    state.secret = agent.toolSecret;
    const widget = await api<{ token: string }>("/v1/widgets", { name: "bench", agentId: agent.id, allowedOrigins: [SITE] });
    // Each message differs, so each tool call's arguments, and so its id (the sandbox derives it from them), differ.
    let n = 0;
    const chat = async () => {
      const res = await fetch(`${worker.baseUrl}/widget/v1/chat?token=${widget.token}`, {
        method: "POST",
        headers: { origin: SITE, "content-type": "application/json" },
        body: JSON.stringify({ visitorId: `v_${randomUUID().replace(/-/g, "")}`, message: `Please lookup order ${++n}.` }),
      });
      const out = (await res.json()) as { reply?: { text?: string } };
      if (res.status !== 200 || !out.reply?.text?.includes('"status":"shipped"'))
        failuresWhy.push(`a chat answered ${res.status}: ${JSON.stringify(out).slice(0, 200)}`);
    };
    const warm = Math.min(5, opts.runs);
    opts.log(`tools: warming up (${warm} chats), then ${opts.runs} chats one after another, each with one tool call…`);
    for (let i = 0; i < warm; i++) await chat();
    toolCallSent.clear();
    nextRequest.clear();
    toolReceived.clear();
    toolAnswered.clear();
    for (let i = 0; i < opts.runs; i++) await chat();

    const toPost: number[] = [];
    const toNext: number[] = [];
    for (const [id, sent] of toolCallSent) {
      const got = toolReceived.get(id);
      const answered = toolAnswered.get(id);
      const next = nextRequest.get(id);
      if (got === undefined || answered === undefined || next === undefined) {
        failuresWhy.push(`tool call ${id}: a timestamp is missing`);
        continue;
      }
      toPost.push(got - sent);
      toNext.push(next - answered);
    }

    if (toPost.length !== opts.runs) failuresWhy.push(`${toPost.length} tool calls measured of ${opts.runs} chats`);

    // The bare fetch, the same number of times.
    const bareToPost: number[] = [];
    const bareToNext: number[] = [];
    for (let i = 0; i < warm + opts.runs; i++) {
      const run = String(i);
      const start = performance.now();
      const res = await fetch(`${toolsUrl}/bare`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-run": run },
        body: JSON.stringify({ orderId: "42" }),
      });
      await res.json();
      const end = performance.now();
      if (i < warm) continue;
      bareToPost.push((bareReceived.get(run) ?? Number.NaN) - start);
      bareToNext.push(end - (bareAnswered.get(run) ?? Number.NaN));
    }
    return {
      runs: opts.runs,
      toPost: spread(toPost),
      toNext: spread(toNext),
      bareToPost: spread(bareToPost),
      bareToNext: spread(bareToNext),
      failures: failuresWhy.length,
      failuresWhy: failuresWhy.slice(0, 5),
    };
  } finally {
    await pool.end().catch(() => undefined);
    await worker.stop().catch(() => undefined);
    proxy.closeAllConnections();
    tools.closeAllConnections();
    await new Promise<void>((r) => proxy.close(() => r()));
    await new Promise<void>((r) => tools.close(() => r()));
  }
}

export function toolsLines(r: ToolsBenchResult): string[] {
  const ratio = (a: number, b: number) => (b > 0 ? `${round(a / b, 1)}x` : "-");
  return [
    `Tools: the platform's overhead per tool call (${r.runs} widget chats, one tool call each, sandbox LLM; ms, p50 / p95):`,
    "",
    table(
      ["segment", "platform p50", "p95", "bare fetch p50", "p95", "ratio p50"],
      [
        [
          "LLM's tool call → POST at the tool server",
          r.toPost.p50,
          r.toPost.p95,
          r.bareToPost.p50,
          r.bareToPost.p95,
          ratio(r.toPost.p50, r.bareToPost.p50),
        ],
        [
          "tool's answer → next LLM request",
          r.toNext.p50,
          r.toNext.p95,
          r.bareToNext.p50,
          r.bareToNext.p95,
          ratio(r.toNext.p50, r.bareToNext.p50),
        ],
      ],
      new Set([1, 2, 3, 4, 5]),
    ),
    ...(r.failures > 0 ? ["", `Tools: ${r.failures} failures: ${r.failuresWhy.join("; ")}`] : []),
  ];
}
