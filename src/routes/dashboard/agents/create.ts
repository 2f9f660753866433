import type { OpenAPIHono } from "@hono/zod-openapi";
import { createAgentSchema } from "../../../agents/schema";
import { createAgent } from "../../../agents/service";
import type { AppEnv } from "../../../context";
import { inputOf, onFields, typedValues } from "../../../dashboard/agents/form";
import { apiErrorFields, validate } from "../../../dashboard/forms";
import type { FieldErrors } from "../../../dashboard/ui";
import { afterSave, renderForm } from "./shared";

/**
 * POST /dashboard/agents: the new form sent, through the API's schema and service. An agent created
 * with tools of yours is shown with its tool signing secret, once (afterSave); without, the secret
 * (made with every agent) signs nothing yet, and Rotate shows a new one when the first tool comes.
 */
export const registerCreateAgentPage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/", async (c) => {
    const form = c.var.form;
    const pre: FieldErrors = {};
    const checked = validate(createAgentSchema, inputOf(form, pre), pre);
    if (!checked.ok) return renderForm(c, null, typedValues(form), onFields(checked.errors), 400);
    try {
      const saved = await createAgent({ ctx: c.var.ctx, input: checked.data });
      const signs = saved.agent.tools.some((t) => t.type === "function");
      return afterSave(c, { ...saved, secretCreated: saved.secretCreated && signs }, { created: true });
    } catch (err) {
      return renderForm(c, null, typedValues(form), onFields(apiErrorFields(err)), 400);
    }
  });
