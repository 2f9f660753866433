import type { OpenAPIHono } from "@hono/zod-openapi";
import { updateTestSchema } from "../../../agent-tests/schema";
import { getTest, updateTest } from "../../../agent-tests/service";
import type { AppEnv } from "../../../context";
import { onTestFields, testBodyOf, testValuesOf } from "../../../dashboard/agent-tests/form";
import { validate } from "../../../dashboard/forms";
import { renderTestEdit } from "./tests-shared";

/**
 * POST /dashboard/agents/:id/tests/:testId: the test's page sent, every field, through the API's
 * schema and updateTest (a whole replacement: the form holds every field); a refusal draws the
 * page again, 400, with what was typed and each problem on its field.
 */
export const registerUpdateAgentTestPage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/:id/tests/:testId", async (c) => {
    const ctx = c.var.ctx;
    const agentId = c.req.param("id");
    const id = c.req.param("testId");
    // Another workspace's test is the 404 page before the form is read.
    await getTest({ ctx, input: { agentId, id } });
    const { body, pre, rows } = testBodyOf(c.var.form);
    const checked = validate(updateTestSchema, body, pre);
    if (!checked.ok)
      return renderTestEdit(c, agentId, id, { values: testValuesOf(c.var.form), errors: onTestFields(checked.errors, rows) }, 400);
    await updateTest({ ctx, input: { agentId, id, patch: checked.data } });
    return c.redirect(`/dashboard/agents/${agentId}/tests/${id}?saved=1`, 303);
  });
