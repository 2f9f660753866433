// A small server that speaks the Upstash Redis REST protocol, so the worker's
// @upstash/redis and @upstash/ratelimit clients run unchanged on a laptop and in CI.
// Protocol (as the client sends it): POST / with a JSON command array, POST /pipeline
// and POST /multi-exec with an array of them, `Authorization: Bearer <token>`, and
// `Upstash-Encoding: base64` asking for every string reply except "OK" in base64.
// Backed by a real Redis (REDIS_URL) or by ioredis-mock in memory.
import { createHash, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { Redis } from "ioredis";
import RedisMock from "ioredis-mock";

type Reply = string | number | null | Reply[];
type Command = string[];

interface Engine {
  run(cmd: Command): Promise<Reply>;
  transaction(cmds: Command[]): Promise<Array<{ result?: Reply; error?: string }>>;
  close(): Promise<void>;
}

function normalize(value: unknown): Reply {
  if (value === null || value === undefined) return null;
  if (typeof value === "number" || typeof value === "string") return value;
  if (Buffer.isBuffer(value)) return value.toString("utf8");
  if (Array.isArray(value)) return value.map(normalize);
  if (typeof value === "object") {
    // ioredis-mock answers HGETALL with an object; the wire format is a flat array.
    return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) => [k, normalize(v)]);
  }
  return String(value);
}

// Upstash scripts open with `#!lua flags=allow-key-locking`, a flag open-source Redis 7.0
// refuses and ioredis-mock's Lua cannot parse. The bridge drops that line before the engine
// sees the script, and remembers the client's SHA (of the original text) so EVALSHA still hits.
const sha1 = (s: string) => createHash("sha1").update(s).digest("hex");
const stripShebang = (src: string) => (src.startsWith("#!lua") ? src.replace(/^#!lua[^\n]*/, "") : src);

function redisEngine(url: string): Engine {
  const client = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 2 });
  client.on("error", () => {}); // errors reach the caller through the commands themselves
  const shas = new Map<string, string>(); // client's sha -> sha of the adapted script in Redis
  const adapt = async ([rawName, ...args]: Command): Promise<Command> => {
    const name = (rawName ?? "").toLowerCase();
    if (name === "eval" && args[0] !== undefined) {
      const adapted = stripShebang(args[0]);
      shas.set(sha1(args[0]), sha1(adapted));
      return ["EVAL", adapted, ...args.slice(1)];
    }
    if (name === "script" && args[0]?.toLowerCase() === "load" && args[1] !== undefined) {
      const adapted = stripShebang(args[1]);
      shas.set(sha1(args[1]), sha1(adapted));
      await client.call("SCRIPT", "LOAD", adapted);
      return ["__RETURN__", sha1(args[1])];
    }
    if (name === "evalsha" && args[0] !== undefined) {
      return ["EVALSHA", shas.get(args[0].toLowerCase()) ?? args[0], ...args.slice(1)];
    }
    return [rawName as string, ...args];
  };
  return {
    async run(cmd) {
      const [name, ...args] = await adapt(cmd);
      if (name === "__RETURN__") return args[0] ?? null;
      return normalize(await client.call(name as string, ...args));
    },
    async transaction(cmds) {
      const multi = client.multi();
      for (const cmd of cmds) {
        const [name, ...args] = await adapt(cmd);
        if (name === "__RETURN__") multi.call("ECHO", args[0] ?? "");
        else multi.call(name as string, ...args);
      }
      const out = (await multi.exec()) ?? [];
      return out.map(([err, res]) => (err ? { error: err.message } : { result: normalize(res) }));
    },
    async close() {
      client.disconnect();
    },
  };
}

// The in-memory engine: ioredis-mock runs Lua (EVAL) but has no script cache, and its
// Lua runtime does not understand the `#!lua flags=…` line real Redis 7 accepts.
function memoryEngine(): Engine {
  const mock = new RedisMock() as unknown as Record<string, (...a: string[]) => Promise<unknown>>;
  const scripts = new Map<string, string>();
  // One command at a time: this makes MULTI/EXEC and Lua atomic, as in Redis.
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const next = queue.then(fn, fn);
    queue = next.catch(() => undefined);
    return next;
  };
  const exec = async ([rawName, ...args]: Command): Promise<Reply> => {
    const name = (rawName ?? "").toLowerCase();
    if (name === "script" && args[0]?.toLowerCase() === "load" && args[1] !== undefined) {
      const sha = sha1(args[1]);
      scripts.set(sha, args[1]);
      return sha;
    }
    if (name === "script" && args[0]?.toLowerCase() === "exists") {
      return args.slice(1).map((sha) => (scripts.has(sha.toLowerCase()) ? 1 : 0));
    }
    if (name === "script" && args[0]?.toLowerCase() === "flush") {
      scripts.clear();
      return "OK";
    }
    if (name === "eval" && args[0] !== undefined) {
      scripts.set(sha1(args[0]), args[0]);
      return normalize(await mock.eval?.(stripShebang(args[0]), ...args.slice(1)));
    }
    if (name === "evalsha" && args[0] !== undefined) {
      const src = scripts.get(args[0].toLowerCase());
      if (!src) throw new Error("NOSCRIPT No matching script. Please use EVAL.");
      return normalize(await mock.eval?.(stripShebang(src), ...args.slice(1)));
    }
    const fn = mock[name];
    if (typeof fn !== "function") throw new Error(`ERR unknown command '${rawName}'`);
    return normalize(await fn.apply(mock, args));
  };
  return {
    run: (cmd) => serial(() => exec(cmd)),
    transaction: (cmds) =>
      serial(async () => {
        const out: Array<{ result?: Reply; error?: string }> = [];
        for (const cmd of cmds) {
          try {
            out.push({ result: await exec(cmd) });
          } catch (e) {
            out.push({ error: (e as Error).message });
          }
        }
        return out;
      }),
    async close() {},
  };
}

function encode(value: Reply): Reply {
  if (typeof value === "string") return value === "OK" ? value : Buffer.from(value, "utf8").toString("base64");
  if (Array.isArray(value)) return value.map(encode);
  return value;
}

async function readBody(req: IncomingMessage, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new Error("ERR request body too large");
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

const isCommand = (v: unknown): v is Command =>
  Array.isArray(v) && v.length > 0 && v.every((x) => ["string", "number", "boolean"].includes(typeof x));

export interface RedisBridge {
  url: string;
  token: string;
  backend: "memory" | "redis";
  stop(): Promise<void>;
}

export async function startRedisBridge(opts: { redisUrl?: string; token: string; port?: number }): Promise<RedisBridge> {
  const engine = opts.redisUrl ? redisEngine(opts.redisUrl) : memoryEngine();
  if (opts.redisUrl) {
    // Fail at start, with a clear message, not on the first request.
    try {
      await engine.run(["PING"]);
    } catch (err) {
      await engine.close();
      throw err;
    }
  }
  const expected = Buffer.from(`Bearer ${opts.token}`);

  const server: Server = createServer(async (req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    };
    const auth = Buffer.from(req.headers.authorization ?? "");
    if (auth.length !== expected.length || !timingSafeEqual(auth, expected)) return send(401, { error: "Unauthorized" });
    if (req.method !== "POST") return send(405, { error: "ERR only POST is supported by this bridge" });
    const base64 = String(req.headers["upstash-encoding"] ?? "").toLowerCase() === "base64";
    const out = (r: Reply) => (base64 ? encode(r) : r);
    let body: unknown;
    try {
      body = JSON.parse(await readBody(req, 10 * 1024 * 1024));
    } catch (e) {
      return send(400, { error: `ERR ${(e as Error).message}` });
    }
    const path = (req.url ?? "/").split("?")[0];
    const asStrings = (c: Command) => c.map(String);
    try {
      if (path === "/" || path === "") {
        if (!isCommand(body)) return send(400, { error: "ERR body must be a command array" });
        return send(200, { result: out(await engine.run(asStrings(body))) });
      }
      if (path === "/pipeline" || path === "/multi-exec") {
        if (!Array.isArray(body) || !body.every(isCommand)) return send(400, { error: "ERR body must be an array of commands" });
        const cmds = (body as Command[]).map(asStrings);
        if (path === "/multi-exec") {
          const results = await engine.transaction(cmds);
          return send(
            200,
            results.map((r) => (r.error ? { error: r.error } : { result: out(r.result ?? null) })),
          );
        }
        const results = [];
        for (const cmd of cmds) {
          try {
            results.push({ result: out(await engine.run(cmd)) });
          } catch (e) {
            results.push({ error: (e as Error).message });
          }
        }
        return send(200, results);
      }
      return send(404, { error: "ERR unknown path" });
    } catch (e) {
      return send(400, { error: (e as Error).message });
    }
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, "127.0.0.1", resolve));
  const addr = server.address();
  if (!addr || typeof addr === "string") throw new Error("redis bridge did not bind");
  return {
    url: `http://127.0.0.1:${addr.port}`,
    token: opts.token,
    backend: opts.redisUrl ? "redis" : "memory",
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await engine.close();
    },
  };
}
