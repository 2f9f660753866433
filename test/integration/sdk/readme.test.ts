// Every TypeScript example of packages/sdk/README.md, as written, against the built package and the
// local stack. The blocks are taken from the file itself: those that export a request handler
// (sections 6 and 7) are each a module of their own, which a small driver calls with real requests;
// every other block runs in order as one program (the tour builds on what earlier blocks made), its
// imports gathered at the top. All of them are type-checked first, as a user's project would be.
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { receiversPerTest, sendTest } from "../../support/deliveries";
import { baseUrl, createWorkspace, type Workspace } from "../../support/harness";
import { createEndpoint } from "../../support/webhooks";

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const SDK = join(ROOT, "packages/sdk");
const TSX = join(ROOT, "node_modules/tsx/dist/cli.mjs");

interface Block {
  section: string;
  code: string;
}

/** The README's ```ts blocks, each with the heading it sits under. */
function readmeBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  let section = "";
  for (const part of markdown.split(/^```/m).entries()) {
    const [i, text] = part;
    if (i % 2 === 0) {
      section = [...text.matchAll(/^#+ (.+)$/gm)].at(-1)?.[1] ?? section;
    } else if (/^ts\n/.test(text)) {
      blocks.push({ section, code: text.slice(3) });
    }
  }
  return blocks;
}

const blocks = readmeBlocks(readFileSync(join(SDK, "README.md"), "utf8"));
const handlers = blocks.filter((b) => /^export /m.test(b.code));
const tour = blocks.filter((b) => !handlers.includes(b));
/** docs/tools.md's tool server, written for the same package: type-checked and driven like section 7's. */
const docsToolServers = readmeBlocks(readFileSync(join(ROOT, "docs/tools.md"), "utf8"));

/** The tour's blocks as one module: single-line imports first, then each block in order. */
function tourProgram(): string {
  const imports: string[] = [];
  const bodies = tour.map(({ section, code }) => {
    const body = code.replace(/^import .*;\n/gm, (line) => {
      imports.push(line.trimEnd());
      return "";
    });
    expect(body, `a multi-line import in "${section}"`).not.toMatch(/^import /m);
    return `// ${section}\n${body}`;
  });
  return `${imports.join("\n")}\n\n${bodies.join("\n")}`;
}

const handlerFile = (i: number) => `handler-${i + 1}.ts`;
const docsToolFile = "docs-tools.ts";

let project: string;
let ws: Workspace;

beforeAll(async () => {
  project = mkdtempSync(join(tmpdir(), "sdk-readme-"));
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
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "sdk-readme", private: true, type: "module" }));
  writeFileSync(join(project, "tour.ts"), tourProgram());
  for (const [i, b] of handlers.entries()) writeFileSync(join(project, handlerFile(i)), b.code);
  writeFileSync(join(project, docsToolFile), docsToolServers.map((b) => b.code).join("\n"));
  writeFileSync(
    join(project, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        lib: ["ES2023", "DOM", "DOM.Iterable"],
        types: ["node"],
        typeRoots: [join(ROOT, "node_modules/@types")],
        strict: true,
        skipLibCheck: true,
        noEmit: true,
      },
      files: ["tour.ts", ...handlers.map((_, i) => handlerFile(i)), docsToolFile],
    }),
  );
  ws = await createWorkspace();
}, 120_000);

afterAll(() => {
  if (project) rmSync(project, { recursive: true, force: true });
});

/** Runs a TypeScript file of the project with tsx; its stdout. */
async function runTs(file: string, env: Record<string, string> = {}): Promise<string> {
  const { stdout } = await run(process.execPath, [TSX, file], { cwd: project, env: { ...process.env, ...env }, timeout: 150_000 });
  return stdout;
}

const { receiver } = receiversPerTest();

describe("packages/sdk/README.md", () => {
  it("has its tour and its two handlers (sections 6 and 7)", () => {
    expect(tour.map((b) => b.section)).toEqual([
      "1. Install and connect",
      "2. An agent, and a phone call",
      "3. Lists and pages",
      "4. Models: chat, speech, transcription",
      "5. Errors",
      "8. Agent tests from CI",
    ]);
    expect(handlers.map((b) => b.section)).toEqual(["6. Webhooks", "7. Tools"]);
    expect(docsToolServers.map((b) => b.section)).toEqual(["What your server receives"]);
  });

  it("type-checks as written against the built package", async () => {
    const tsc = join(ROOT, "node_modules/typescript/bin/tsc");
    const checked = await run(process.execPath, [tsc, "-p", join(project, "tsconfig.json")], { cwd: project }).catch(
      (err: { stdout?: string }) => ({ stdout: err.stdout ?? String(err), failed: true }),
    );
    expect(checked.stdout).toBe("");
  }, 60_000);

  it("runs the tour (sections 1 to 5 and 8) against the local stack: the call ends, then its recording is read; the agent's tests pass", async () => {
    const out = await runTs("tour.ts", { PLATFORM_API_KEY: ws.apiKey, PLATFORM_BASE_URL: baseUrl() });
    expect(out).toContain(ws.organizationId); // 1: me
    expect(out).toMatch(/^completed [a-z-]+ /m); // 2: the call, read again until it ended
    expect(out.toLowerCase()).toContain("goodbye"); // its transcript
    expect(out).toMatch(/^recording: \d{5,} bytes, \d+ s$/m);
    expect(out).toContain("Front desk"); // 3: the agents, every page
    expect(out).toContain("no such agent"); // 5: the error's class
    expect(out).toMatch(/^passed Answers about opening hours$/m); // 8: the agent's test, run until it passed
    expect(out).toContain('ok   The agent talks about "opening hours": The transcript mentions "opening hours".');
  }, 180_000);

  it("section 6's handler verifies a real delivery of the platform, and throws on a tampered one", async () => {
    const r = await receiver();
    const endpoint = await createEndpoint(ws, { url: r.url, channels: ["voice"] });
    await sendTest(ws, endpoint.id);
    const [delivery] = await r.waitFor(1);
    if (!delivery) throw new Error("no delivery");
    writeFileSync(
      join(project, "drive-webhook.ts"),
      `import { POST } from "./${handlerFile(0)}";
const delivery = JSON.parse(process.env.DELIVERY!);
const post = (body: string) =>
  POST(new Request("http://receiver.test/hooks", { method: "POST", headers: { "x-service-signature": delivery.signature }, body }));
const ok = await post(delivery.body);
const tampered = await post(delivery.body.replace("}", ', "x": 1}')).catch((err: Error) => err.name);
console.log(JSON.stringify({ status: ok.status, tampered }));
`,
    );
    const out = await runTs("drive-webhook.ts", {
      WEBHOOK_SECRET: String(endpoint.secret),
      DELIVERY: JSON.stringify({ body: delivery.body, signature: delivery.headers["x-service-signature"] }),
    });
    expect(JSON.parse(out.trim().split("\n").at(-1) ?? "")).toEqual({ status: 204, tampered: "WebhookVerificationError" });
  }, 60_000);

  it.each([
    ["section 7's", () => handlerFile(1), { status: "shipped", orderId: "42" }],
    ["docs/tools.md's", () => docsToolFile, { status: "shipped" }],
  ])(
    "%s tool server answers a signed tool request, refuses its replay and a wrong secret",
    async (_, file, answer) => {
      writeFileSync(
        join(project, "drive-tool.ts"),
        `import { signPayload } from "@voice-agent-platform/sdk";
import { POST } from "./${file()}";
const body = JSON.stringify({ id: "req_1", event: "tool.call", timestamp: new Date().toISOString(),
  toolCall: { id: "c1", name: "lookup_order", arguments: { orderId: "42" } }, chat: null, call: { id: "k1" },
  agent: { id: "a1", name: "Front desk" }, metadata: {} });
const post = async (secret: string) =>
  POST(new Request("http://tools.test/", { method: "POST", headers: { "x-service-signature": await signPayload(body, secret) }, body }));
const first = await post(process.env.TOOL_SECRET!);
const replay = await post(process.env.TOOL_SECRET!);
const forged = await post("tss_not_the_secret");
console.log(JSON.stringify({ first: [first.status, await first.json()], replay: replay.status, forged: forged.status }));
`,
      );
      const out = await runTs("drive-tool.ts", { TOOL_SECRET: "tss_readme_secret" });
      expect(JSON.parse(out.trim().split("\n").at(-1) ?? "")).toEqual({
        first: [200, answer],
        replay: 409,
        forged: 401,
      });
    },
    60_000,
  );
});
