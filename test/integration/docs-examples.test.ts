// Every curl example in README.md and docs/*.md, as written, against the local stack: each ```sh block
// whose commands are all curl runs in bash with the variables the docs name ($BASE, $KEY, $NEXT) set,
// the README's placeholders (http://127.0.0.1:8787, sk-live-…) replaced as a reader would, and each
// request must answer 2xx with JSON that is not our error body. The TypeScript examples are run by
// sdk/readme.test.ts (the SDK's README and docs/tools.md) and unit/webhooks/signature.test.ts
// (docs/webhooks.md's verifier).
import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { baseUrl, createWorkspace, json, type Workspace } from "../support/harness";

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const FILES = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"), "utf8")
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

/** The ```sh blocks whose every command is a curl (a command: a line that does not continue a quoted body). */
function curlBlocks(file: string): string[] {
  const text = readFileSync(join(ROOT, file), "utf8");
  return [...text.matchAll(/^```(?:sh|bash|shell)\n([\s\S]*?)^```/gm)]
    .map((m) => m[1] as string)
    .filter((code) => /^curl /m.test(code) && commands(code).every((c) => c.startsWith("curl ")));
}

/** A block's commands: lines outside a single-quoted string (a JSON body spans lines). */
function commands(code: string): string[] {
  const out: string[] = [];
  let quoted = false;
  for (const line of code.split("\n")) {
    if (!quoted && line.trim()) out.push(line.trim());
    quoted = (line.split("'").length - 1) % 2 === 1 ? !quoted : quoted;
  }
  return out;
}

const examples = FILES.flatMap((file) => curlBlocks(file).map((code, i) => ({ name: `${file} #${i + 1}`, code })));

let ws: Workspace;
let next: string;

beforeAll(async () => {
  ws = await createWorkspace();
  // docs/pagination.md follows a cursor: a second page needs more than 50 agents.
  const agent = { name: "Docs example", personaId: "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77" };
  for (let i = 0; i < 51; i += 17) {
    await Promise.all(
      Array.from({ length: Math.min(17, 51 - i) }, async () => {
        const res = await ws.api("/v1/agents", { method: "POST", json: agent });
        expect(res.status).toBe(201);
      }),
    );
  }
  const page = await json<{ nextCursor: string | null }>(await ws.api("/v1/agents?limit=50"));
  next = page.nextCursor ?? "";
  expect(next).not.toBe("");
}, 60_000);

describe("the curl examples of the README and docs", () => {
  it("are found where the docs have them", () => {
    expect(examples.map((e) => e.name)).toEqual(
      expect.arrayContaining(["README.md #1", "docs/agents.md #1", "docs/pagination.md #1", "docs/voices.md #1"]),
    );
  });

  it.each(examples)("$name runs as written", async ({ code }) => {
    const script = code.replaceAll("http://127.0.0.1:8787", baseUrl()).replaceAll("sk-live-…", ws.apiKey);
    // Each request's status after its body, without changing what the example says.
    const wrapped = `set -e\ncurl() { command curl -sS -w '\\n%{http_code}\\n' "$@"; }\n${script}`;
    const { stdout } = await run("bash", ["-c", wrapped], {
      env: { PATH: process.env.PATH ?? "", BASE: baseUrl(), KEY: ws.apiKey, NEXT: next },
      timeout: 30_000,
    });
    const answers = stdout.trimEnd().split(/\n(\d{3})(?:\n|$)/);
    const results: Array<{ status: number; body: unknown }> = [];
    for (let i = 0; i + 1 < answers.length; i += 2)
      results.push({ status: Number(answers[i + 1]), body: JSON.parse(answers[i] as string) });
    expect(results.length).toBe(commands(code).length);
    for (const r of results) {
      expect(r.status, JSON.stringify(r.body)).toBeGreaterThanOrEqual(200);
      expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
      expect(r.body).not.toHaveProperty("code");
    }
  });
});
