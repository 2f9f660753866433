// processesUnder (dev/process-group.ts): how `npm run dev` finds the workerd processes of its
// worker to notice one that died (dev/start.ts).
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { processesUnder } from "../../dev/process-group";

describe.runIf(process.platform !== "win32")("processesUnder", () => {
  it("lists children and grandchildren with their command names, and nothing once they are gone", async () => {
    // A shell that starts a `sleep` of its own: a child and a grandchild of this process.
    const shell = spawn("sh", ["-c", "sleep 30 & wait"], { stdio: "ignore" });
    let under: Awaited<ReturnType<typeof processesUnder>> = [];
    try {
      for (let i = 0; i < 50 && !under?.some((p) => p.command.endsWith("sleep")); i++) {
        under = await processesUnder(shell.pid as number);
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(under?.map((p) => p.command.split("/").pop())).toEqual(["sleep"]);
      expect((await processesUnder(process.pid))?.map((p) => p.pid)).toEqual(expect.arrayContaining([shell.pid, under?.[0]?.pid]));
    } finally {
      const exited = new Promise((r) => shell.once("exit", r));
      for (const p of under ?? []) process.kill(p.pid, "SIGTERM");
      shell.kill();
      await exited;
    }
    expect(await processesUnder(shell.pid as number)).toEqual([]);
  });
});
