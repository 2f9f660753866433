import type { OpenAPIHono } from "@hono/zod-openapi";
import { publishAgentVersion, rollbackAgent } from "../../../agents/versions";
import type { AppEnv } from "../../../context";
import { type Form, one } from "../../../dashboard/forms";
import { ApiError } from "../../../lib/errors";

/** The form's version number; a 400 for anything else (a page with the one error body's message). */
function versionOf(form: Form): number {
  const version = Number(one(form, "version"));
  if (!Number.isSafeInteger(version) || version < 1 || version > 2_147_483_647)
    throw new ApiError("validation_failed", "Invalid form: version: must be a version number", {
      issues: [{ path: "version", message: "must be a version number" }],
    });
  return version;
}

/** POST /dashboard/agents/:id/publish: the API's publish (agents/versions.ts) of the version sent; back to the agent's versions. */
export const registerPublishAgentPage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/:id/publish", async (c) => {
    const agentId = c.req.param("id");
    await publishAgentVersion({ ctx: c.var.ctx, input: { agentId, version: versionOf(c.var.form) } });
    return c.redirect(`/dashboard/agents/${agentId}?saved=1#versions`, 303);
  });

/** POST /dashboard/agents/:id/rollback: the API's rollback to the version sent (a new, live version). */
export const registerRollbackAgentPage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/:id/rollback", async (c) => {
    const agentId = c.req.param("id");
    await rollbackAgent({ ctx: c.var.ctx, input: { agentId, version: versionOf(c.var.form) } });
    return c.redirect(`/dashboard/agents/${agentId}?saved=1#versions`, 303);
  });
