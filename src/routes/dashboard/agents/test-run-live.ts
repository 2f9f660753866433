import type { OpenAPIHono } from "@hono/zod-openapi";
import { getRun } from "../../../agent-tests/service";
import type { AppEnv } from "../../../context";
import { isActive, STATUS_TONES } from "../../../dashboard/agent-tests/format";
import { scriptAction } from "../../../dashboard/json";

/**
 * GET /dashboard/agents/:id/test-runs/:runId/live: what a run's or a replay's page follows while it
 * plays (its script polls every 2 s and draws the page again once the run is final): its status.
 * JSON; another workspace's run is the error body's 404.
 */
export const registerAgentTestRunLivePage = (app: OpenAPIHono<AppEnv>) =>
  app.get("/:id/test-runs/:runId/live", (c) =>
    scriptAction(c, async () => {
      const { run } = await getRun({ ctx: c.var.ctx, input: { agentId: c.req.param("id"), id: c.req.param("runId") } });
      return c.json({ status: run.status, tone: STATUS_TONES[run.status], active: isActive(run.status) });
    }),
  );
