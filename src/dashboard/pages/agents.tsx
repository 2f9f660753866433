/** @jsxImportSource hono/jsx */
// Agents: list, create, edit every field, delete. The form's fields go through the API's own
// schemas (createAgentSchema / updateAgentSchema), then the API's own service (agents/service.ts:
// the same ownership rule, voice check and row mapping).
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { toAgent } from "../../agents/mapper";
import { AGENT_DEFAULTS, type AgentView, createAgentSchema, updateAgentSchema } from "../../agents/schema";
import { type Agent, createAgent, deleteAgent, getAgent, listAgents, updateAgent } from "../../agents/service";
import type { AppEnv } from "../../context";
import { listVoicesByName } from "../../voices/service";
import { apiErrorFields, type Form, jsonField, lines, num, one, validate } from "./forms";
import { Checkbox, Csrf, ErrorSummary, type FieldErrors, Flash, Layout, Select, shellOf, TextArea, TextField, When } from "./ui";

/** What the form shows: an agent's values, or what the user typed. */
type Values = Record<string, string | boolean>;

const valuesOf = (a: AgentView | null): Values => {
  const d = a ?? {
    ...AGENT_DEFAULTS,
    name: "",
    personaId: crypto.randomUUID(),
    analysisPlan: { summaryEnabled: true, successCriteria: [], extractionFields: [] },
  };
  return {
    name: d.name,
    personaId: d.personaId,
    systemPrompt: d.systemPrompt,
    firstMessage: d.firstMessage ?? "",
    language: d.language,
    voiceId: d.voiceId ?? "",
    llmModel: d.llmModel,
    temperature: String(d.temperature),
    maxDurationSeconds: String(d.maxDurationSeconds),
    silenceTimeoutSeconds: String(d.silenceTimeoutSeconds),
    endCallPhrases: d.endCallPhrases.join("\n"),
    metadata: JSON.stringify(d.metadata, null, 2),
    summaryEnabled: d.analysisPlan.summaryEnabled,
    successCriteria: d.analysisPlan.successCriteria.join("\n"),
    extractionFields: d.analysisPlan.extractionFields.length ? JSON.stringify(d.analysisPlan.extractionFields, null, 2) : "",
  };
};

const typedValues = (form: Form): Values => ({
  ...Object.fromEntries(Object.keys(valuesOf(null)).map((k) => [k, one(form, k)])),
  summaryEnabled: one(form, "summaryEnabled") === "on",
});

/** Form fields → the API's JSON shape (then the API's schema decides). */
function inputOf(form: Form, errors: FieldErrors) {
  return {
    name: one(form, "name"),
    personaId: one(form, "personaId"),
    systemPrompt: one(form, "systemPrompt"),
    firstMessage: one(form, "firstMessage").trim() === "" ? null : one(form, "firstMessage"),
    language: one(form, "language"),
    voiceId: one(form, "voiceId") === "" ? null : one(form, "voiceId"),
    llmModel: one(form, "llmModel"),
    temperature: num(form, "temperature"),
    maxDurationSeconds: num(form, "maxDurationSeconds"),
    silenceTimeoutSeconds: num(form, "silenceTimeoutSeconds"),
    endCallPhrases: lines(form, "endCallPhrases"),
    metadata: jsonField(form, "metadata", {}, errors),
    analysisPlan: {
      summaryEnabled: one(form, "summaryEnabled") === "on",
      successCriteria: lines(form, "successCriteria"),
      extractionFields: jsonField(form, "extractionFields", [], errors),
    },
  };
}

/** Nested issue paths (analysisPlan.successCriteria.0) shown on the field that holds them. */
const FIELD_OF: Record<string, string> = {
  "analysisPlan.successCriteria": "successCriteria",
  "analysisPlan.extractionFields": "extractionFields",
  "analysisPlan.summaryEnabled": "summaryEnabled",
};
const onFields = (errors: FieldErrors): FieldErrors => {
  const out: FieldErrors = {};
  for (const [path, message] of Object.entries(errors)) {
    const prefix = Object.keys(FIELD_OF).find((p) => path.startsWith(p));
    const field = prefix ? (FIELD_OF[prefix] as string) : (path.split(".")[0] as string);
    const detail =
      path.includes(".") && !prefix
        ? `${path}: ${message}`
        : prefix && path !== prefix
          ? `${path.slice(prefix.length + 1)}: ${message}`
          : message;
    out[field] ??= detail;
  }
  return out;
};

async function voiceOptions(c: Context<AppEnv>) {
  const rows = await listVoicesByName(c.var.db, c.var.auth.organizationId);
  return [
    { value: "", label: "Platform default voice" },
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
  const action = agent ? `/dashboard/agents/${agent.id}` : "/dashboard/agents";
  const v = (k: string) => String(values[k] ?? "");
  return c.html(
    <Layout shell={shell}>
      {notice ? <Flash>{notice}</Flash> : null}
      <ErrorSummary errors={errors} />
      <form method="post" action={action} class="card" novalidate>
        <Csrf token={shell.csrf} />
        <div class="grid2">
          <TextField name="name" label="Name" value={v("name")} errors={errors} required />
          <TextField name="personaId" label="Persona id (UUID)" value={v("personaId")} errors={errors} required />
        </div>
        <TextArea
          name="systemPrompt"
          label="System prompt"
          value={v("systemPrompt")}
          errors={errors}
          rows={6}
          hint="{{name}} is replaced by the call's variable `name`."
        />
        <TextArea
          name="firstMessage"
          label="First message"
          value={v("firstMessage")}
          errors={errors}
          rows={2}
          hint="Said when the call connects. Empty: the agent waits for the caller."
        />
        <div class="grid2">
          <TextField name="language" label="Language" value={v("language")} errors={errors} hint="BCP 47, e.g. en-US" />
          <Select name="voiceId" label="Voice" value={v("voiceId")} options={await voiceOptions(c)} errors={errors} />
          <TextField name="llmModel" label="LLM model" value={v("llmModel")} errors={errors} />
          <TextField name="temperature" label="Temperature (0–2)" type="number" step="0.1" value={v("temperature")} errors={errors} />
          <TextField
            name="maxDurationSeconds"
            label="Max duration (seconds)"
            type="number"
            value={v("maxDurationSeconds")}
            errors={errors}
          />
          <TextField
            name="silenceTimeoutSeconds"
            label="Silence timeout (seconds)"
            type="number"
            value={v("silenceTimeoutSeconds")}
            errors={errors}
          />
        </div>
        <TextArea name="endCallPhrases" label="End-call phrases (one per line)" value={v("endCallPhrases")} errors={errors} rows={3} />
        <TextArea name="metadata" label="Metadata (JSON object)" value={v("metadata")} errors={errors} rows={3} />
        <h2>Post-call analysis</h2>
        <Checkbox name="summaryEnabled" label="Write a summary of each call" checked={values.summaryEnabled === true} />
        <TextArea name="successCriteria" label="Success criteria (one per line)" value={v("successCriteria")} errors={errors} rows={3} />
        <TextArea
          name="extractionFields"
          label="Extraction fields (JSON array)"
          value={v("extractionFields")}
          errors={errors}
          rows={4}
          hint='e.g. [{"name":"visit_type","type":"enum","description":"New or existing patient","choices":["new","existing"]}]'
        />
        <p class="row">
          <button type="submit">{agent ? "Save agent" : "Create agent"}</button>
          <a class="button secondary" href="/dashboard/agents">
            Cancel
          </a>
        </p>
      </form>
      {agent ? (
        <form method="post" action={`/dashboard/agents/${agent.id}/delete`} data-confirm={`Delete the agent "${agent.name}"?`} class="card">
          <Csrf token={shell.csrf} />
          <p class="mt0">Deleting an agent keeps its calls (they show its name).</p>
          <button type="submit" class="danger">
            Delete agent
          </button>
        </form>
      ) : null}
    </Layout>,
    status,
  );
}

const ownAgent = (c: Context<AppEnv>, id: string): Promise<Agent> => getAgent(c.var.db, c.var.auth.organizationId, id);

export function registerAgentPages(app: OpenAPIHono<AppEnv>): void {
  app.get("/dashboard/agents", async (c) => {
    const shell = await shellOf(c, "Agents", "agents");
    const { data: rows } = await listAgents(c.var.db, c.var.auth.organizationId, { limit: 200 });
    const notice = c.req.query("deleted") ? "Agent deleted." : undefined;
    return c.html(
      <Layout
        shell={shell}
        actions={
          <a class="button" href="/dashboard/agents/new">
            New agent
          </a>
        }
      >
        {notice ? <Flash>{notice}</Flash> : null}
        <div class="card table-wrap" tabindex={0}>
          {rows.length === 0 ? (
            <p>
              No agents yet. <a href="/dashboard/agents/new">Create the first one</a>.
            </p>
          ) : (
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Model</th>
                  <th scope="col">First message</th>
                  <th scope="col">Updated</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((a) => (
                  <tr>
                    <td>
                      <a href={`/dashboard/agents/${a.id}`}>{a.name}</a>
                    </td>
                    <td class="mono">{a.llmModel}</td>
                    <td class="small">{a.firstMessage ?? <span class="muted">waits for the caller</span>}</td>
                    <td>
                      <When at={a.updatedAt} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      </Layout>,
    );
  });

  app.get("/dashboard/agents/new", (c) => renderForm(c, null, valuesOf(null)));

  app.post("/dashboard/agents", async (c) => {
    const form = c.var.form;
    const pre: FieldErrors = {};
    const checked = validate(createAgentSchema, inputOf(form, pre), pre);
    if (!checked.ok) return renderForm(c, null, typedValues(form), onFields(checked.errors), 400);
    try {
      const row = await createAgent(c.var.db, c.var.auth.organizationId, checked.data);
      return c.redirect(`/dashboard/agents/${row.id}?saved=1`, 303);
    } catch (err) {
      return renderForm(c, null, typedValues(form), apiErrorFields(err), 400);
    }
  });

  app.get("/dashboard/agents/:id", async (c) => {
    const agent = await ownAgent(c, c.req.param("id"));
    return renderForm(c, agent, valuesOf(toAgent(agent)), {}, 200, c.req.query("saved") ? "Agent saved." : undefined);
  });

  app.post("/dashboard/agents/:id", async (c) => {
    const agent = await ownAgent(c, c.req.param("id"));
    const form = c.var.form;
    const pre: FieldErrors = {};
    const checked = validate(updateAgentSchema, inputOf(form, pre), pre);
    if (!checked.ok) return renderForm(c, agent, typedValues(form), onFields(checked.errors), 400);
    try {
      await updateAgent(c.var.db, c.var.auth.organizationId, agent.id, checked.data);
      return c.redirect(`/dashboard/agents/${agent.id}?saved=1`, 303);
    } catch (err) {
      return renderForm(c, agent, typedValues(form), apiErrorFields(err), 400);
    }
  });

  app.post("/dashboard/agents/:id/delete", async (c) => {
    await deleteAgent(c.var.db, c.var.auth.organizationId, c.req.param("id"));
    return c.redirect("/dashboard/agents?deleted=1", 303);
  });
}
