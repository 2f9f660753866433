// `npm run dev` (dev/start.ts) as a user meets it: a fresh data folder, the first-run banner with
// a working API key, the admin CLI going through the running stack, a clean Ctrl-C, a second
// start on the same data that reuses it, and a worker whose workerd processes are killed being
// restarted (issue 29 item 7). Runs on the embedded defaults only (on a shared real PostgreSQL
// there would be no "first run").
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import "../../dev/connect";
import { processesUnder } from "../../dev/process-group";
import { freePort } from "../../dev/stack";
import { WORKER_VARIABLES } from "../../dev/worker-env";
import { stack } from "../support/harness";
import { ROOT, runAdminJson } from "../support/process";

const START_TIMEOUT = 90_000;
const STOP_TIMEOUT = 45_000;

/** The environment of a user with nothing set up: no DATABASE_URL, no REDIS_URL. */
function userEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, FORCE_COLOR: "0" };
  for (const name of ["DATABASE_URL", "REDIS_URL", ...WORKER_VARIABLES]) delete env[name];
  return { ...env, ...extra };
}

interface Dev {
  child: ChildProcess;
  output(): string;
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Ctrl-C in a terminal: SIGINT to the whole foreground process group. */
  interrupt(): void;
}

function startDev(env: NodeJS.ProcessEnv, args: string[] = []): Dev {
  // `node --import tsx` is what `npm run dev` runs (tsx), minus npm's wrapper, whose own
  // exit status after Ctrl-C is npm's (130), not ours.
  const child = spawn(process.execPath, ["--import", "tsx", "dev/start.ts", ...args], {
    cwd: ROOT,
    env,
    detached: true, // its own process group, as a terminal gives it
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (d) => {
    output += d;
  });
  child.stderr?.on("data", (d) => {
    output += d;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    output: () => output,
    exited,
    async waitFor(pattern, timeoutMs = START_TIMEOUT) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const match = pattern.exec(output);
        if (match) return match;
        if (child.exitCode !== null) throw new Error(`npm run dev exited (${child.exitCode}) before ${pattern}:\n${output}`);
        await new Promise((r) => setTimeout(r, 250));
      }
      throw new Error(`no ${pattern} within ${timeoutMs / 1000} s:\n${output}`);
    },
    interrupt() {
      if (child.pid && child.exitCode === null) process.kill(-child.pid, "SIGINT");
    },
  };
}

async function stopped(dev: Dev) {
  dev.interrupt();
  let timer: NodeJS.Timeout | undefined;
  const result = await Promise.race([
    dev.exited,
    new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`did not exit within ${STOP_TIMEOUT / 1000} s after SIGINT:\n${dev.output()}`)),
        STOP_TIMEOUT,
      );
    }),
  ]);
  clearTimeout(timer);
  return result;
}

async function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once("error", () => resolve(false));
    srv.listen(port, "127.0.0.1", () => srv.close(() => resolve(true)));
  });
}

/** Processes (wrangler, workerd) still serving this port, by their command lines (Linux /proc). */
function leftovers(port: number): string[] {
  if (process.platform !== "linux") return [];
  const found: string[] = [];
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ");
      if (cmd.includes(`--port ${port} `) || cmd.includes(`entry=127.0.0.1:${port} `)) found.push(`${pid}: ${cmd.slice(0, 120)}`);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** The workerd processes of a running `npm run dev` (Linux /proc): wrangler's proxy (on `port`) and the worker's runtime. */
async function workerdOf(dev: Dev, port: number): Promise<{ proxy: number[]; runtime: number[] }> {
  const under = (await processesUnder(dev.child.pid as number)) ?? [];
  const found = { proxy: [] as number[], runtime: [] as number[] };
  for (const p of under.filter((p) => p.command.endsWith("workerd"))) {
    const cmd = readFileSync(`/proc/${p.pid}/cmdline`, "utf8").split("\0").join(" ");
    (cmd.includes(`entry=127.0.0.1:${port} `) ? found.proxy : found.runtime).push(p.pid);
  }
  return found;
}

/** Waits until `pattern` has matched `count` times in the output. */
async function waitForCount(dev: Dev, pattern: RegExp, count: number, timeoutMs = START_TIMEOUT) {
  const deadline = Date.now() + timeoutMs;
  while ((dev.output().match(new RegExp(pattern.source, "g")) ?? []).length < count) {
    if (dev.child.exitCode !== null)
      throw new Error(`npm run dev exited (${dev.child.exitCode}) before ${pattern} ×${count}:\n${dev.output()}`);
    if (Date.now() > deadline) throw new Error(`no ${pattern} ×${count} within ${timeoutMs / 1000} s:\n${dev.output()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const API_KEY_LINE = /API key\s+(sk-live-[0-9A-Za-z]{40})/;
const READY_LINE = /Ready in [\d.]+ s: (http:\/\/127\.0\.0\.1:\d+)/;

// Each test starts its own `npm run dev` on its own port and data folder, so they run side by side:
// the watchdog test's half minute is mostly waiting for the dev server's checks (every 2 s), time the
// other starts use. Only the first and second starts share a data folder, and run in turn.
describe.runIf(stack().backend === "embedded").concurrent("npm run dev", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "dev-start-"));
  let port = 0;
  let firstKey = "";
  let endpoint = { id: "", secret: "" };
  const running: Dev[] = [];

  beforeAll(async () => {
    port = await freePort();
  });

  afterAll(async () => {
    for (const dev of running) if (dev.child.exitCode === null) await stopped(dev).catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  }, STOP_TIMEOUT * 2);

  // The second start reads what the first left in the data folder: the two run in turn.
  describe("on one data folder", () => {
    it.sequential("first start: creates the workspace, prints a working key, serves the admin CLI, and stops on Ctrl-C", async ({
      expect,
    }) => {
      const env = userEnv({ PORT: String(port), DATA_DIR: dataDir });
      const dev = startDev(env);
      running.push(dev);

      const [, apiKey] = await dev.waitFor(API_KEY_LINE);
      firstKey = apiKey as string;
      const [, baseUrl] = await dev.waitFor(READY_LINE);
      expect(baseUrl).toBe(`http://127.0.0.1:${port}`);
      const out = dev.output();
      expect(out).toMatch(/Postgres\s+embedded PGlite/);
      expect(out).toMatch(/Redis\s+in-memory/);
      expect(out).toMatch(new RegExp(`Port\\s+${port}`));
      expect(out).toMatch(/Email\s+admin@localhost/);
      expect(out).toMatch(/shown once/);
      expect(out).toContain(`curl -H "Authorization: Bearer ${firstKey}" ${baseUrl}/v1/me`);
      expect(out).toContain(`const client = new VoiceAgentPlatform({ apiKey: "${firstKey}", baseURL: "${baseUrl}" });`);
      expect(out).toContain("console.log(await client.me.retrieve());");

      const res = await fetch(`${baseUrl}/v1/me`, { headers: { authorization: `Bearer ${firstKey}` } });
      expect(res.status).toBe(200);
      const identity = (await res.json()) as { organizationId: string; user: { email: string } };
      expect(identity.user.email).toBe("admin@localhost");

      // The sign-in is saved for later (without the key), and is a real credential.
      const password = /Password\s+([0-9A-Za-z]+)/.exec(out)?.[1] as string;
      const saved = readFileSync(join(dataDir, "first-run.txt"), "utf8");
      expect(saved).toContain("admin@localhost");
      expect(saved).toContain(password);
      expect(saved).not.toContain(firstKey);
      const info = JSON.parse(readFileSync(join(dataDir, "stack.json"), "utf8"));
      expect(info).toMatchObject({ pid: dev.child.pid, baseUrl });
      // The printed sign-in works on the dashboard's real route.
      const signin = await fetch(`${baseUrl}/dashboard/api/sign-in`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: "admin@localhost", password }),
      });
      expect(signin.status).toBe(200);

      // Webhook signing secrets are sealed with a local key kept (owner-only) in the data folder.
      const created = await fetch(`${baseUrl}/v1/webhook-endpoints`, {
        method: "POST",
        headers: { authorization: `Bearer ${firstKey}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "local", useTestReceiver: true, channels: ["voice"] }),
      });
      expect(created.status).toBe(201);
      endpoint = (await created.json()) as typeof endpoint;
      const kek = join(dataDir, "secrets-kek.txt");
      expect(statSync(kek).mode & 0o777).toBe(0o600);
      expect(readFileSync(kek, "utf8")).toMatch(/^local:[A-Za-z0-9+/]{43}=$/m);
      expect(out).not.toContain(readFileSync(kek, "utf8").match(/^local:.*$/m)?.[0]);

      // The CLI, with the same DATA_DIR and no DATABASE_URL, goes through the running stack.
      const orgs = await runAdminJson<{ organizations: unknown[] }>(["orgs", "list"], env);
      expect(orgs.organizations).toEqual([
        expect.objectContaining({ id: identity.organizationId, name: "Local workspace", members: 1, activeKeys: 1 }),
      ]);

      expect(await stopped(dev)).toEqual({ code: 0, signal: null });
      expect(dev.output()).toMatch(/Stopped\./);
      expect(existsSync(join(dataDir, "stack.json"))).toBe(false);
      expect(await portIsFree(port)).toBe(true);
      expect(leftovers(port)).toEqual([]);
    }, 240_000);

    it.sequential("second start on the same data: no new key, the first key still works, the sign-in file is named", async ({ expect }) => {
      expect(firstKey).not.toBe(""); // needs the first test
      const dev = startDev(userEnv({ PORT: String(port), DATA_DIR: dataDir }));
      running.push(dev);

      const [, baseUrl] = await dev.waitFor(READY_LINE);
      const out = dev.output();
      expect(out).not.toMatch(/sk-live-/);
      expect(out).toMatch(/Using the existing data: 1 workspace/);
      expect(out).toContain(join(dataDir, "first-run.txt"));

      const res = await fetch(`${baseUrl}/v1/me`, { headers: { authorization: `Bearer ${firstKey}` } });
      expect(res.status).toBe(200);
      // The kept key still opens the secret sealed on the first start.
      const kept = await fetch(`${baseUrl}/v1/webhook-endpoints/${endpoint.id}`, { headers: { authorization: `Bearer ${firstKey}` } });
      expect(kept.status).toBe(200);
      expect(((await kept.json()) as { secret: string }).secret).toBe(`whs_...${endpoint.secret.slice(-6)}`);

      expect(await stopped(dev)).toEqual({ code: 0, signal: null });
      expect(await portIsFree(port)).toBe(true);
      expect(leftovers(port)).toEqual([]);
    }, 240_000);
  });

  it("passes the worker every configuration variable set in the environment, and never prints a secret", async ({ expect }) => {
    // A stand-in for ElevenLabs that records the key it is called with.
    const keys: string[] = [];
    const elevenLabs = createHttpServer((req, res) => {
      keys.push(String(req.headers["xi-api-key"]));
      req.resume();
      req.on("end", () => res.writeHead(200, { "content-type": "audio/pcm" }).end(Buffer.alloc(4800)));
    });
    await new Promise<void>((resolve) => elevenLabs.listen(0, "127.0.0.1", resolve));
    const secret = "sk_env_secret_0123456789abcdef0123456789abcdef";
    const empty = mkdtempSync(join(tmpdir(), "dev-start-vars-"));
    try {
      const dev = startDev(
        userEnv({
          PORT: String(await freePort()),
          DATA_DIR: empty,
          RATE_LIMIT_REQUESTS: "20",
          RATE_LIMIT_WINDOW: "10 s",
          SESSION_TTL_HOURS: "2",
          ELEVENLABS_BASE_URL: `http://127.0.0.1:${(elevenLabs.address() as { port: number }).port}`,
          ELEVENLABS_API_KEY: secret,
        }),
      );
      running.push(dev);
      const [, apiKey] = await dev.waitFor(API_KEY_LINE);
      const [, baseUrl] = await dev.waitFor(READY_LINE);
      const auth = { authorization: `Bearer ${apiKey}` };

      const me = await fetch(`${baseUrl}/v1/me`, { headers: auth });
      expect(me.status).toBe(200);
      expect(me.headers.get("ratelimit-policy")).toBe('"default";q=20;w=10');

      const password = /Password\s+([0-9A-Za-z]+)/.exec(dev.output())?.[1] as string;
      const signin = await fetch(`${baseUrl}/dashboard/api/sign-in`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: "admin@localhost", password }),
      });
      const { expiresAt } = (await signin.json()) as { expiresAt: string };
      expect(Date.parse(expiresAt) - Date.now()).toBeGreaterThan(2 * 3600_000 - 60_000);
      expect(Date.parse(expiresAt) - Date.now()).toBeLessThanOrEqual(2 * 3600_000);

      // The ElevenLabs variables replace the sandbox's: the worker calls this stand-in with the secret.
      const speech = await fetch(`${baseUrl}/v1/tts`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify({ voiceId: "00000000-0000-7000-8000-000000000011", text: "Hello.", format: "pcm" }),
      });
      expect(speech.status, await speech.clone().text()).toBe(200);
      expect(keys).toEqual([secret]);

      const out = dev.output();
      expect(out).toMatch(/RATE_LIMIT_REQUESTS\s*=\s*20/);
      expect(out).toMatch(/RATE_LIMIT_WINDOW\s*=\s*10 s/);
      expect(out).toMatch(/ELEVENLABS_API_KEY\s*=\s*\(set, hidden\)/);
      expect(out).not.toContain(secret);
      expect(out).not.toContain(secret.slice(-12));
      expect(await stopped(dev)).toEqual({ code: 0, signal: null });
    } finally {
      elevenLabs.close();
      rmSync(empty, { recursive: true, force: true });
    }
  }, 240_000);

  it("refuses a configuration variable the worker would refuse, naming it without its value", async ({ expect }) => {
    const empty = mkdtempSync(join(tmpdir(), "dev-start-bad-"));
    try {
      const dev = startDev(userEnv({ PORT: String(await freePort()), DATA_DIR: empty, RATE_LIMIT_WINDOW: "soon-ish" }));
      running.push(dev);
      expect(await dev.exited).toEqual({ code: 1, signal: null });
      expect(dev.output()).toMatch(/RATE_LIMIT_WINDOW/);
      expect(dev.output()).not.toContain("soon-ish");
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  }, 60_000);

  it.runIf(process.platform === "linux")(
    "restarts the worker when its workerd processes are killed, says so, and serves again on the same port",
    async ({ expect }) => {
      const empty = mkdtempSync(join(tmpdir(), "dev-start-killed-"));
      const devPort = await freePort();
      try {
        const dev = startDev(userEnv({ PORT: String(devPort), DATA_DIR: empty }));
        running.push(dev);
        const [, apiKey] = await dev.waitFor(API_KEY_LINE);
        const [, baseUrl] = await dev.waitFor(READY_LINE);
        const auth = { authorization: `Bearer ${apiKey}` };
        expect(dev.output()).toMatch(/Inspector off/);

        // The worker's runtime alone: the port still accepts connections, but nothing would answer.
        const first = await workerdOf(dev, devPort);
        expect(first.proxy).toHaveLength(1);
        expect(first.runtime).toHaveLength(1);
        for (const pid of first.runtime) process.kill(pid, "SIGKILL");
        await waitForCount(dev, /The worker stopped: [^\n]*workerd[^\n]*Restarting it/, 1);
        await waitForCount(dev, /The worker runs again \(restarted in [\d.]+ s\)/, 1);
        expect((await fetch(`${baseUrl}/health`)).status).toBe(200);
        expect((await fetch(`${baseUrl}/v1/me`, { headers: auth })).status).toBe(200);

        // Every workerd (the port refuses connections): restarted again.
        const second = await workerdOf(dev, devPort);
        expect(second.runtime).not.toEqual(first.runtime);
        for (const pid of [...second.proxy, ...second.runtime]) process.kill(pid, "SIGKILL");
        await waitForCount(dev, /The worker stopped: [^\n]*Restarting it/, 2);
        await waitForCount(dev, /The worker runs again/, 2);
        expect((await fetch(`${baseUrl}/v1/me`, { headers: auth })).status).toBe(200);

        expect(await stopped(dev)).toEqual({ code: 0, signal: null });
        expect(await portIsFree(devPort)).toBe(true);
        expect(leftovers(devPort)).toEqual([]);
      } finally {
        rmSync(empty, { recursive: true, force: true });
      }
    },
    240_000,
  );

  it("refuses an argument it does not know, with the usage", async ({ expect }) => {
    const dev = startDev(userEnv({ PORT: String(await freePort()) }), ["--inspekt"]);
    running.push(dev);
    expect(await dev.exited).toEqual({ code: 1, signal: null });
    expect(dev.output()).toMatch(/unknown argument --inspekt/);
    expect(dev.output()).toMatch(/--inspect\[=<port>\]/);
  }, 60_000);

  it("refuses a port in use, with what to do", async ({ expect }) => {
    const blocker = createServer();
    const busy = await freePort();
    await new Promise<void>((resolve) => blocker.listen(busy, "127.0.0.1", resolve));
    const empty = mkdtempSync(join(tmpdir(), "dev-start-busy-"));
    try {
      const dev = startDev(userEnv({ PORT: String(busy), DATA_DIR: empty }));
      running.push(dev);
      expect(await dev.exited).toEqual({ code: 1, signal: null });
      expect(dev.output()).toMatch(new RegExp(`Port ${busy} is already in use`));
      expect(dev.output()).toMatch(/PORT=\d+ npm run dev/);
    } finally {
      blocker.close();
      rmSync(empty, { recursive: true, force: true });
    }
  }, 60_000);
});
