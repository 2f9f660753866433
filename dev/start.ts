// `npm run dev`: the whole platform on this machine, offline, with no account anywhere.
// Postgres is embedded PGlite persisted under DATA_DIR (default .data/), or DATABASE_URL;
// Redis is the in-memory Upstash bridge, or REDIS_URL; the real worker runs under wrangler dev
// on PORT (default 8787), with every variable of its configuration (README's table) that is set
// here (dev/worker-env.ts), without wrangler's inspector unless `--inspect` is given. While it runs,
// <DATA_DIR>/stack.json tells the admin CLI how to reach the database through this process (PGlite
// allows one opener: only this process opens it). A worker whose processes die is restarted.
import { existsSync, readFileSync, renameSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { join, relative } from "node:path";
import { dataDir, readStackInfo, type StackInfo, stackFile } from "./connect";
import { ensureFirstRun, type FirstRun, writePrivate } from "./first-run";
import { processesUnder } from "./process-group";
import { localSecretsKek } from "./secrets-key";
import { freePort, type Stack, startStack } from "./stack";
import { shownValue, type WorkerEnvironment, workerEnvironment } from "./worker-env";

const DEFAULT_PORT = 8787;
const DEFAULT_INSPECTOR_PORT = 9229;
const STOP_TIMEOUT_MS = 30_000;
/** The worker is checked this often (its processes and its port). */
const CHECK_MS = 2000;
/** A worker that stops this many times within RESTART_WINDOW_MS is not restarted again. */
const MAX_RESTARTS = 3;
const RESTART_WINDOW_MS = 10 * 60_000;

/** A failure we understand, with the next step for the user. */
class StartError extends Error {
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
  }
}

/** The step under way, from startStack's progress lines ("Postgres: …", "Redis: …", "Worker: …"). */
let stage = "Config";

const out = (line = "") => process.stdout.write(`${line}\n`);
const progress = (line: string) => {
  stage = /^(\w+):/.exec(line)?.[1] ?? stage;
  out(`  › ${line}`);
};
/** A path as the user would type it: relative when it is under the current folder. */
const shown = (path: string) => {
  const rel = relative(process.cwd(), path);
  return rel && !rel.startsWith("..") ? rel : path;
};
/** A connection string without its password, for the terminal. */
const redact = (url: string) => {
  try {
    const u = new URL(url);
    if (u.password) u.password = "****";
    return u.toString();
  } catch {
    return "(unparsable URL)";
  }
};

const hostOf = (url: string) => {
  try {
    return new URL(url).host;
  } catch {
    return "(unparsable URL)";
  }
};

const parses = (url: string) => {
  try {
    new URL(url);
    return true;
  } catch {
    return false;
  }
};

interface Config {
  dataDir: string;
  port: number;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  allowPrivateWebhooks: boolean;
  provider: { baseUrl: string; apiKey: string } | undefined;
  /** The worker's variables set in this environment: each reaches the worker as it is. */
  worker: WorkerEnvironment;
  /** `--inspect[=port]`: wrangler's inspector (Chrome DevTools) on this port; otherwise none. */
  inspectorPort: number | undefined;
}

const USAGE = "npm run dev [-- --inspect[=<port>]]";

/** `--inspect` (port 9229, or a free one when it is taken) or `--inspect=<port>`; nothing else is taken. */
async function readInspectorPort(args: string[]): Promise<number | undefined> {
  let port: number | undefined;
  for (const arg of args) {
    const m = /^--inspect(?:=(.*))?$/.exec(arg);
    if (!m) throw new StartError(`unknown argument ${arg}.`, `Usage: ${USAGE}.`);
    if (m[1] === undefined) {
      port = (await isFree(DEFAULT_INSPECTOR_PORT)) ? DEFAULT_INSPECTOR_PORT : await freePort();
      continue;
    }
    port = Number(m[1]);
    if (!/^\d+$/.test(m[1]) || port < 1 || port > 65535) {
      throw new StartError(`--inspect=${m[1]} is not a port number.`, `Usage: ${USAGE}, e.g. --inspect=9230.`);
    }
    if (!(await isFree(port))) throw new StartError(`the inspector's port ${port} is already in use.`, "Pick another: --inspect=9230.");
  }
  return port;
}

const isFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const srv = createServer();
    srv.once("error", () => resolve(false));
    srv.listen(port, "127.0.0.1", () => srv.close(() => resolve(true)));
  });

async function readConfig(): Promise<Config> {
  const rawPort = process.env.PORT?.trim() || String(DEFAULT_PORT);
  const port = Number(rawPort);
  if (!/^\d+$/.test(rawPort) || port < 1 || port > 65535) {
    throw new StartError(`PORT=${rawPort} is not a port number.`, "Set PORT to a number from 1 to 65535, e.g. `PORT=8788 npm run dev`.");
  }
  const url = (name: string) => {
    const value = process.env[name]?.trim() || undefined;
    if (value && !parses(value)) {
      throw new StartError(
        `${name} is not a URL.`,
        `Fix ${name} (e.g. redis://127.0.0.1:6379 or postgres://user:pw@host:5432/db), or unset it.`,
      );
    }
    return value;
  };
  // DATABASE_URL is the stack's database (checked above); it reaches the worker through the stack.
  const worker = workerEnvironment(process.env, ["DATABASE_URL"]);
  if (worker.invalid.length) {
    throw new StartError(
      `the worker would refuse ${worker.invalid.map((v) => `${v.name} (${v.rule})`).join(", ")}.`,
      "Fix or unset it: README's configuration table says what each variable takes.",
    );
  }
  const privateWebhooks = worker.vars.WEBHOOKS_ALLOW_PRIVATE_URLS;
  return {
    dataDir: dataDir(),
    port,
    databaseUrl: url("DATABASE_URL"),
    redisUrl: url("REDIS_URL"),
    allowPrivateWebhooks: privateWebhooks === "1" || privateWebhooks === "true",
    worker,
    // A real OpenAI-compatible provider (OpenAI, Groq, Ollama…) instead of the sandbox.
    provider: process.env.OPENAI_API_KEY
      ? { baseUrl: url("OPENAI_BASE_URL") ?? "https://api.openai.com/v1", apiKey: process.env.OPENAI_API_KEY }
      : undefined,
    inspectorPort: await readInspectorPort(process.argv.slice(2)),
  };
}

/**
 * The providers the worker calls with a key of its own (`<prefix>_API_KEY`, at `<prefix>_BASE_URL`):
 * without one, the provider sandbox stands in, unless a real model provider is set (then they are off).
 */
const KEYED_PROVIDERS = [
  {
    label: "Voices",
    name: "ElevenLabs",
    prefix: "ELEVENLABS",
    baseUrl: "https://api.elevenlabs.io",
    absent: "ElevenLabs not configured: its voices list as available: false",
    sandbox: "ElevenLabs voices spoken by the provider sandbox (its text-to-speech API)",
  },
  {
    label: "Voices",
    name: "Cartesia",
    prefix: "CARTESIA",
    baseUrl: "https://api.cartesia.ai",
    absent: "Cartesia not configured: its voices list as available: false",
    sandbox: "Cartesia voices spoken by the provider sandbox (its bytes and WebSocket APIs)",
  },
  {
    label: "Live STT",
    name: "Deepgram",
    prefix: "DEEPGRAM",
    baseUrl: "https://api.deepgram.com",
    absent: "no streaming transcription",
    sandbox: "the provider sandbox's Deepgram live API (streaming transcription)",
  },
] as const;

function printEnvironment(cfg: Config) {
  out("Environment");
  out(`  Data      ${shown(cfg.dataDir)}  (DATA_DIR)`);
  out(
    cfg.databaseUrl
      ? `  Postgres  ${redact(cfg.databaseUrl)}  (DATABASE_URL)`
      : `  Postgres  embedded PGlite, data in ${shown(join(cfg.dataDir, "pglite"))}  (set DATABASE_URL for a real PostgreSQL)`,
  );
  out(
    cfg.redisUrl
      ? `  Redis     ${redact(cfg.redisUrl)} behind the Upstash REST bridge  (REDIS_URL)`
      : "  Redis     in-memory Upstash REST bridge  (set REDIS_URL for a real Redis)",
  );
  out(
    cfg.provider
      ? `  Models    ${new URL(cfg.provider.baseUrl).host}  (OPENAI_BASE_URL, OPENAI_API_KEY)`
      : "  Models    local provider sandbox: deterministic replies, eSpeak audio  (set OPENAI_API_KEY, OPENAI_BASE_URL for a real provider)",
  );
  for (const p of KEYED_PROVIDERS) {
    const vars = `${p.prefix}_BASE_URL, ${p.prefix}_API_KEY`;
    const line = cfg.worker.vars[`${p.prefix}_API_KEY`]
      ? `${p.name} at ${hostOf(cfg.worker.vars[`${p.prefix}_BASE_URL`] ?? p.baseUrl)}  (${vars})`
      : cfg.provider
        ? `${p.absent}  (set ${p.prefix}_API_KEY)`
        : `${p.sandbox}  (set ${p.prefix}_API_KEY for the real one)`;
    out(`  ${p.label.padEnd(8)}  ${line}`);
  }
  out(`  Port      ${cfg.port}  (PORT)`);
  out(
    cfg.inspectorPort
      ? `  Inspector on, 127.0.0.1:${cfg.inspectorPort}: Chrome DevTools at chrome://inspect (slows every subrequest by a few ms)`
      : "  Inspector off: requests run at full speed  (npm run dev -- --inspect for Chrome DevTools)",
  );
  Object.entries(cfg.worker.vars).forEach(([name, value], i) => {
    out(`  ${i === 0 ? "Worker   " : "         "} ${name} = ${shownValue(name, value)}${i === 0 ? "  (from this environment)" : ""}`);
  });
  if (cfg.worker.ignored.length) {
    out(
      `  Ignored   ${cfg.worker.ignored.join(", ")}: the local stack sets its own (use DATABASE_URL and REDIS_URL for real servers behind it)`,
    );
  }
  if (cfg.allowPrivateWebhooks) {
    out("  Webhooks  private/loopback receiver URLs ALLOWED (WEBHOOKS_ALLOW_PRIVATE_URLS=1); never set this in production");
  }
  out();
}

/** Another `npm run dev` on the same data folder would open PGlite twice: refuse. Clears a stale file. */
function checkNotRunning() {
  let info: StackInfo | null = null;
  try {
    info = readStackInfo();
  } catch {
    // unreadable: treated as stale below
  }
  if (info) {
    throw new StartError(
      `npm run dev is already running on this data folder (pid ${info.pid}, ${info.baseUrl}).`,
      `Use that one, or stop it first (Ctrl-C in its terminal, or \`kill -INT ${info.pid}\`), or set DATA_DIR to another folder.`,
    );
  }
  if (existsSync(stackFile())) rmSync(stackFile(), { force: true });
}

async function checkPortFree(port: number) {
  await new Promise<void>((resolve, reject) => {
    const srv = createServer();
    srv.once("error", (err: NodeJS.ErrnoException) => {
      reject(
        err.code === "EADDRINUSE"
          ? portInUse(port)
          : new StartError(
              `Cannot listen on 127.0.0.1:${port} (${err.code ?? err.message}).`,
              "Pick another port: `PORT=8788 npm run dev`.",
            ),
      );
    });
    srv.listen(port, "127.0.0.1", () => srv.close(() => resolve()));
  });
}

const portInUse = (port: number) =>
  new StartError(
    `Port ${port} is already in use.`,
    `Stop what listens there (\`lsof -i :${port}\` shows it), or pick another port: \`PORT=${port === 65535 ? 8788 : port + 1} npm run dev\`.`,
  );

function writeStackFile(stack: Stack) {
  const info: StackInfo = {
    pid: process.pid,
    baseUrl: stack.baseUrl,
    databaseUrl: stack.databaseUrl,
    wsProxy: stack.wsProxy,
    redis: { url: stack.redis.url, token: stack.redis.token },
  };
  const tmp = `${stackFile()}.${process.pid}.tmp`;
  writePrivate(tmp, `${JSON.stringify(info, null, 2)}\n`);
  renameSync(tmp, stackFile());
}

/** Removes stack.json if it is ours (synchronous: also runs from the `exit` event). */
function removeStackFile() {
  try {
    const info = JSON.parse(readFileSync(stackFile(), "utf8")) as Partial<StackInfo>;
    if (info.pid === process.pid) rmSync(stackFile(), { force: true });
  } catch {
    // absent or unreadable: nothing of ours to remove
  }
}

/** Prefixes each line of wrangler's output; keeps partial lines until they end. */
function workerOutput() {
  let pending = "";
  return (chunk: string) => {
    pending += chunk;
    const lines = pending.split(/\r?\n/);
    pending = lines.pop() ?? "";
    for (const line of lines) if (line.trim()) process.stdout.write(`  [worker] ${line}\n`);
  };
}

function printReady(cfg: Config, stack: Stack, first: FirstRun, seconds: string) {
  const url = stack.baseUrl;
  const rule = "─".repeat(72);
  out();
  out(rule);
  out(`  Ready in ${seconds} s: ${url}`);
  out(rule);
  out(`  API          ${url}/v1`);
  out(`  API docs     ${url}/docs`);
  out(`  Dashboard    ${url}/dashboard  (sign in with the email and password below)`);
  if (stack.telephony) out("  Phone calls  the telephony sandbox answers them (numbers: docs/sandbox.md; try +12025550100)");
  if (stack.telegram)
    out(`  Telegram     sandbox at ${stack.telegram.url}: make a bot, connect it at /v1/channels, write as a user (docs/sandbox.md)`);
  if (stack.whatsapp) out(`  WhatsApp     sandbox at ${stack.whatsapp.url}: make a number, connect it at /v1/channels (docs/messaging.md)`);
  if (first.created) {
    out();
    out('  First run: created the workspace "Local workspace" with an admin user and an API key.');
    out("  Dashboard sign-in");
    out(`    Email      ${first.email}`);
    out(`    Password   ${first.password}`);
    out(`  API key      ${first.apiKey}`);
    out("               (shown once: it is stored only as a hash; copy it now)");
    out("  Try it");
    out(`    curl -H "Authorization: Bearer ${first.apiKey}" ${url}/v1/me`);
    out('  or with the SDK (import { VoiceAgentPlatform } from "@voice-agent-platform/sdk"; packages/sdk/README.md)');
    out(`    const client = new VoiceAgentPlatform({ apiKey: "${first.apiKey}", baseURL: "${url}" });`);
    out("    console.log(await client.me.retrieve());");
    out();
    out(`  The sign-in (not the API key) is saved in ${shown(first.file)}.`);
  } else {
    out();
    out(`  Using the existing data: ${first.organizations} workspace${first.organizations === 1 ? "" : "s"} in the database.`);
    if (first.file) out(`  Dashboard sign-in details: ${shown(first.file)}`);
    out("  New API key: npm run admin -- keys create --org <orgId> --name <name>   (ids: npm run admin -- orgs list)");
  }
  out();
  out("  Admin CLI    npm run admin -- help   (works while this runs)");
  if (cfg.inspectorPort) out(`  Inspector    127.0.0.1:${cfg.inspectorPort}  (chrome://inspect, Configure…, add it)`);
  if (cfg.allowPrivateWebhooks) out("  Webhooks     private receiver URLs allowed (WEBHOOKS_ALLOW_PRIVATE_URLS=1)");
  out("  Stop         Ctrl-C");
  out(rule);
}

function explain(err: unknown, cfg: Config | undefined): { message: string; hint: string } {
  if (err instanceof StartError) return { message: err.message, hint: err.hint };
  // Drizzle wraps driver errors in "Failed query: …"; the cause says what went wrong.
  const root = err instanceof Error && err.cause instanceof Error ? err.cause : err;
  const message = root instanceof Error ? root.message : String(root);
  if (/EADDRINUSE|address already in use/i.test(message) && cfg) return { message, hint: portInUse(cfg.port).hint };
  switch (stage) {
    case "Postgres":
      return cfg?.databaseUrl
        ? {
            message: `Postgres at DATABASE_URL: ${message}`,
            hint: "Check that PostgreSQL runs and DATABASE_URL is right (user, password, database), or unset DATABASE_URL to use the embedded database.",
          }
        : {
            message: `embedded Postgres: ${message}`,
            hint: `If the data in ${cfg ? shown(join(cfg.dataDir, "pglite")) : ".data/pglite"} is damaged, move that folder aside (or set DATA_DIR to a new folder) and start again.`,
          };
    case "Redis":
      return {
        message: `Redis at REDIS_URL: ${message}`,
        hint: "Check that Redis runs and REDIS_URL is right, or unset REDIS_URL to use the in-memory bridge.",
      };
    case "Worker":
      return {
        message: `the worker (wrangler dev): ${message}`,
        hint: "wrangler's output is above. Check that `npx wrangler --version` works and wrangler.toml is valid, then retry (set PORT if the port is taken).",
      };
    case "Workspace":
      return {
        message: `creating the first-run workspace: ${message}`,
        hint: "Start again; if it fails the same way, check the database with `npm run admin -- orgs list` while `npm run dev` runs.",
      };
    default:
      return { message, hint: "Read the message above; `npm run dev` needs Node 20.3+ and an `npm install`." };
  }
}

let stack: Stack | undefined;
let starting: Promise<unknown> | undefined;
let stopping: Promise<void> | undefined;
let watchdog: NodeJS.Timeout | undefined;

/** workerd processes under a worker's launcher (the proxy's and the worker's runtime); undefined without `ps`. */
async function runtimesOf(pid: number | undefined): Promise<number | undefined> {
  if (pid === undefined) return undefined;
  const under = await processesUnder(pid);
  return under?.filter((p) => /(^|\/)workerd$/.test(p.command)).length;
}

/**
 * Watches the worker every CHECK_MS and restarts it when it stopped: wrangler's process exited
 * (e.g. wrangler.toml edited into an invalid state), one of its workerd processes is gone (killed,
 * crashed: then its port refuses connections, or, with only the worker's runtime gone, accepts
 * them and never answers, since wrangler's proxy holds GETs for a runtime that never comes back),
 * or nothing answers on its port. Says so, restarts it on the same port, and says when it answers
 * again; a restart that fails, or a fourth stop within 10 minutes, stops everything with the
 * reason (exit 1), never leaving a port that looks alive and serves nothing.
 */
async function watchWorker(current: Stack) {
  const restarts: number[] = [];
  let exited = false;
  let expected = 0;
  let fewer = 0;
  let refused = 0;
  const watch = async () => {
    const worker = current.worker();
    exited = false;
    void worker.exited.then(() => {
      if (current.worker() === worker) exited = true;
    });
    expected = (await runtimesOf(worker.pid)) ?? 0;
    fewer = 0;
    refused = 0;
  };

  /** Why the worker is down, or null while it runs. */
  const stoppedBecause = async (): Promise<string | null> => {
    if (exited) return "wrangler's dev server exited (its output is above)";
    const runtimes = await runtimesOf(current.worker().pid);
    if (runtimes !== undefined) {
      fewer = runtimes < expected ? fewer + 1 : 0; // twice in a row: a reload replaces its runtime in a moment
      if (fewer >= 2) return `${expected - runtimes} of its ${expected} workerd processes exited`;
    }
    try {
      await fetch(`${current.baseUrl}/health`, { signal: AbortSignal.timeout(5000) });
      refused = 0;
    } catch (err) {
      const code = (err as { cause?: { code?: string } }).cause?.code;
      refused = code === "ECONNREFUSED" ? refused + 1 : 0; // a slow answer is not a dead worker
    }
    return refused >= 3 ? `nothing answers on ${current.baseUrl}` : null;
  };

  const restart = async (why: string) => {
    const now = Date.now();
    while (restarts.length && now - (restarts[0] as number) > RESTART_WINDOW_MS) restarts.shift();
    if (restarts.length >= MAX_RESTARTS) {
      process.stderr.write(
        `\nThe worker stopped again (${why}), the ${MAX_RESTARTS + 1}th time in ${RESTART_WINDOW_MS / 60_000} minutes: not restarting it.\n` +
          "What to do: read wrangler's output above, fix what it reports, then run `npm run dev` again.\n",
      );
      void stopAll(1);
      return;
    }
    restarts.push(now);
    out();
    out(`The worker stopped: ${why}. Restarting it on ${current.baseUrl}…`);
    const began = Date.now();
    try {
      await current.restartWorker();
    } catch (err) {
      if (stopping) return;
      process.stderr.write(
        `\nCould not restart the worker: ${(err as Error).message}\n\n` +
          "What to do: fix what wrangler reports (often wrangler.toml), then run `npm run dev` again.\n",
      );
      void stopAll(1);
      return;
    }
    if (stopping) return;
    out(`The worker runs again (restarted in ${((Date.now() - began) / 1000).toFixed(1)} s): ${current.baseUrl} answers.`);
    await watch();
  };

  const check = async () => {
    if (stopping) return;
    const why = await stoppedBecause();
    if (stopping) return;
    if (why) await restart(why);
    if (!stopping) watchdog = setTimeout(check, CHECK_MS);
  };
  await watch();
  watchdog = setTimeout(check, CHECK_MS);
}

async function stopAll(code: number) {
  if (stopping) return stopping;
  clearTimeout(watchdog);
  stopping = (async () => {
    const timer = setTimeout(() => {
      process.stderr.write(`Could not stop cleanly within ${STOP_TIMEOUT_MS / 1000} s; exiting. Check \`ps\` for a leftover workerd.\n`);
      removeStackFile();
      process.exit(1);
    }, STOP_TIMEOUT_MS);
    await starting?.catch(() => undefined);
    removeStackFile();
    await stack?.stop();
    clearTimeout(timer);
    out("Stopped.");
    process.exit(code);
  })();
  return stopping;
}

function shutdown(signal: NodeJS.Signals) {
  if (stopping) {
    out(`  (${signal} again: still stopping, please wait)`);
    return;
  }
  out();
  out(`${signal}: stopping${stack ? "" : " (after the current start step)"}…`);
  void stopAll(0);
}

async function main() {
  process.on("SIGINT", () => shutdown("SIGINT"));
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  process.on("exit", removeStackFile);

  const began = Date.now();
  out("Starting the platform (npm run dev)");
  out();
  let cfg: Config | undefined;
  try {
    cfg = await readConfig();
    printEnvironment(cfg);
    checkNotRunning();
    await checkPortFree(cfg.port);

    out("Starting");
    const vars: Record<string, string> = { ...cfg.worker.vars };
    vars.SECRETS_KEK = cfg.worker.vars.SECRETS_KEK ?? localSecretsKek(cfg.dataDir);
    starting = startStack({
      dataDir: cfg.databaseUrl ? undefined : join(cfg.dataDir, "pglite"),
      databaseUrl: cfg.databaseUrl,
      redisUrl: cfg.redisUrl,
      provider: cfg.provider,
      port: cfg.port,
      vars,
      inspectorPort: cfg.inspectorPort,
      watch: true,
      log: progress,
      workerLog: workerOutput(),
    }).then((s) => {
      stack = s;
    });
    await starting;
    if (stopping || !stack) return;
    writeStackFile(stack);

    progress("Workspace: checking for a first run…");
    const first = await ensureFirstRun({
      databaseUrl: stack.databaseUrl,
      wsProxy: stack.wsProxy,
      dataDir: cfg.dataDir,
      baseUrl: stack.baseUrl,
    });
    if (stopping) return;
    printReady(cfg, stack, first, ((Date.now() - began) / 1000).toFixed(1));
    await watchWorker(stack);
  } catch (err) {
    if (stopping) return; // a stop during start: shutdown() finishes the job
    const { message, hint } = explain(err, cfg);
    process.stderr.write(`\nCould not start: ${message}\n\nWhat to do: ${hint}\n`);
    removeStackFile();
    await stack?.stop().catch(() => undefined);
    process.exit(1);
  }
}

await main();
