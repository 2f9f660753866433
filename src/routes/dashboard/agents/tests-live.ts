import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { liveOf } from "../../../dashboard/agent-tests/format";
import { scriptAction } from "../../../dashboard/json";
import { testsAndMatrix } from "./tests-shared";

/**
 * GET /dashboard/agents/:id/tests/live: what the Tests page follows while runs are queued or
 * running (its script polls every 2 s): each cell of the results and whether one is still active.
 * JSON; another workspace's agent is the error body's 404.
 */
export const registerAgentTestsLivePage = (app: OpenAPIHono<AppEnv>) =>
  app.get("/:id/tests/live", (c) =>
    scriptAction(c, async () => {
      const { tests, matrix } = await testsAndMatrix(c, c.req.param("id"));
      return c.json(liveOf(tests, matrix));
    }),
  );
