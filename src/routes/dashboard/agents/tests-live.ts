import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { liveOf } from "../../../dashboard/agent-tests/format";
import { scriptAction } from "../../../dashboard/json";
import { replayCells, replaysOf, testsAndMatrix } from "./tests-shared";

/**
 * GET /dashboard/agents/:id/tests/live: what the Tests page follows while runs or replays are
 * queued or running (its script polls every 2 s): each cell of the results, the newest replays'
 * statuses, and whether one is still active. JSON; another workspace's agent is the error body's 404.
 */
export const registerAgentTestsLivePage = (app: OpenAPIHono<AppEnv>) =>
  app.get("/:id/tests/live", (c) =>
    scriptAction(c, async () => {
      const agentId = c.req.param("id");
      const [{ tests, matrix }, { replays }] = await Promise.all([testsAndMatrix(c, agentId), replaysOf(c, agentId)]);
      return c.json(liveOf(tests, matrix, replayCells(replays)));
    }),
  );
