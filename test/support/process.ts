// The repository's own scripts run as a user runs them, in a child process: `node --import tsx
// <script>` in the repository's root (what `npm run …` runs, without npm's wrapper).
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a script of the repository to its end: its exit code and all it printed. */
export function runScript(script: string, args: string[], env: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", script, ...args], { cwd: ROOT, env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** The operator CLI, dev/admin.ts (`npm run admin -- …`). */
export const runAdmin = (args: string[], env: NodeJS.ProcessEnv) => runScript("dev/admin.ts", args, env);

/** Runs the admin CLI with --json: it must succeed and print exactly one JSON object, returned. */
export async function runAdminJson<T = Record<string, unknown>>(args: string[], env: NodeJS.ProcessEnv): Promise<T> {
  const run = await runAdmin([...args, "--json"], env);
  expect(run.code, `admin ${args.join(" ")} failed:\n${run.stderr}`).toBe(0);
  return JSON.parse(run.stdout) as T;
}
