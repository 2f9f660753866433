import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { renderTests } from "./tests-shared";

const NOTICES: Record<string, string> = {
  created: "Test created. Run it, or Run all, against the version chosen.",
  deleted: "Test deleted, with its runs.",
  started: "Runs queued: the results below fill in as each ends.",
};

/** GET /dashboard/agents/:id/tests: the agent's Tests page; another workspace's agent is the 404 page. */
export const registerAgentTestsPage = (app: OpenAPIHono<AppEnv>) =>
  app.get("/:id/tests", (c) => {
    const notice = Object.keys(NOTICES).find((k) => c.req.query(k) !== undefined);
    return renderTests(c, c.req.param("id"), undefined, 200, notice ? { kind: "ok", text: NOTICES[notice] as string } : undefined);
  });
