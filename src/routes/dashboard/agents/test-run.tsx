import type { OpenAPIHono } from "@hono/zod-openapi";
import { getRun } from "../../../agent-tests/service";
import { toRunView } from "../../../agent-tests/views";
import { getAgent } from "../../../agents/service";
import type { AppEnv } from "../../../context";
import { RunPage } from "../../../dashboard/agent-tests/run";
import { shellOf } from "../../../dashboard/ui";

/** GET /dashboard/agents/:id/test-runs/:runId: a test run's page, or a replay's; another workspace's is the 404 page. */
export const registerAgentTestRunPage = (app: OpenAPIHono<AppEnv>) =>
  app.get("/:id/test-runs/:runId", async (c) => {
    const ctx = c.var.ctx;
    const agentId = c.req.param("id");
    const { run, testName } = await getRun({ ctx, input: { agentId, id: c.req.param("runId") } });
    const [agent, shell] = await Promise.all([
      getAgent({ ctx, input: { id: agentId } }),
      shellOf(c, run.source ? `Replay of a ${run.source.kind}` : `Test run: ${testName ?? "deleted test"}`, "agents"),
    ]);
    return c.html(<RunPage shell={shell} agent={agent} run={toRunView(run, testName)} />);
  });
