import type { OpenAPIHono } from "@hono/zod-openapi";
import { createAgentSchema } from "../../../agents/schema";
import { createAgent } from "../../../agents/service";
import type { AppEnv } from "../../../context";
import { inputOf, onFields, typedValues } from "../../../dashboard/agents/form";
import { apiErrorFields, validate } from "../../../dashboard/forms";
import type { FieldErrors } from "../../../dashboard/ui";
import { renderForm } from "./shared";

/** POST /dashboard/agents: the new form sent, through the API's schema and service. */
export const registerCreateAgentPage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/", async (c) => {
    const form = c.var.form;
    const pre: FieldErrors = {};
    const checked = validate(createAgentSchema, inputOf(form, pre), pre);
    if (!checked.ok) return renderForm(c, null, typedValues(form), onFields(checked.errors), 400);
    try {
      const { agent } = await createAgent({ ctx: c.var.ctx, input: checked.data });
      return c.redirect(`/dashboard/agents/${agent.id}?saved=1`, 303);
    } catch (err) {
      return renderForm(c, null, typedValues(form), onFields(apiErrorFields(err)), 400);
    }
  });
