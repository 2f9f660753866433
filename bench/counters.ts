// Counting forwarders for the routes part: put between a worker and the stack's servers, they
// count what each route costs at the wire, where nothing in the worker can hide it.
// - a TCP forwarder in front of the WebSocket proxy (Neon's WebSocket door): every Postgres
//   session the worker opens is one TCP connection carrying one WebSocket upgrade;
// - an HTTP forwarder in front of the SQL-over-HTTP endpoint (Neon's HTTP door), which also
//   counts the statements in each request (`{query}` or a batch's `{queries: […]}`);
// - an HTTP forwarder in front of the Upstash REST bridge, which also counts the commands in each
//   request (one for `POST /`, several for `/pipeline` and `/multi-exec`) by name.
// Bodies are small, so each request and response is read whole and passed on unchanged.
import { Agent, createServer as createHttpServer, request as httpRequest, type IncomingHttpHeaders, type Server } from "node:http";
import { connect, createServer as createTcpServer, type Socket } from "node:net";

export interface TcpCounts {
  /** TCP connections accepted. */
  connections: number;
  /** Of them, those whose first bytes were a WebSocket upgrade request. */
  upgrades: number;
  /** Open now, and the most open at once since the last reset. */
  open: number;
  peak: number;
}

export interface CountingTcp {
  /** host:port to give the worker instead of the target's. */
  address: string;
  counts(): TcpCounts;
  reset(): void;
  stop(): Promise<void>;
}

/** A byte-for-byte TCP forwarder to `target` (host:port) that counts connections and WebSocket upgrades. */
export async function startCountingTcp(target: string): Promise<CountingTcp> {
  const [host, port] = splitHostPort(target);
  const clients = new Set<Socket>();
  const upstreams = new Set<Socket>();
  let counts: TcpCounts = { connections: 0, upgrades: 0, open: 0, peak: 0 };
  const server = createTcpServer((client) => {
    counts.connections += 1;
    clients.add(client);
    counts.peak = Math.max(counts.peak, clients.size);
    client.setNoDelay(true);
    const upstream = connect(port, host);
    upstream.setNoDelay(true);
    upstreams.add(upstream);
    let first = true;
    client.on("data", (chunk: Buffer) => {
      if (first) {
        first = false;
        if (/^GET [^\r\n]* HTTP\/1\.1\r\n[\s\S]*upgrade:\s*websocket/i.test(chunk.subarray(0, 4096).toString("latin1")))
          counts.upgrades += 1;
      }
    });
    client.pipe(upstream);
    upstream.pipe(client);
    const close = () => {
      clients.delete(client);
      upstreams.delete(upstream);
      client.destroy();
      upstream.destroy();
    };
    client.on("close", close);
    upstream.on("close", close);
    client.on("error", close);
    upstream.on("error", close);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("counting TCP forwarder did not bind");
  return {
    address: `127.0.0.1:${address.port}`,
    counts: () => ({ ...counts, open: clients.size }),
    reset() {
      counts = { connections: 0, upgrades: 0, open: 0, peak: clients.size };
    },
    async stop() {
      for (const s of [...clients, ...upstreams]) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface HttpCounts {
  /** HTTP requests forwarded. */
  requests: number;
  /** Units of work inside them, as the inspector counts them (statements, commands), by name. */
  units: number;
  byName: Record<string, number>;
  /** Responses with a status outside 2xx. */
  non2xx: number;
  /** Milliseconds from forwarding a request to the target's whole answer, per forwarded request. */
  upstreamMs: number[];
  /** TCP connections the client opened to the forwarder (fewer than requests: it keeps them alive). */
  connections: number;
}

export interface CountingHttp {
  /** The URL to give the worker instead of the target's (same path). */
  url: string;
  counts(): HttpCounts;
  reset(): void;
  /** While set, every request is answered with this status and never reaches the target. */
  failWith(status: number | null): void;
  stop(): Promise<void>;
}

/** Names the units of work in one request body; [] when it cannot tell. */
export type Inspector = (path: string, body: Buffer) => string[];

const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "upgrade", "proxy-connection", "te", "trailer"]);
const endToEnd = (headers: IncomingHttpHeaders) => {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined && !HOP_BY_HOP.has(k)) out[k] = v;
  return out;
};

/** An HTTP forwarder to `target` (a URL; its path is kept) that counts requests and their units of work. */
export async function startCountingHttp(target: string, inspect: Inspector = () => []): Promise<CountingHttp> {
  const upstream = new URL(target);
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  let counts: HttpCounts = { requests: 0, units: 0, byName: {}, non2xx: 0, upstreamMs: [], connections: 0 };
  let failing: number | null = null;
  const server: Server = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      counts.requests += 1;
      for (const name of inspect(req.url ?? "/", body)) {
        counts.units += 1;
        counts.byName[name] = (counts.byName[name] ?? 0) + 1;
      }
      if (failing !== null) {
        counts.non2xx += 1;
        res.writeHead(failing, { "content-type": "application/json" }).end(JSON.stringify({ error: "failing on purpose (bench)" }));
        return;
      }
      const headers = { ...endToEnd(req.headers), host: upstream.host, "content-length": String(body.length) };
      const sent = performance.now();
      const mine = counts;
      const out = httpRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers, agent }, (up) => {
        const back: Buffer[] = [];
        up.on("data", (c: Buffer) => back.push(c));
        up.on("end", () => {
          mine.upstreamMs.push(performance.now() - sent);
          const status = up.statusCode ?? 502;
          if (status < 200 || status > 299) counts.non2xx += 1;
          const payload = Buffer.concat(back);
          res.writeHead(status, { ...endToEnd(up.headers), "content-length": String(payload.length) }).end(payload);
        });
        up.on("error", () => res.destroy());
      });
      out.on("error", () => {
        counts.non2xx += 1;
        if (!res.headersSent) res.writeHead(502).end();
        else res.destroy();
      });
      out.end(body);
    });
  });
  server.keepAliveTimeout = 30_000;
  server.on("connection", () => {
    counts.connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("counting HTTP forwarder did not bind");
  const path = `${upstream.pathname === "/" ? "" : upstream.pathname}${upstream.search}`;
  return {
    url: `http://127.0.0.1:${address.port}${path}`,
    counts: () => ({ ...counts, byName: { ...counts.byName }, upstreamMs: [...counts.upstreamMs] }),
    reset() {
      counts = { requests: 0, units: 0, byName: {}, non2xx: 0, upstreamMs: [], connections: 0 };
    },
    failWith(status) {
      failing = status;
    },
    async stop() {
      agent.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Upstash REST: `POST /` carries one command (`["EVALSHA", …]`), `/pipeline` and `/multi-exec` an array of them. */
export const upstashCommands: Inspector = (path, body) => {
  try {
    const parsed = JSON.parse(body.toString("utf8")) as unknown;
    if (!Array.isArray(parsed)) return [];
    const commands = /^\/(pipeline|multi-exec)\b/.test(path) ? (parsed as unknown[]) : [parsed];
    return commands.map((c) => (Array.isArray(c) ? String(c[0] ?? "?").toUpperCase() : "?"));
  } catch {
    return [];
  }
};

/** Neon's SQL over HTTP: `{query, params}` for one statement, `{queries: [{query, params}, …]}` for a batch. */
export const sqlStatements: Inspector = (_path, body) => {
  try {
    const parsed = JSON.parse(body.toString("utf8")) as { query?: string; queries?: Array<{ query?: string }> };
    const queries = parsed.queries ?? (parsed.query !== undefined ? [parsed] : []);
    return queries.map((q) => verb(String(q.query ?? "")));
  } catch {
    return [];
  }
};

/** The statement's first keyword, lower case ("select", "update", "with" …). */
const verb = (sql: string) => /^\s*\(?\s*([a-z]+)/i.exec(sql)?.[1]?.toLowerCase() ?? "?";

function splitHostPort(address: string): [string, number] {
  const i = address.lastIndexOf(":");
  if (i < 0) throw new Error(`expected host:port, got ${address}`);
  return [address.slice(0, i), Number(address.slice(i + 1))];
}

export interface StreamCounts {
  /** TCP connections opened to the target. */
  connections: number;
  /** HTTP requests (request lines), by path with the query and a `/latency/<profile>` prefix removed. */
  requests: Record<string, number>;
  /** WebSocket upgrades, by path (as above): one provider socket each. */
  sockets: Record<string, number>;
  /** WebSocket data frames client → target and target → client (control frames not counted), by path. */
  messagesOut: Record<string, number>;
  messagesIn: Record<string, number>;
  bytesOut: number;
  bytesIn: number;
}

/**
 * Reads a byte stream of WebSocket frames (RFC 6455 §5.2) and counts its data frames; payloads are
 * skipped, not copied. Fed the bytes after the upgrade, in the order they arrive.
 */
function frameCounter(onMessage: () => void): (chunk: Buffer) => void {
  let header = Buffer.alloc(0);
  let skip = 0;
  return (chunk) => {
    let at = 0;
    while (at < chunk.length) {
      if (skip > 0) {
        const n = Math.min(skip, chunk.length - at);
        skip -= n;
        at += n;
        continue;
      }
      header = Buffer.concat([header, chunk.subarray(at, at + 14)]);
      const taken = Math.min(14, chunk.length - at);
      if (header.length < 2) {
        at += taken;
        continue;
      }
      const b0 = header[0] as number;
      const b1 = header[1] as number;
      const masked = (b1 & 0x80) !== 0;
      let len = b1 & 0x7f;
      let size = 2;
      if (len === 126) size += 2;
      else if (len === 127) size += 8;
      if (masked) size += 4;
      if (header.length < size) {
        at += taken;
        continue;
      }
      if (len === 126) len = header.readUInt16BE(2);
      else if (len === 127) len = Number(header.readBigUInt64BE(2));
      const opcode = b0 & 0x0f;
      if (opcode === 1 || opcode === 2) onMessage();
      // Of the bytes just appended to the header, those past its end belong to the payload.
      const before = header.length - taken;
      at += size - before;
      header = Buffer.alloc(0);
      skip = len;
    }
  };
}

/**
 * A byte-for-byte TCP forwarder to `target` (host:port) that counts what an HTTP/1.1 client sends
 * through it: connections, requests by path, and for WebSocket upgrades the socket and its data
 * frames each way. For the provider sandbox: the worker's provider requests and sockets (Deepgram's
 * live stream, Cartesia's), counted without buffering a streamed answer.
 */
export async function startCountingStream(target: string): Promise<{
  address: string;
  counts(): StreamCounts;
  reset(): void;
  stop(): Promise<void>;
}> {
  const [host, port] = splitHostPort(target);
  const sockets = new Set<Socket>();
  const fresh = (): StreamCounts => ({
    connections: 0,
    requests: {},
    sockets: {},
    messagesOut: {},
    messagesIn: {},
    bytesOut: 0,
    bytesIn: 0,
  });
  let counts = fresh();
  const bump = (m: Record<string, number>, k: string) => {
    m[k] = (m[k] ?? 0) + 1;
  };
  const clean = (path: string) => path.split("?")[0]?.replace(/^\/latency\/[a-z]+/, "") || "/";
  const server = createTcpServer((client) => {
    counts.connections += 1;
    client.setNoDelay(true);
    const upstream = connect(port, host);
    upstream.setNoDelay(true);
    sockets.add(client);
    sockets.add(upstream);
    let upgraded: string | null = null;
    let out: ((c: Buffer) => void) | null = null;
    let inbound: ((c: Buffer) => void) | null = null;
    let responseHead = "";
    client.on("data", (chunk: Buffer) => {
      counts.bytesOut += chunk.length;
      if (out) return out(chunk);
      const text = chunk.toString("latin1");
      for (const m of text.matchAll(/(?:^|\r\n)(GET|POST|PUT|PATCH|DELETE|HEAD) (\S+) HTTP\/1\.1\r\n/g)) {
        const path = clean(m[2] as string);
        if (m[1] === "GET" && /\r\nupgrade:\s*websocket/i.test(text)) {
          upgraded = path;
          bump(counts.sockets, path);
          const name = path;
          out = frameCounter(() => bump(counts.messagesOut, name));
          // The client's first frames may follow the request in the same chunk.
          const end = text.indexOf("\r\n\r\n");
          if (end >= 0 && end + 4 < chunk.length) out(chunk.subarray(end + 4));
          break;
        }
        bump(counts.requests, path);
      }
    });
    upstream.on("data", (chunk: Buffer) => {
      counts.bytesIn += chunk.length;
      if (inbound) return inbound(chunk);
      if (upgraded === null) return;
      responseHead += chunk.toString("latin1");
      const end = responseHead.indexOf("\r\n\r\n");
      if (end < 0) return;
      const name = upgraded;
      inbound = frameCounter(() => bump(counts.messagesIn, name));
      const rest = Buffer.from(responseHead.slice(end + 4), "latin1");
      responseHead = "";
      if (rest.length > 0) inbound(rest);
    });
    client.pipe(upstream);
    upstream.pipe(client);
    const close = () => {
      sockets.delete(client);
      sockets.delete(upstream);
      client.destroy();
      upstream.destroy();
    };
    client.on("close", close);
    upstream.on("close", close);
    client.on("error", close);
    upstream.on("error", close);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("counting stream forwarder did not bind");
  const copy = (c: StreamCounts): StreamCounts => ({
    ...c,
    requests: { ...c.requests },
    sockets: { ...c.sockets },
    messagesOut: { ...c.messagesOut },
    messagesIn: { ...c.messagesIn },
  });
  return {
    address: `127.0.0.1:${address.port}`,
    counts: () => copy(counts),
    reset() {
      counts = fresh();
    },
    async stop() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
