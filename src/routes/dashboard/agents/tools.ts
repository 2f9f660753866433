import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { toAgent } from "../../../agents/mapper";
import { type Agent, withToolSecret } from "../../../agents/service";
import { changeAgentTools } from "../../../agents/tool-list";
import type { AppEnv } from "../../../context";
import { valuesOf } from "../../../dashboard/agents/form";
import { type ToolFormValues, toolInputOf, typedToolForm } from "../../../dashboard/agents/tool-form";
import { apiErrorFields, one, validate } from "../../../dashboard/forms";
import type { FieldErrors } from "../../../dashboard/ui";
import { ApiError } from "../../../lib/errors";
import { functionToolSchema } from "../../../tools/schema";
import { afterSave, ownAgent, renderForm } from "./shared";

/** The API's field names → the tool builder's. */
const FIELD: Record<string, string> = {
  name: "toolName",
  description: "toolDescription",
  url: "toolUrl",
  timeoutSeconds: "toolTimeout",
  parameters: "toolParameters",
  "messages.requestStart": "toolRequestStart",
  "messages.requestFailed": "toolRequestFailed",
};
const onForm = (errors: FieldErrors): FieldErrors =>
  Object.fromEntries(
    Object.entries(errors).map(([k, v]) => [
      k.startsWith("tool") || k.startsWith("param.") ? k : (FIELD[k] ?? FIELD[k.split(".")[0] ?? ""] ?? "form"),
      v,
    ]),
  );

async function back(c: Context<AppEnv>, agent: Agent, tool: { values: ToolFormValues; errors: FieldErrors }) {
  const { toolSecret } = await withToolSecret({ ctx: c.var.ctx, input: agent });
  return renderForm(c, agent, valuesOf(toAgent(agent, toolSecret)), {}, 400, { tool });
}

/**
 * POST /dashboard/agents/:id/tools: a function tool from the builder's fields, added, or replacing
 * the one it was opened on (`toolOriginal`; it may be renamed), published or (`draft`) saved as a
 * draft like the agent form's changes. The API's tool schema checks it, then changeAgentTools the
 * list (a duplicate name is refused) and saves it through updateAgent (the URL guard, the signing
 * secret made with the first tools: then shown once).
 */
export const registerAddToolPage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/:id/tools", async (c) => {
    const agent = await ownAgent(c, c.req.param("id"));
    const form = c.var.form ?? {};
    const values = typedToolForm(form);
    const draft = one(form, "draft") === "1";
    const pre: FieldErrors = {};
    const checked = validate(functionToolSchema, toolInputOf(values, form, pre), pre);
    if (!checked.ok) return back(c, agent, { values, errors: onForm(checked.errors) });
    const change = values.original ? { replace: values.original, tool: checked.data } : { add: checked.data };
    try {
      const saved = await changeAgentTools({ ctx: c.var.ctx, input: { id: agent.id, change, draft } });
      return await afterSave(c, saved, { draft, anchor: "#tools" });
    } catch (err) {
      if (!(err instanceof ApiError) || err.status >= 500) throw err;
      return back(c, agent, { values, errors: onForm(apiErrorFields(err)) });
    }
  });

/** POST /dashboard/agents/:id/tools/remove: the tool of that name (or that built-in) leaves the list, published or in a draft. */
export const registerRemoveToolPage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/:id/tools/remove", async (c) => {
    const agent = await ownAgent(c, c.req.param("id"));
    const form = c.var.form ?? {};
    const draft = one(form, "draft") === "1";
    const saved = await changeAgentTools({ ctx: c.var.ctx, input: { id: agent.id, change: { remove: one(form, "name") }, draft } });
    return c.redirect(`/dashboard/agents/${saved.agent.id}?saved=${draft ? "draft" : "1"}#tools`, 303);
  });
