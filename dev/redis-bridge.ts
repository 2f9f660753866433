// A small server that speaks the Upstash Redis REST protocol, so the worker's
// @upstash/redis and @upstash/ratelimit clients run unchanged on a laptop and in CI.
// Protocol (as the client sends it): POST / with a JSON command array, POST /pipeline
// and POST /multi-exec with an array of them, `Authorization: Bearer <token>`, and
// `Upstash-Encoding: base64` asking for every string reply except "OK" in base64.
// A pipeline answers one slot per command, `{result}` or that command's own `{error}`, as
// Upstash does (so @upstash/redis's auto-pipelining can settle each command on its own).
// Backed by a real Redis (REDIS_URL) or by ioredis-mock in memory.
//
// It must answer promptly under concurrency: @upstash/ratelimit gives up after its `timeout`
// (1 s in the worker) and the worker then fails open, so a slow bridge shows up as requests
// let through over the limit. Measured: 50 concurrent sliding-window `limit()` calls on one
// identifier, both engines, in test/dev/redis-bridge.test.ts.
import { createHash, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { createRequire } from "node:module";
import { type ChainableCommander, Redis } from "ioredis";
import RedisMock from "ioredis-mock";

type Reply = string | number | null | Reply[];
type Command = string[];
/** One command's outcome in a pipeline or transaction. */
type Slot = { result: Reply } | { error: string };

interface Engine {
  /** One command; throws its error. */
  run(cmd: Command): Promise<Reply>;
  /** Commands in one round trip, not atomic; each command's error in its own slot. */
  pipeline(cmds: Command[]): Promise<Slot[]>;
  /** MULTI/EXEC: atomic. */
  transaction(cmds: Command[]): Promise<Slot[]>;
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

/** Redis error replies start with a code (ERR, NOSCRIPT, WRONGTYPE…); JavaScript errors get ERR. */
const errorText = (e: unknown) => {
  const msg = e instanceof Error ? e.message : String(e);
  return /^[A-Z][A-Z_]+ /.test(msg) ? msg : `ERR ${msg}`;
};

// Upstash scripts open with `#!lua flags=allow-key-locking`, a flag open-source Redis 7.0
// refuses and ioredis-mock's Lua cannot parse. The bridge drops that line before the engine
// sees the script, and remembers the client's SHA (of the original text) so EVALSHA still hits.
const sha1 = (s: string) => createHash("sha1").update(s).digest("hex");
const stripShebang = (src: string) => (src.startsWith("#!lua") ? src.replace(/^#!lua[^\n]*/, "") : src);
const lower = (s: string | undefined) => (s ?? "").toLowerCase();
const isEval = (name: string) => name === "eval" || name === "eval_ro";
const isEvalsha = (name: string) => name === "evalsha" || name === "evalsha_ro";

// ---------------------------------------------------------------------------------------------
// Real Redis: a pipeline is one ioredis pipeline (one round trip), a transaction one MULTI/EXEC;
// scripts are atomic because Redis runs them so.

function redisEngine(url: string): Engine {
  const client = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 2 });
  client.on("error", () => {}); // errors reach the caller through the commands themselves
  const shas = new Map<string, string>(); // client's sha -> sha of the adapted script in Redis
  const remember = (original: string) => {
    const adapted = stripShebang(original);
    if (adapted !== original) shas.set(sha1(original), sha1(adapted));
    return adapted;
  };
  const mapSha = (sha: string) => shas.get(sha.toLowerCase()) ?? sha;
  /** The command Redis gets, and how its reply goes back to the client (SCRIPT LOAD answers the client's SHA). */
  const adapt = (cmd: Command): { name: string; args: string[]; reply?: (r: Reply) => Reply } => {
    const [rawName = "", ...args] = cmd;
    const name = lower(rawName);
    if (isEval(name) && args[0] !== undefined) return { name: rawName, args: [remember(args[0]), ...args.slice(1)] };
    if (isEvalsha(name) && args[0] !== undefined) return { name: rawName, args: [mapSha(args[0]), ...args.slice(1)] };
    if (name === "script" && lower(args[0]) === "load" && args[1] !== undefined) {
      const clientSha = sha1(args[1]);
      return { name: "SCRIPT", args: ["LOAD", remember(args[1])], reply: () => clientSha };
    }
    if (name === "script" && lower(args[0]) === "exists") return { name: "SCRIPT", args: ["EXISTS", ...args.slice(1).map(mapSha)] };
    return { name: rawName, args };
  };
  /** Queues every command on a pipeline or MULTI, then reads `[err, reply]` pairs into slots. */
  const batch = async (p: ChainableCommander, cmds: Command[]): Promise<Slot[]> => {
    const replies = cmds.map((cmd) => {
      const { name, args, reply } = adapt(cmd);
      p.call(name, ...args);
      return reply;
    });
    const out = (await p.exec()) ?? [];
    return out.map(([err, res], i): Slot => {
      if (err) return { error: err.message };
      const r = normalize(res);
      return { result: replies[i]?.(r) ?? r };
    });
  };
  return {
    async run(cmd) {
      const { name, args, reply } = adapt(cmd);
      const r = normalize(await client.call(name, ...args));
      return reply ? reply(r) : r;
    },
    pipeline: (cmds) => batch(client.pipeline(), cmds),
    // An error while queueing (EXECABORT) rejects the whole transaction, as Redis does.
    transaction: (cmds) => batch(client.multi(), cmds),
    async close() {
      client.disconnect();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// In memory: ioredis-mock keeps the data and runs the commands; the bridge runs Lua itself.
//
// Why not ioredis-mock's own EVAL: every call builds a new Lua VM (luaL_newstate + openlibs,
// ~1 ms), compiles its `redis` shim (~0.5 ms) and then the script (~1.2 ms for ratelimit's
// sliding window), about 3 ms a call on an idle machine and several times that on a busy one.
// Scripts must run one at a time, so 50 concurrent rate-limit checks queued for 150 ms to over
// a second, past @upstash/ratelimit's timeout. Here one Lua state (fengari, the Lua 5.3 in
// JavaScript that ioredis-mock uses too) lives as long as the engine, each script is compiled
// once per SHA, and a call only builds its KEYS/ARGV: about 0.1 ms for the same script.
//
// redis.call from Lua reaches ioredis-mock, whose commands answer with promises: the script
// runs as a coroutine that yields each command to the engine, which resumes it with the reply.
// Atomicity is the engine's queue: nothing else runs between a script's commands. (A
// consequence: redis.call inside a callback given to a library function, e.g. table.sort's
// comparator or string.gsub's replacement, fails with "attempt to yield across a JS-call
// boundary"; calls inside pcall, loops and the script's own functions work.)

interface LuaApi {
  LUA_OK: number;
  LUA_YIELD: number;
  LUA_REGISTRYINDEX: number;
  LUA_TNIL: number;
  LUA_TBOOLEAN: number;
  LUA_TNUMBER: number;
  LUA_TSTRING: number;
  LUA_TTABLE: number;
  lua_newthread(L: LuaState): LuaState;
  lua_resume(L: LuaState, from: LuaState, nargs: number): number;
  lua_close(L: LuaState): void;
  lua_pcall(L: LuaState, nargs: number, nresults: number, msgh: number): number;
  lua_gettop(L: LuaState): number;
  lua_checkstack(L: LuaState, n: number): boolean;
  lua_settop(L: LuaState, idx: number): void;
  lua_pop(L: LuaState, n: number): void;
  lua_type(L: LuaState, idx: number): number;
  lua_tonumber(L: LuaState, idx: number): number;
  lua_toboolean(L: LuaState, idx: number): boolean;
  lua_tolstring(L: LuaState, idx: number): Uint8Array | null;
  lua_pushboolean(L: LuaState, b: boolean): void;
  lua_pushinteger(L: LuaState, n: number): void;
  lua_pushnumber(L: LuaState, n: number): void;
  lua_pushstring(L: LuaState, s: Uint8Array): void;
  lua_createtable(L: LuaState, narr: number, nrec: number): void;
  lua_rawseti(L: LuaState, idx: number, n: number): void;
  lua_rawgeti(L: LuaState, idx: number, n: number): number;
  lua_setfield(L: LuaState, idx: number, k: Uint8Array): void;
  lua_getfield(L: LuaState, idx: number, k: Uint8Array): number;
  lua_setmetatable(L: LuaState, idx: number): void;
  lua_setupvalue(L: LuaState, funcidx: number, n: number): Uint8Array | null;
}
interface LauxApi {
  luaL_newstate(): LuaState;
  luaL_loadbufferx(L: LuaState, buf: Uint8Array, size: number | null, name: Uint8Array, mode: Uint8Array | null): number;
  luaL_ref(L: LuaState, t: number): number;
  luaL_unref(L: LuaState, t: number, ref: number): void;
}
type LuaState = { readonly __luaState: unique symbol };
const fengari = createRequire(import.meta.url)("fengari") as {
  lua: LuaApi;
  lauxlib: LauxApi;
  lualib: { luaL_openlibs(L: LuaState): void };
};
const { lua, lauxlib } = fengari;

const bytes = (s: string) => Buffer.from(s, "utf8");
const text = (b: Uint8Array | null) => (b ? Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("utf8") : "");

// The `redis` table scripts see. Every other global (KEYS, ARGV, the standard library) comes
// from a fresh table per call whose reads fall through to _G. As in Redis 7, creating a global
// or reading one that does not exist is an error (and no script leaves state for the next one).
const PRELUDE = `
local yield, error, tostring = coroutine.yield, error, tostring
redis = {
  call = function(...)
    local ok, reply = yield(...)
    if ok then return reply end
    error({err = reply}, 0)
  end,
  pcall = function(...)
    local ok, reply = yield(...)
    if ok then return reply end
    return {err = reply}
  end,
  error_reply = function(msg) return {err = msg} end,
  status_reply = function(msg) return {ok = msg} end,
  log = function() end,
  LOG_DEBUG = 0, LOG_VERBOSE = 1, LOG_NOTICE = 2, LOG_WARNING = 3,
}
local G = _G
return {
  __index = function(_, name)
    local v = G[name]
    if v == nil then error("Script attempted to access nonexistent global variable '" .. tostring(name) .. "'", 2) end
    return v
  end,
  __newindex = function() error("Attempt to modify a readonly table", 2) end,
}`;

const NOT_FROM_SCRIPTS = new Set(["eval", "eval_ro", "evalsha", "evalsha_ro", "script", "multi", "exec", "discard", "watch", "unwatch"]);

class LuaScripts {
  private readonly L: LuaState;
  private readonly envMeta: number; // registry ref of the per-call environment's metatable
  private readonly compiled = new Map<string, number>(); // client's sha -> registry ref of the compiled chunk

  constructor() {
    this.L = lauxlib.luaL_newstate();
    fengari.lualib.luaL_openlibs(this.L);
    const loaded = lauxlib.luaL_loadbufferx(this.L, bytes(PRELUDE), null, bytes("=bridge"), null) === lua.LUA_OK;
    if (!loaded || lua.lua_pcall(this.L, 0, 1, 0) !== lua.LUA_OK) {
      throw new Error(`redis bridge Lua prelude: ${text(lua.lua_tolstring(this.L, -1))}`);
    }
    this.envMeta = lauxlib.luaL_ref(this.L, lua.LUA_REGISTRYINDEX);
  }

  has(sha: string): boolean {
    return this.compiled.has(sha.toLowerCase());
  }

  /** SCRIPT LOAD / the first EVAL of a text: compiles it once; returns the client's SHA (of the text as sent). */
  load(src: string): string {
    const sha = sha1(src);
    if (this.compiled.has(sha)) return sha;
    const L = this.L;
    if (lauxlib.luaL_loadbufferx(L, bytes(stripShebang(src)), null, bytes("@user_script"), bytes("t")) !== lua.LUA_OK) {
      const msg = text(lua.lua_tolstring(L, -1));
      lua.lua_pop(L, 1);
      throw new Error(`ERR Error compiling script (new function): ${msg}`);
    }
    this.compiled.set(sha, lauxlib.luaL_ref(L, lua.LUA_REGISTRYINDEX));
    return sha;
  }

  flush(): void {
    for (const ref of this.compiled.values()) lauxlib.luaL_unref(this.L, lua.LUA_REGISTRYINDEX, ref);
    this.compiled.clear();
  }

  close(): void {
    this.compiled.clear();
    lua.lua_close(this.L);
  }

  /**
   * EVALSHA's arguments after the SHA. `call` runs one redis.call. The caller makes sure no other
   * command runs until this settles (the engine's queue): that is what makes the script atomic.
   */
  async run(sha: string, numkeys: string | undefined, rest: string[], call: (cmd: Command) => Promise<unknown>): Promise<Reply> {
    const ref = this.compiled.get(sha.toLowerCase());
    if (ref === undefined) throw new Error("NOSCRIPT No matching script. Please use EVAL.");
    if (!/^-?\d+$/.test(numkeys ?? "")) throw new Error("ERR value is not an integer or out of range");
    const n = Number(numkeys);
    if (n < 0) throw new Error("ERR Number of keys can't be negative");
    if (n > rest.length) throw new Error("ERR Number of keys can't be greater than number of args");

    const L = this.L;
    const co = lua.lua_newthread(L);
    const threadRef = lauxlib.luaL_ref(L, lua.LUA_REGISTRYINDEX); // keeps the coroutine alive, off L's stack
    try {
      lua.lua_rawgeti(co, lua.LUA_REGISTRYINDEX, ref);
      // The chunk's _ENV: { KEYS, ARGV } over _G. Safe to set on the shared chunk: scripts never overlap.
      lua.lua_createtable(co, 0, 2);
      this.pushArray(co, rest.slice(0, n));
      lua.lua_setfield(co, -2, bytes("KEYS"));
      this.pushArray(co, rest.slice(n));
      lua.lua_setfield(co, -2, bytes("ARGV"));
      lua.lua_rawgeti(co, lua.LUA_REGISTRYINDEX, this.envMeta);
      lua.lua_setmetatable(co, -2);
      lua.lua_setupvalue(co, -2, 1);

      let status = lua.lua_resume(co, L, 0);
      while (status === lua.LUA_YIELD) {
        const cmd: Command = [];
        let bad = lua.lua_gettop(co) === 0 ? "ERR Please specify at least one argument for this redis lib call" : "";
        for (let i = 1; i <= lua.lua_gettop(co) && !bad; i++) {
          const t = lua.lua_type(co, i);
          if (t === lua.LUA_TSTRING) cmd.push(text(lua.lua_tolstring(co, i)));
          else if (t === lua.LUA_TNUMBER)
            cmd.push(String(lua.lua_tonumber(co, i))); // 2000.0 goes as "2000", as Redis's Lua 5.1 sends it
          else bad = "ERR Lua redis lib command arguments must be strings or integers";
        }
        lua.lua_settop(co, 0);
        let reply: unknown;
        let error = bad;
        if (!error) {
          if (NOT_FROM_SCRIPTS.has(lower(cmd[0]))) error = "ERR This Redis command is not allowed from script";
          else {
            try {
              reply = await call(cmd);
            } catch (e) {
              error = errorText(e);
            }
          }
        }
        lua.lua_pushboolean(co, !error);
        if (error) lua.lua_pushstring(co, bytes(error));
        else this.push(co, reply);
        status = lua.lua_resume(co, L, 2);
      }
      lua.lua_checkstack(co, 8); // room to read the outcome (a finished coroutine has none to spare)
      if (status !== lua.LUA_OK) throw new Error(this.errorOf(co, sha));
      return lua.lua_gettop(co) === 0 ? null : this.toReply(co, 1);
    } finally {
      lauxlib.luaL_unref(L, lua.LUA_REGISTRYINDEX, threadRef);
    }
  }

  private pushArray(L: LuaState, items: string[]) {
    lua.lua_createtable(L, items.length, 0);
    items.forEach((s, i) => {
      lua.lua_pushstring(L, bytes(s));
      lua.lua_rawseti(L, -2, i + 1);
    });
  }

  /** A command's reply into Lua, as Redis converts it: nil bulk -> false, integers, strings, nested tables. */
  private push(L: LuaState, v: unknown): void {
    if (v === null || v === undefined) lua.lua_pushboolean(L, false);
    else if (typeof v === "number") {
      // fengari's integers are 32-bit; a wider one (a timestamp) goes as a float, exact below 2^53.
      if (Number.isInteger(v) && Math.abs(v) <= 0x7fffffff) lua.lua_pushinteger(L, v);
      else lua.lua_pushnumber(L, v);
    } else if (typeof v === "string") lua.lua_pushstring(L, bytes(v));
    else if (Buffer.isBuffer(v)) lua.lua_pushstring(L, v);
    else if (Array.isArray(v) || typeof v === "object") {
      const items = Array.isArray(v) ? v : Object.entries(v as Record<string, unknown>).flat(); // HGETALL: flat, as Redis
      if (!lua.lua_checkstack(L, 4)) throw new Error("ERR reached lua stack limit");
      lua.lua_createtable(L, items.length, 0);
      items.forEach((item, i) => {
        this.push(L, item);
        lua.lua_rawseti(L, -2, i + 1);
      });
    } else lua.lua_pushstring(L, bytes(String(v)));
  }

  /** The script's result, as Redis converts it: numbers truncate to integers, false -> nil, true -> 1, {ok=} and {err=}. */
  private toReply(L: LuaState, idx: number): Reply {
    switch (lua.lua_type(L, idx)) {
      case lua.LUA_TNUMBER:
        return Math.trunc(lua.lua_tonumber(L, idx));
      case lua.LUA_TSTRING:
        return text(lua.lua_tolstring(L, idx));
      case lua.LUA_TBOOLEAN:
        return lua.lua_toboolean(L, idx) ? 1 : null;
      case lua.LUA_TTABLE: {
        if (!lua.lua_checkstack(L, 4)) throw new Error("ERR reached lua stack limit");
        const top = lua.lua_gettop(L);
        try {
          if (lua.lua_getfield(L, idx, bytes("err")) === lua.LUA_TSTRING) throw new Error(errorText(text(lua.lua_tolstring(L, -1))));
          if (lua.lua_getfield(L, idx, bytes("ok")) === lua.LUA_TSTRING) return text(lua.lua_tolstring(L, -1));
          lua.lua_settop(L, top);
          const out: Reply[] = [];
          for (let i = 1; lua.lua_rawgeti(L, idx, i) !== lua.LUA_TNIL; i++) {
            out.push(this.toReply(L, lua.lua_gettop(L)));
            lua.lua_pop(L, 1);
          }
          return out;
        } finally {
          lua.lua_settop(L, top);
        }
      }
      default:
        return null;
    }
  }

  /** As Redis 7 words it: the error (redis.call's, error(redis.error_reply(…))'s, or Lua's), then the script. */
  private errorOf(L: LuaState, sha: string): string {
    if (lua.lua_type(L, -1) === lua.LUA_TTABLE && lua.lua_getfield(L, -1, bytes("err")) === lua.LUA_TSTRING) {
      return `${errorText(text(lua.lua_tolstring(L, -1)))} script: ${sha}`;
    }
    return `ERR ${text(lua.lua_tolstring(L, -1)) || "unknown error"} script: ${sha}`;
  }
}

// @upstash/redis sends option words in lower case (["set", k, v, "nx", "ex", 60]). Redis takes any
// case; ioredis-mock only upper case, and otherwise ignores them: SET … nx overwrote and SET … ex
// never expired. Option words go to it in upper case, only where they are options.
const words = (s: string) => new Set(s.split(" "));
const OPTIONS: Record<string, { from: number; words: Set<string>; leading?: boolean }> = {
  set: { from: 2, words: words("NX XX GET KEEPTTL EX PX EXAT PXAT") },
  zadd: { from: 1, words: words("NX XX GT LT CH INCR"), leading: true },
  zrange: { from: 3, words: words("BYSCORE BYLEX REV LIMIT WITHSCORES") },
  zrangebyscore: { from: 3, words: words("LIMIT WITHSCORES") },
  zrevrangebyscore: { from: 3, words: words("LIMIT WITHSCORES") },
  zrevrange: { from: 3, words: words("WITHSCORES") },
};
function upperOptions(name: string, args: string[]): string[] {
  const spec = OPTIONS[name];
  if (!spec) return args;
  const out = [...args];
  for (let i = spec.from; i < out.length; i++) {
    const upper = (out[i] as string).toUpperCase();
    if (spec.words.has(upper)) out[i] = upper;
    else if (spec.leading) break; // ZADD: the options come before the first score
  }
  return out;
}

let memoryEngines = 0;

function memoryEngine(): Engine {
  // Each engine its own data: ioredis-mock shares one store between instances of the same host:port.
  const mock = new RedisMock({ host: `bridge-${process.pid}-${++memoryEngines}` }) as unknown as Record<
    string,
    (...a: string[]) => Promise<unknown>
  > & { flushall(): Promise<unknown>; disconnect(): void };
  const lua = new LuaScripts();
  // ioredis-mock's own commands are own properties of the instance; its helpers and its Lua are not ours to call.
  const INTERNAL = new Set([
    "eval",
    "evalsha",
    "evaluate",
    "customcommand",
    "definecommand",
    "defineargv",
    "definekeys",
    "defineredisobject",
  ]);
  const command = async ([rawName, ...args]: Command): Promise<unknown> => {
    const name = lower(rawName);
    const fn = mock[name];
    if (INTERNAL.has(name) || !Object.hasOwn(mock, name) || typeof fn !== "function") throw new Error(`ERR unknown command '${rawName}'`);
    return fn.apply(mock, upperOptions(name, args));
  };
  const exec = async (cmd: Command): Promise<Reply> => {
    const [, ...args] = cmd;
    const name = lower(cmd[0]);
    if (name === "script") {
      const sub = lower(args[0]);
      if (sub === "load" && args[1] !== undefined) return lua.load(args[1]);
      if (sub === "exists") return args.slice(1).map((sha) => (lua.has(sha) ? 1 : 0));
      if (sub === "flush") {
        lua.flush();
        return "OK";
      }
      throw new Error(`ERR unknown subcommand or wrong number of arguments for '${args[0] ?? ""}'`);
    }
    if (isEval(name) && args[0] !== undefined) return lua.run(lua.load(args[0]), args[1], args.slice(2), command);
    if (isEvalsha(name) && args[0] !== undefined) return lua.run(args[0], args[1], args.slice(2), command);
    return normalize(await command(cmd));
  };
  const all = async (cmds: Command[]): Promise<Slot[]> => {
    const out: Slot[] = [];
    for (const cmd of cmds) {
      try {
        out.push({ result: await exec(cmd) });
      } catch (e) {
        out.push({ error: errorText(e) });
      }
    }
    return out;
  };
  // One request at a time, as Redis runs one command at a time: what makes a script and a
  // MULTI/EXEC atomic. Cheap now that scripts are: the queue holds no I/O, only microtasks.
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const next = queue.then(fn, fn);
    queue = next.catch(() => undefined);
    return next;
  };
  return {
    run: (cmd) =>
      serial(async () => {
        try {
          return await exec(cmd);
        } catch (e) {
          throw new Error(errorText(e));
        }
      }),
    // A pipeline is not atomic on Upstash, but one queue turn costs less than one per command.
    pipeline: (cmds) => serial(() => all(cmds)),
    transaction: (cmds) => serial(() => all(cmds)),
    async close() {
      await mock.flushall();
      mock.disconnect();
      lua.close();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The HTTP side.

function encode(value: Reply): Reply {
  if (typeof value === "string") return value === "OK" ? value : Buffer.from(value, "utf8").toString("base64");
  if (Array.isArray(value)) return value.map(encode);
  return value;
}

function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) reject(new Error("ERR request body too large"));
      else chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

const isCommand = (v: unknown): v is Command =>
  Array.isArray(v) && v.length > 0 && v.every((x) => ["string", "number", "boolean"].includes(typeof x));

export interface RedisBridge {
  url: string;
  token: string;
  backend: "memory" | "redis";
  stop(): Promise<void>;
}

interface BridgeOptions {
  redisUrl?: string;
  token: string;
  port?: number;
}

export async function startRedisBridge(opts: BridgeOptions): Promise<RedisBridge> {
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
        const slots = await (path === "/multi-exec" ? engine.transaction(cmds) : engine.pipeline(cmds));
        return send(
          200,
          slots.map((s) => ("error" in s ? { error: s.error } : { result: out(s.result) })),
        );
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
