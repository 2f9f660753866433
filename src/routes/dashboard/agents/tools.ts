import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { toAgent } from "../../../agents/mapper";
import { type Agent, updateAgent, withToolSecret } from "../../../agents/service";
import type { AppEnv } from "../../../context";
import { valuesOf } from "../../../dashboard/agents/form";
import { EMPTY_TOOL, type ToolValues } from "../../../dashboard/agents/tools";
import { apiErrorFields, jsonField, num, one, validate } from "../../../dashboard/forms";
import type { FieldErrors } from "../../../dashboard/ui";
import { ApiError } from "../../../lib/errors";
import { functionToolSchema, toolsSchema } from "../../../tools/schema";
import { ownAgent, renderForm } from "./shared";

/** The API's field names → the add-a-tool form's. */
const FIELD: Record<string, keyof ToolValues> = {
  name: "toolName",
  description: "toolDescription",
  url: "toolUrl",
  timeoutSeconds: "toolTimeout",
  parameters: "toolParameters",
  "messages.requestStart": "toolRequestStart",
};
const onForm = (errors: FieldErrors): FieldErrors =>
  Object.fromEntries(
    Object.entries(errors).map(([k, v]) => [k.startsWith("tool") ? k : (FIELD[k] ?? FIELD[k.split(".")[0] ?? ""] ?? "form"), v]),
  );

async function back(c: Context<AppEnv>, agent: Agent, tool: { values: ToolValues; errors: FieldErrors }) {
  const { toolSecret } = await withToolSecret({ ctx: c.var.ctx, input: agent });
  return renderForm(c, agent, valuesOf(toAgent(agent, toolSecret)), {}, 400, undefined, undefined, tool);
}

/**
 * POST /dashboard/agents/:id/tools: one function tool from the fields, checked by the API's own
 * schemas (the tool's, then the whole list's: a duplicate name is refused) and saved through the
 * API's updateAgent (its URL guard, the signing secret made with the first tool).
 */
export const registerAddToolPage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/:id/tools", async (c) => {
    const agent = await ownAgent(c, c.req.param("id"));
    const form = c.var.form ?? {};
    const values = Object.fromEntries(Object.keys(EMPTY_TOOL).map((k) => [k, one(form, k)])) as ToolValues;
    const pre: FieldErrors = {};
    const parameters = jsonField(form, "toolParameters", undefined, pre);
    const requestStart = values.toolRequestStart.trim();
    const checked = validate(
      functionToolSchema,
      {
        type: "function",
        name: values.toolName.trim(),
        description: values.toolDescription,
        url: values.toolUrl.trim(),
        timeoutSeconds: num(form, "toolTimeout"),
        ...(parameters === undefined ? {} : { parameters }),
        ...(requestStart ? { messages: { requestStart } } : {}),
      },
      pre,
    );
    if (!checked.ok) return back(c, agent, { values, errors: onForm(checked.errors) });
    const list = validate(toolsSchema, [...agent.tools, checked.data]);
    if (!list.ok) return back(c, agent, { values, errors: { toolName: Object.values(list.errors)[0] ?? "The tool cannot be added." } });
    try {
      await updateAgent({ ctx: c.var.ctx, input: { id: agent.id, patch: { tools: list.data } } });
    } catch (err) {
      if (!(err instanceof ApiError) || err.status >= 500 || err.status === 404) throw err;
      return back(c, agent, { values, errors: onForm(apiErrorFields(err)) });
    }
    return c.redirect(`/dashboard/agents/${agent.id}?saved=1#tools`, 303);
  });

/** POST /dashboard/agents/:id/tools/remove: the tool of that name (or that built-in) leaves the list. */
export const registerRemoveToolPage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/:id/tools/remove", async (c) => {
    const agent = await ownAgent(c, c.req.param("id"));
    const name = one(c.var.form ?? {}, "name");
    const tools = agent.tools.filter((t) => (t.type === "function" ? t.name : t.type) !== name);
    if (tools.length === agent.tools.length) throw new ApiError("not_found", `The agent has no tool named "${name}".`);
    await updateAgent({ ctx: c.var.ctx, input: { id: agent.id, patch: { tools } } });
    return c.redirect(`/dashboard/agents/${agent.id}?saved=1#tools`, 303);
  });
