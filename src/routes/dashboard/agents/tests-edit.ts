import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { renderTestEdit } from "./tests-shared";

/** GET /dashboard/agents/:id/tests/:testId: a test's own page, every field; another workspace's test is the 404 page. */
export const registerEditAgentTestPage = (app: OpenAPIHono<AppEnv>) =>
  app.get("/:id/tests/:testId", (c) =>
    renderTestEdit(
      c,
      c.req.param("id"),
      c.req.param("testId"),
      undefined,
      200,
      c.req.query("saved") !== undefined ? "Test saved." : undefined,
    ),
  );
