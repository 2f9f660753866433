import type { OpenAPIHono } from "@hono/zod-openapi";
import { deleteTest } from "../../../agent-tests/service";
import type { AppEnv } from "../../../context";

/** POST /dashboard/agents/:id/tests/:testId/delete: the API's delete (the test and its runs). */
export const registerDeleteAgentTestPage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/:id/tests/:testId/delete", async (c) => {
    const agentId = c.req.param("id");
    await deleteTest({ ctx: c.var.ctx, input: { agentId, id: c.req.param("testId") } });
    return c.redirect(`/dashboard/agents/${agentId}/tests?deleted=1`, 303);
  });
