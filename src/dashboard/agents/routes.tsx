/** @jsxImportSource hono/jsx */
// Agents (everyone): list, create, edit every field, delete, under /dashboard/agents. The form's
// fields go through the API's own schemas (createAgentSchema / updateAgentSchema), then the API's
// own service (agents/service.ts: the same ownership rule, voice check and row mapping).
import type { Context } from "hono";
import { toAgent } from "../../agents/mapper";
import { createAgentSchema, updateAgentSchema } from "../../agents/schema";
import { type Agent, createAgent, deleteAgent, getAgent, listAgents, updateAgent, withToolSecret } from "../../agents/service";
import type { AppEnv } from "../../context";
import { defaultVoiceId, listVoicesByName } from "../../voices/service";
import { apiErrorFields, validate } from "../forms";
import { screenRouter } from "../routers";
import { type FieldErrors, shellOf } from "../ui";
import { inputOf, onFields, typedValues, type Values, valuesOf } from "./form";
import { AgentForm, AgentList } from "./views";

async function voiceOptions(c: Context<AppEnv>) {
  const rows = await listVoicesByName({ ctx: c.var.ctx });
  const fallback = rows.find((v) => v.id === defaultVoiceId(c.var.config));
  return [
    { value: "", label: fallback ? `Platform default (now ${fallback.name}, ${fallback.provider})` : "Platform default voice" },
    ...rows.map((v) => ({ value: v.id, label: `${v.name} (${v.provider}${v.organizationId ? ", owned" : ", system"})` })),
  ];
}

async function renderForm(
  c: Context<AppEnv>,
  agent: Agent | null,
  values: Values,
  errors: FieldErrors = {},
  status: 200 | 400 = 200,
  notice?: string,
) {
  const shell = await shellOf(c, agent ? `Agent: ${agent.name}` : "New agent", "agents");
  const voices = await voiceOptions(c);
  return c.html(<AgentForm shell={shell} agent={agent} values={values} errors={errors} voices={voices} notice={notice} />, status);
}

const ownAgent = (c: Context<AppEnv>, id: string): Promise<Agent> => getAgent({ ctx: c.var.ctx, input: { id } });

export function agentPages() {
  const app = screenRouter();

  app.get("/", async (c) => {
    const shell = await shellOf(c, "Agents", "agents");
    const { data: agents } = await listAgents({ ctx: c.var.ctx, input: { limit: 200 } });
    return c.html(<AgentList shell={shell} agents={agents} notice={c.req.query("deleted") ? "Agent deleted." : undefined} />);
  });

  app.get("/new", (c) => renderForm(c, null, valuesOf(null)));

  app.post("/", async (c) => {
    const form = c.var.form;
    const pre: FieldErrors = {};
    const checked = validate(createAgentSchema, inputOf(form, pre), pre);
    if (!checked.ok) return renderForm(c, null, typedValues(form), onFields(checked.errors), 400);
    try {
      const { agent } = await createAgent({ ctx: c.var.ctx, input: checked.data });
      return c.redirect(`/dashboard/agents/${agent.id}?saved=1`, 303);
    } catch (err) {
      return renderForm(c, null, typedValues(form), apiErrorFields(err), 400);
    }
  });

  app.get("/:id", async (c) => {
    const agent = await ownAgent(c, c.req.param("id"));
    const { toolSecret } = await withToolSecret({ ctx: c.var.ctx, input: agent });
    return renderForm(c, agent, valuesOf(toAgent(agent, toolSecret)), {}, 200, c.req.query("saved") ? "Agent saved." : undefined);
  });

  app.post("/:id", async (c) => {
    const agent = await ownAgent(c, c.req.param("id"));
    const form = c.var.form;
    const pre: FieldErrors = {};
    const checked = validate(updateAgentSchema, inputOf(form, pre), pre);
    if (!checked.ok) return renderForm(c, agent, typedValues(form), onFields(checked.errors), 400);
    try {
      await updateAgent({ ctx: c.var.ctx, input: { id: agent.id, patch: checked.data } });
      return c.redirect(`/dashboard/agents/${agent.id}?saved=1`, 303);
    } catch (err) {
      return renderForm(c, agent, typedValues(form), apiErrorFields(err), 400);
    }
  });

  app.post("/:id/delete", async (c) => {
    await deleteAgent({ ctx: c.var.ctx, input: { id: c.req.param("id") } });
    return c.redirect("/dashboard/agents?deleted=1", 303);
  });

  return app;
}
