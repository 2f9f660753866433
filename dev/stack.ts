// The whole platform on one machine: Postgres (embedded PGlite, or DATABASE_URL), the
// stand-ins for Neon's two doors the Neon driver uses (the SQL-over-HTTP endpoint and the
// WebSocket proxy), the Upstash-REST bridge (memory, or REDIS_URL),
// migrations, the provider sandbox (OpenAI-compatible, ElevenLabs, Cartesia and Deepgram), the telephony sandbox and the
// Telegram and WhatsApp sandboxes (unless real ones are given), and the real worker under wrangler's dev
// server (workerd; dev/wrangler-dev.ts, without the inspector unless asked for). Used by `npm run dev`,
// the integration tests and the benchmarks, so all three run the same stack.
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runMigrations } from "./migrate";
import { type EmbeddedPostgres, startEmbeddedPostgres } from "./postgres";
import { processGroup } from "./process-group";
import { type RedisBridge, startRedisBridge } from "./redis-bridge";
import { startProviderSandbox } from "./sandbox/openai";
import { startTelegramSandbox, type TelegramSandbox } from "./sandbox/telegram";
import { startTelephonySandbox, type TelephonySandbox } from "./sandbox/telephony";
import { startWhatsAppSandbox, type WhatsAppSandbox } from "./sandbox/whatsapp";
import { newSecretsKek } from "./secrets-key";
import { type SqlHttp, startSqlHttp } from "./sql-http";
import { SPEC_VARIABLE, type WranglerDevSpec } from "./wrangler-dev";
import { startWsProxy, type WsProxy } from "./ws-proxy";
import "./connect"; // sets the Node WebSocket constructor for the Neon driver

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const LAUNCHER = fileURLToPath(new URL("./wrangler-dev.ts", import.meta.url));

export interface StackOptions {
  /** PGlite data folder; undefined keeps the embedded database in memory. Ignored with databaseUrl. */
  dataDir?: string;
  /** A real PostgreSQL instead of PGlite. */
  databaseUrl?: string;
  /** A real Redis behind the bridge instead of the in-memory engine. */
  redisUrl?: string;
  /** Worker port; 0 picks a free one. */
  port?: number;
  /**
   * The Models API's OpenAI-compatible provider. Omitted: the local provider sandbox is started
   * (dev/sandbox). Given: a real one (OpenAI, Groq, Ollama at http://localhost:11434/v1 …).
   */
  provider?: { baseUrl: string; apiKey: string };
  /**
   * Extra worker variables (e.g. a small RATE_LIMIT_REQUESTS in a test); they override the stack's.
   * With ELEVENLABS_API_KEY among them, ElevenLabs is that one (at ELEVENLABS_BASE_URL, or its
   * default), not the sandbox's, and likewise Cartesia with CARTESIA_API_KEY and Deepgram with DEEPGRAM_API_KEY; with
   * TWILIO_ACCOUNT_SID or TWILIO_AUTH_TOKEN, likewise Twilio and the telephony sandbox is not
   * started; with TELEGRAM_API_BASE_URL or WHATSAPP_API_BASE_URL, the worker talks to that
   * Telegram or Graph API and that sandbox is not started.
   */
  vars?: Record<string, string>;
  /** Progress lines ("Starting Postgres…"); silent when omitted. */
  log?: (line: string) => void;
  /** Where wrangler's own output goes; dropped when omitted. */
  workerLog?: (chunk: string) => void;
  /** wrangler's inspector (Chrome DevTools) at this port; omitted: no inspector (see dev/wrangler-dev.ts). */
  inspectorPort?: number;
  /** Rebuild and reload the worker when its sources, assets or config change (`npm run dev`); see WorkerOptions. */
  watch?: boolean;
}

export interface Stack {
  baseUrl: string;
  databaseUrl: string;
  wsProxy: string;
  /** The SQL-over-HTTP endpoint (`neonConfig.fetchEndpoint`), e.g. http://127.0.0.1:PORT/sql. */
  sqlHttp: string;
  /** Its counters: requests, queries, connections opened to Postgres (for the bench). */
  sqlHttpStats(): ReturnType<SqlHttp["stats"]>;
  redis: { url: string; token: string; backend: "memory" | "redis" };
  provider: { baseUrl: string; apiKey: string; sandbox: boolean };
  /** Where the worker's ElevenLabs voices are spoken: the provider sandbox, or the ElevenLabs the vars name; undefined: nowhere. */
  elevenLabs?: { baseUrl: string; sandbox: boolean };
  /** Where the worker's Cartesia voices are spoken: the provider sandbox, or the Cartesia the vars name; undefined: nowhere. */
  cartesia?: { baseUrl: string; sandbox: boolean };
  /** Where the worker's streaming transcription goes: the provider sandbox's Deepgram API, or the Deepgram the vars name; undefined: nowhere. */
  deepgram?: { baseUrl: string; sandbox: boolean };
  /** The Twilio stand-in the worker's phone calls go to; started with the provider sandbox (docs/sandbox.md). */
  telephony?: TelephonySandbox;
  /** The Telegram Bot API stand-in with scripted users (docs/sandbox.md); absent when TELEGRAM_API_BASE_URL names a real one. */
  telegram?: TelegramSandbox;
  /** The WhatsApp Cloud API stand-in with scripted users (docs/sandbox.md); absent when WHATSAPP_API_BASE_URL names a real one. */
  whatsapp?: WhatsAppSandbox;
  postgres: "pglite" | "postgresql";
  vars: Record<string, string>;
  /** The worker running now (a new one after restartWorker). */
  worker(): WorkerProcess;
  /** Stops the worker and starts it again on the same port, with the same variables and state. */
  restartWorker(): Promise<WorkerProcess>;
  stop(): Promise<void>;
}

/** A worker under wrangler's dev server (dev/wrangler-dev.ts), in a process group of its own. */
export interface WorkerProcess {
  baseUrl: string;
  /** The launcher's process id: wrangler runs in it, and the workerd processes under it. */
  pid: number | undefined;
  /** Resolves when the launcher exits (wrangler gone, by stop() or on its own). */
  exited: Promise<void>;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      srv.close(() => (addr && typeof addr === "object" ? resolve(addr.port) : reject(new Error("no port"))));
    });
  });
}

export async function startStack(opts: StackOptions = {}): Promise<Stack> {
  const log = opts.log ?? (() => {});
  const stops: Array<() => Promise<void>> = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    stops.length = 0;
  };
  try {
    let pg: EmbeddedPostgres | undefined;
    let databaseUrl: string;
    if (opts.databaseUrl) {
      databaseUrl = opts.databaseUrl;
      log(`Postgres: ${new URL(databaseUrl).host} (DATABASE_URL)`);
    } else {
      log(
        opts.dataDir ? `Postgres: starting embedded PGlite (data in ${opts.dataDir})…` : "Postgres: starting embedded PGlite (in memory)…",
      );
      pg = await startEmbeddedPostgres({ dataDir: opts.dataDir });
      stops.push(() => (pg as EmbeddedPostgres).stop());
      databaseUrl = pg.url;
    }
    const target = new URL(databaseUrl);
    const proxy: WsProxy = await startWsProxy({ host: target.hostname, port: Number(target.port || 5432) });
    stops.push(() => proxy.stop());
    const wsProxy = `127.0.0.1:${proxy.port}`;
    const sqlHttp: SqlHttp = await startSqlHttp({ host: target.hostname, port: Number(target.port || 5432) });
    stops.push(() => sqlHttp.stop());

    log("Postgres: applying migrations…");
    await runMigrations(databaseUrl, wsProxy);

    log(opts.redisUrl ? `Redis: bridge to ${new URL(opts.redisUrl).host} (REDIS_URL)` : "Redis: in-memory bridge");
    const bridge: RedisBridge = await startRedisBridge({ redisUrl: opts.redisUrl, token: randomBytes(24).toString("hex") });
    stops.push(() => bridge.stop());

    let provider = opts.provider ? { ...opts.provider, sandbox: false } : undefined;
    const given = (name: string) => Boolean(opts.vars?.[name]);
    let elevenLabs: { baseUrl: string; apiKey: string } | undefined;
    let cartesia: { baseUrl: string; apiKey: string } | undefined;
    let deepgram: { baseUrl: string; apiKey: string } | undefined;
    let telephony: TelephonySandbox | undefined;
    if (!provider) {
      log(
        "Models: starting the local provider sandbox (OpenAI-compatible, ElevenLabs' and Cartesia's text to speech, Deepgram's live transcription)…",
      );
      const sandbox = await startProviderSandbox();
      stops.push(() => sandbox.stop());
      provider = { baseUrl: sandbox.url, apiKey: sandbox.apiKey, sandbox: true };
      if (!given("ELEVENLABS_API_KEY")) elevenLabs = { baseUrl: sandbox.elevenLabs.url, apiKey: sandbox.elevenLabs.apiKey };
      if (!given("CARTESIA_API_KEY")) cartesia = { baseUrl: sandbox.cartesia.url, apiKey: sandbox.cartesia.apiKey };
      if (!given("DEEPGRAM_API_KEY")) deepgram = { baseUrl: sandbox.deepgram.url, apiKey: sandbox.deepgram.apiKey };
      if (!given("TWILIO_ACCOUNT_SID") && !given("TWILIO_AUTH_TOKEN")) {
        log("Phones: starting the local telephony sandbox (Twilio stand-in, scripted callee)…");
        const phones = await startTelephonySandbox({ provider: { url: sandbox.url, apiKey: sandbox.apiKey } });
        stops.push(() => phones.stop());
        telephony = phones;
      }
    } else {
      log(`Models: provider at ${new URL(provider.baseUrl).host}`);
    }
    // The users' voice notes are spoken by the provider, so its transcription gives their words back.
    const voice = { url: provider.baseUrl, apiKey: provider.apiKey };
    let telegram: TelegramSandbox | undefined;
    if (!given("TELEGRAM_API_BASE_URL")) {
      log("Messaging: starting the local Telegram sandbox (Bot API stand-in, scripted users)…");
      const sandbox = await startTelegramSandbox({ provider: voice });
      stops.push(() => sandbox.stop());
      telegram = sandbox;
    }
    let whatsapp: WhatsAppSandbox | undefined;
    if (!given("WHATSAPP_API_BASE_URL")) {
      log("Messaging: starting the local WhatsApp sandbox (Cloud API stand-in, scripted users)…");
      const sandbox = await startWhatsAppSandbox({ provider: voice });
      stops.push(() => sandbox.stop());
      whatsapp = sandbox;
    }

    const port = opts.port || (await freePort());
    const vars: Record<string, string> = {
      OPENAI_BASE_URL: provider.baseUrl,
      OPENAI_API_KEY: provider.apiKey,
      DATABASE_URL: databaseUrl,
      DATABASE_WS_PROXY: wsProxy,
      DATABASE_HTTP_ENDPOINT: sqlHttp.url,
      UPSTASH_REDIS_REST_URL: bridge.url,
      UPSTASH_REDIS_REST_TOKEN: bridge.token,
      ...(elevenLabs && { ELEVENLABS_BASE_URL: elevenLabs.baseUrl, ELEVENLABS_API_KEY: elevenLabs.apiKey }),
      ...(cartesia && { CARTESIA_BASE_URL: cartesia.baseUrl, CARTESIA_API_KEY: cartesia.apiKey }),
      ...(deepgram && { DEEPGRAM_BASE_URL: deepgram.baseUrl, DEEPGRAM_API_KEY: deepgram.apiKey }),
      ...(telephony && {
        TWILIO_ACCOUNT_SID: telephony.accountSid,
        TWILIO_AUTH_TOKEN: telephony.authToken,
        TWILIO_API_BASE_URL: telephony.url,
        TWILIO_FROM_NUMBERS: "+15005550006",
      }),
      ...(telegram && { TELEGRAM_API_BASE_URL: telegram.url }),
      ...(whatsapp && { WHATSAPP_API_BASE_URL: whatsapp.url }),
      // A key-encryption key for this run only; `npm run dev` passes its persisted one (dev/secrets-key.ts).
      SECRETS_KEK: newSecretsKek("run"),
      ...opts.vars,
    };
    log(`Worker: starting wrangler dev on port ${port}…`);
    // With a data folder (npm run dev), wrangler's local state (call sessions, recordings) lives beside it.
    const persistTo = opts.dataDir ? join(opts.dataDir, "wrangler") : undefined;
    const workerOptions: WorkerOptions = {
      port,
      workerLog: opts.workerLog,
      persistTo,
      inspectorPort: opts.inspectorPort,
      watch: opts.watch,
    };
    let worker = await startWorker(vars, workerOptions);
    let restarting: Promise<unknown> | undefined;
    // A stop during a restart ends the worker being started, not only the one it replaces.
    stops.push(async () => {
      await restarting?.catch(() => undefined);
      await worker.stop();
    });
    // Cloudflare runs the cron trigger (wrangler.toml: the call watchdog's sweep) every minute;
    // wrangler dev does not, so the stack does, through wrangler's /__scheduled test route.
    const cron = setInterval(() => {
      fetch(`http://127.0.0.1:${port}/__scheduled?cron=${encodeURIComponent("* * * * *")}`).catch(() => undefined);
    }, 60_000);
    cron.unref();
    stops.push(async () => clearInterval(cron));

    return {
      baseUrl: `http://127.0.0.1:${port}`,
      databaseUrl,
      wsProxy,
      sqlHttp: sqlHttp.url,
      sqlHttpStats: () => sqlHttp.stats(),
      redis: { url: bridge.url, token: bridge.token, backend: bridge.backend },
      provider,
      elevenLabs: elevenLabs
        ? { baseUrl: elevenLabs.baseUrl, sandbox: true }
        : vars.ELEVENLABS_API_KEY
          ? { baseUrl: vars.ELEVENLABS_BASE_URL ?? "https://api.elevenlabs.io", sandbox: false }
          : undefined,
      cartesia: cartesia
        ? { baseUrl: cartesia.baseUrl, sandbox: true }
        : vars.CARTESIA_API_KEY
          ? { baseUrl: vars.CARTESIA_BASE_URL ?? "https://api.cartesia.ai", sandbox: false }
          : undefined,
      deepgram: deepgram
        ? { baseUrl: deepgram.baseUrl, sandbox: true }
        : vars.DEEPGRAM_API_KEY
          ? { baseUrl: vars.DEEPGRAM_BASE_URL ?? "https://api.deepgram.com", sandbox: false }
          : undefined,
      telephony,
      telegram,
      whatsapp,
      postgres: pg ? "pglite" : "postgresql",
      vars,
      worker: () => worker,
      async restartWorker() {
        const started = (async () => {
          await worker.stop();
          worker = await startWorker(vars, workerOptions);
          return worker;
        })();
        restarting = started;
        return started;
      },
      stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

/**
 * Starts the worker under wrangler's dev server with these variables and waits until it answers.
 * Tests use it to run a second worker against a stack with other settings (a small rate limit).
 * A port picked free can be taken by another server of the machine before wrangler binds it (the
 * sandboxes and other stacks bind ports of their own meanwhile): wrangler then exits with "Address
 * already in use", and the worker is started again on other ports, up to three times, unless the
 * caller chose the port.
 */
export async function startWorker(vars: Record<string, string>, opts: WorkerOptions = {}): Promise<WorkerProcess> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startWorkerOnce(vars, opts);
    } catch (err) {
      if (opts.port || attempt >= 3 || !/Address already in use/.test((err as Error).message)) throw err;
    }
  }
}

interface WorkerOptions {
  port?: number;
  workerLog?: (chunk: string) => void;
  /** Another entry than wrangler.toml's `main` (the bench's strategy worker), and its name. */
  script?: string;
  name?: string;
  timeoutMs?: number;
  /**
   * Where wrangler keeps the local Durable Objects (call sessions and their watchdog alarms)
   * and R2 (call recordings). Omitted: a fresh temporary folder, removed on stop, so a test or
   * bench run never inherits another run's alarms or recordings.
   */
  persistTo?: string;
  /** wrangler's inspector at this port; omitted: none (dev/wrangler-dev.ts). */
  inspectorPort?: number;
  /**
   * Rebuild and reload on a change to the sources or wrangler.toml, as `wrangler dev` does: `npm
   * run dev` only. Off, the worker is bundled once (dev/wrangler-dev.ts buildOnce) and a test or
   * bench run keeps the code it started with: a reload swaps the runtime under requests in flight,
   * and wrangler's proxy answers a POST caught in it with a bare text/plain 503 ("Your worker
   * restarted mid-request"), which one integration run met.
   */
  watch?: boolean;
}

async function startWorkerOnce(vars: Record<string, string>, opts: WorkerOptions): Promise<WorkerProcess> {
  const port = opts.port || (await freePort());
  const workerLog = opts.workerLog;
  const temporaryState = opts.persistTo ? undefined : mkdtempSync(join(tmpdir(), "wrangler-state-"));
  const persistTo = opts.persistTo ?? (temporaryState as string);
  const spec: WranglerDevSpec = {
    port,
    vars,
    persistTo,
    logLevel: process.env.WORKER_LOG_LEVEL ?? "warn",
    inspectorPort: opts.inspectorPort,
    watch: opts.watch ?? false,
    script: opts.script,
    name: opts.name,
  };
  // The port in the arguments only so that `ps` shows which worker this is; the settings (and the
  // variables, secrets among them) go in the environment, which other users cannot read.
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", LAUNCHER, "--port", String(port)], {
    cwd: ROOT,
    env: {
      ...process.env,
      [SPEC_VARIABLE]: JSON.stringify(spec),
      WRANGLER_SEND_METRICS: "false",
      CLOUDFLARE_CF_FETCH_ENABLED: "false", // offline: no request to fetch the `Request.cf` sample
      FORCE_COLOR: "0",
    },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true, // its own process group, so stop() ends workerd too
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let output = "";
  const onData = (chunk: Buffer) => {
    const text = chunk.toString();
    output = (output + text).slice(-8000);
    workerLog?.(text);
  };
  child.stdout?.on("data", onData);
  child.stderr?.on("data", onData);

  const removeState = () => {
    if (temporaryState) rmSync(temporaryState, { recursive: true, force: true });
  };
  const stopGroup = processGroup(child);
  const stop = async () => {
    await stopGroup();
    removeState();
  };

  // Ready when /health answers: wrangler's own "Ready" line comes before workerd listens.
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      removeState();
      throw new Error(`wrangler dev exited (${child.exitCode}):\n${output}`);
    }
    try {
      const res = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(2_000) });
      if (res.ok) return { baseUrl: `http://127.0.0.1:${port}`, pid: child.pid, exited, stop };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  await stop();
  throw new Error(`wrangler dev did not become ready in ${timeoutMs / 1000} s:\n${output}`);
}
