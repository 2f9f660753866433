import type { OpenAPIHono } from "@hono/zod-openapi";
import { createTestSchema } from "../../../agent-tests/schema";
import { createTest } from "../../../agent-tests/service";
import type { AppEnv } from "../../../context";
import { onTestFields, testBodyOf, testValuesOf } from "../../../dashboard/agent-tests/form";
import { apiErrorFields, validate } from "../../../dashboard/forms";
import { ApiError } from "../../../lib/errors";
import { renderTests } from "./tests-shared";

/**
 * POST /dashboard/agents/:id/tests: a new test from the form, through the API's schema and
 * createTest (its limit of tests per agent); a refusal draws the page again with what was typed.
 */
export const registerCreateAgentTestPage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/:id/tests", async (c) => {
    const agentId = c.req.param("id");
    const values = testValuesOf(c.var.form);
    const { body, pre, rows } = testBodyOf(c.var.form);
    const checked = validate(createTestSchema, body, pre);
    if (!checked.ok) return renderTests(c, agentId, { values, errors: onTestFields(checked.errors, rows) }, 400);
    try {
      await createTest({ ctx: c.var.ctx, input: { agentId, test: checked.data } });
    } catch (err) {
      if (!(err instanceof ApiError) || err.code !== "conflict") throw err;
      return renderTests(c, agentId, { values, errors: apiErrorFields(err) }, 409);
    }
    return c.redirect(`/dashboard/agents/${agentId}/tests?created=1`, 303);
  });
