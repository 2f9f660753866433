import type { OpenAPIHono } from "@hono/zod-openapi";
import { updateAgentSchema } from "../../../agents/schema";
import { updateAgent } from "../../../agents/service";
import type { AppEnv } from "../../../context";
import { inputOf, onFields, typedValues } from "../../../dashboard/agents/form";
import { apiErrorFields, one, validate } from "../../../dashboard/forms";
import type { FieldErrors } from "../../../dashboard/ui";
import { afterSave, ownAgent, renderForm } from "./shared";

/**
 * POST /dashboard/agents/:id: the edit form sent, through the API's schema and service; published, or
 * a draft ("Save as draft"). Tools JSON that gives an agent without a signing secret its first tools
 * makes one: shown once (afterSave).
 */
export const registerUpdateAgentPage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/:id", async (c) => {
    const agent = await ownAgent(c, c.req.param("id"));
    const form = c.var.form;
    const pre: FieldErrors = {};
    const checked = validate(updateAgentSchema, inputOf(form, pre), pre);
    if (!checked.ok) return renderForm(c, agent, typedValues(form), onFields(checked.errors), 400);
    try {
      const draft = one(form, "draft") === "1";
      const saved = await updateAgent({ ctx: c.var.ctx, input: { id: agent.id, patch: checked.data, draft } });
      return await afterSave(c, saved, { draft });
    } catch (err) {
      return renderForm(c, agent, typedValues(form), onFields(apiErrorFields(err)), 400);
    }
  });
