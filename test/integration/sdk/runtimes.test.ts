// The SDK as a user installs it: built with its own build (tsc, packages/sdk/tsconfig.build.json)
// into a package folder of a fresh project, imported by its name through its `exports`, and run
// against the real worker from Node and from workerd (a tiny worker under wrangler, without
// nodejs_compat: a Node built-in in the client would not even bundle there).
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../../dev/stack";
import { baseUrl, createWorkspace, type Workspace } from "../../support/harness";
import { PERSONA } from "../../support/sdk";

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const SDK = join(ROOT, "packages/sdk");

let project: string;
let ws: Workspace;

/** The program both runtimes run: one of each kind of SDK call, its findings as JSON. */
const PROGRAM = `
import { VoiceAgentPlatform, NotFoundError, APIError, signPayload } from "@voice-agent-platform/sdk";
import { constructEvent } from "@voice-agent-platform/sdk/webhooks";
import { constructToolRequest, toolResponse } from "@voice-agent-platform/sdk/tools";

export async function exercise(apiKey, baseURL, runtime) {
  const client = new VoiceAgentPlatform({ apiKey, baseURL });
  const me = await client.me.retrieve();
  await client.agents.create({ name: "From " + runtime + " 1", personaId: "${PERSONA}" });
  await client.agents.create({ name: "From " + runtime + " 2", personaId: "${PERSONA}" });
  const names = [];
  for await (const agent of client.agents.list({ limit: 1, name: "From " + runtime })) names.push(agent.name);
  let notFound = null;
  try {
    await client.agents.retrieve("0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77");
  } catch (err) {
    notFound = { notFound: err instanceof NotFoundError, api: err instanceof APIError, status: err.status, code: err.code };
  }
  const wav = await client.tts.create({ text: "Hello from " + runtime, voiceId: "00000000-0000-7000-8000-000000000001" });
  const body = JSON.stringify({ deliveryId: "d1", event: "call.started", channel: "voice", timestamp: new Date().toISOString(), call: null });
  const header = await signPayload(body, "whs_test_secret");
  const event = await constructEvent(body, header, "whs_test_secret");
  let tampered = null;
  try {
    await constructEvent(body.replace("d1", "d2"), header, "whs_test_secret");
  } catch (err) {
    tampered = err.name;
  }
  const toolBody = JSON.stringify({ id: "r1", event: "tool.call", timestamp: new Date().toISOString(), toolCall: { id: "c1", name: "lookup", arguments: { n: 1 } }, chat: null, call: { id: "k1" }, agent: { id: "a1", name: "A" }, metadata: {} });
  const toolRequest = await constructToolRequest(toolBody, await signPayload(toolBody, "tss_test_secret"), "tss_test_secret");
  const answer = toolResponse({ n: toolRequest.toolCall.arguments.n + 1 });
  const tool = { name: toolRequest.toolCall.name, status: answer.status, type: answer.headers.get("content-type"), body: await answer.text() };
  return { organizationId: me.organizationId, names, notFound, wavHeader: String.fromCharCode(...wav.slice(0, 4)), event: event.event, tampered, tool };
}
`;

beforeAll(async () => {
  project = mkdtempSync(join(tmpdir(), "sdk-user-"));
  const pkg = join(project, "node_modules/@voice-agent-platform/sdk");
  mkdirSync(pkg, { recursive: true });
  cpSync(join(SDK, "package.json"), join(pkg, "package.json"));
  await run(
    process.execPath,
    [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", join(SDK, "tsconfig.build.json"), "--outDir", join(pkg, "dist")],
    {
      cwd: ROOT,
    },
  );
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "sdk-user", private: true, type: "module" }));
  writeFileSync(join(project, "program.js"), PROGRAM);
  ws = await createWorkspace();
}, 120_000);

afterAll(() => {
  if (project) rmSync(project, { recursive: true, force: true });
});

function expectWorked(result: Record<string, unknown>, runtime: string) {
  expect(result).toEqual({
    organizationId: ws.organizationId,
    names: [`From ${runtime} 2`, `From ${runtime} 1`],
    notFound: { notFound: true, api: true, status: 404, code: "not_found" },
    wavHeader: "RIFF",
    event: "call.started",
    tampered: "WebhookVerificationError",
    tool: { name: "lookup", status: 200, type: "application/json", body: '{"n":2}' },
  });
}

describe("the built SDK", () => {
  it("ships ESM with type declarations, and nothing of Node in its code", () => {
    const dist = join(project, "node_modules/@voice-agent-platform/sdk/dist");
    for (const file of ["index.js", "index.d.ts", "webhooks.js", "webhooks.d.ts", "tools.js", "tools.d.ts"])
      expect(readFileSync(join(dist, file), "utf8").length).toBeGreaterThan(0);
    const files = readdirSync(dist, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".js"));
    expect(files.length).toBeGreaterThan(10);
    for (const file of files) {
      const code = readFileSync(join(dist, file), "utf8");
      // Only its own modules: no package, no Node built-in; and no Node global.
      const specifiers = [...code.matchAll(/(?:from|import)\s*\(?\s*["']([^"']+)["']/g)].map((m) => m[1]);
      expect(
        specifiers.filter((s) => !s?.startsWith("./") && !s?.startsWith("../")),
        file,
      ).toEqual([]);
      expect(code, file).not.toMatch(/\brequire\(|\bprocess\.(env|versions|nextTick)|\bBuffer\.(from|alloc|concat|isBuffer)/);
    }
  });

  it("runs in Node", async () => {
    writeFileSync(
      join(project, "node.js"),
      `import { exercise } from "./program.js";\nconsole.log(JSON.stringify(await exercise(process.env.API_KEY, process.env.BASE_URL, "Node")));\n`,
    );
    const { stdout } = await run(process.execPath, ["node.js"], {
      cwd: project,
      env: { ...process.env, API_KEY: ws.apiKey, BASE_URL: baseUrl() },
    });
    expectWorked(JSON.parse(stdout) as Record<string, unknown>, "Node");
  });

  it("runs in workerd, bundled by wrangler without nodejs_compat", async () => {
    writeFileSync(
      join(project, "worker.js"),
      `import { exercise } from "./program.js";
export default {
  async fetch(_request, env) {
    try {
      return Response.json(await exercise(env.API_KEY, env.BASE_URL, "workerd"));
    } catch (err) {
      return Response.json({ error: String(err && err.stack || err) }, { status: 500 });
    }
  },
};
`,
    );
    writeFileSync(
      join(project, "wrangler.json"),
      JSON.stringify({ name: "sdk-user", main: "worker.js", compatibility_date: "2026-04-01" }),
    );
    const { unstable_startWorker } = await import("wrangler");
    const worker = await unstable_startWorker({
      config: join(project, "wrangler.json"),
      bindings: { API_KEY: { type: "plain_text", value: ws.apiKey }, BASE_URL: { type: "plain_text", value: baseUrl() } },
      dev: {
        server: { hostname: "127.0.0.1", port: await freePort() },
        inspector: false,
        watch: false,
        persist: join(project, ".state"),
        logLevel: "warn",
      },
    });
    try {
      await worker.ready;
      const res = await fetch(await worker.url);
      const result = (await res.json()) as Record<string, unknown>;
      expect(result.error).toBeUndefined();
      expectWorked(result, "workerd");
    } finally {
      await worker.dispose();
    }
  }, 120_000);
});
