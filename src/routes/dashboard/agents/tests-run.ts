import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { startRuns } from "../../../agent-tests/service";
import type { AppEnv } from "../../../context";
import { one } from "../../../dashboard/forms";
import { ApiError } from "../../../lib/errors";

/** The picker's version; absent or "" is the live one (the service's default). A 400 page for anything else. */
function versionOf(c: Context<AppEnv>): number | undefined {
  const raw = one(c.var.form, "version");
  if (raw === "") return undefined;
  const version = Number(raw);
  if (!Number.isSafeInteger(version) || version < 1 || version > 2_147_483_647)
    throw new ApiError("validation_failed", "Invalid form: version: must be a version number", {
      issues: [{ path: "version", message: "must be a version number" }],
    });
  return version;
}

/** The "Play as" choice: a chat (absent or "chat") or a voice call; a 400 page for anything else. */
function modeOf(c: Context<AppEnv>): "chat" | "voice" {
  const raw = one(c.var.form, "mode");
  if (raw === "" || raw === "chat") return "chat";
  if (raw === "voice") return "voice";
  throw new ApiError("validation_failed", "Invalid form: mode: must be chat or voice", {
    issues: [{ path: "mode", message: "must be chat or voice" }],
  });
}

/** Queues the runs (startRuns: its limits, its version check) and goes back to the Tests page, which follows them. */
async function run(c: Context<AppEnv>, testId?: string) {
  const agentId = c.req.param("id") as string;
  await startRuns({ ctx: c.var.ctx, input: { agentId, testId, version: versionOf(c), mode: modeOf(c) } });
  return c.redirect(`/dashboard/agents/${agentId}/tests?started=1`, 303);
}

/** POST /dashboard/agents/:id/tests/run: run all the agent's tests against the version chosen. */
export const registerRunAgentTestsPage = (app: OpenAPIHono<AppEnv>) => app.post("/:id/tests/run", (c) => run(c));

/** POST /dashboard/agents/:id/tests/:testId/run: run one test against the version chosen. */
export const registerRunAgentTestPage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/:id/tests/:testId/run", (c) => run(c, c.req.param("testId")));
