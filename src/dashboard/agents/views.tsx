/** @jsxImportSource hono/jsx */
// The Agents screens: the list, and the form that creates and edits every field.
import type { FC } from "hono/jsx";
import type { Agent } from "../../agents/service";
import type { ListedVersion } from "../../agents/versions";
import {
  Checkbox,
  Csrf,
  DataTable,
  EmptyState,
  ErrorSummary,
  type FieldErrors,
  Flash,
  InlineScript,
  Layout,
  Secret,
  Select,
  type Shell,
  TextArea,
  TextField,
  When,
} from "../ui";
import { AGENT_FORM_JS, AGENTS_CSS } from "../ui/assets/built";
import { VoiceSample } from "../voices/views";
import type { Values } from "./form";
import { type KnowledgeChoice, KnowledgeSection } from "./knowledge";
import { AGENT_TEMPLATES } from "./templates";
import type { ToolFormValues } from "./tool-form";
import { ToolBuilder } from "./tools";
import { TryPanel } from "./try";
import { VersionList } from "./versions";

const NEW = "/dashboard/agents/new";

export const AgentList: FC<{ shell: Shell; agents: Agent[]; notice?: string }> = ({ shell, agents, notice }) => (
  <Layout
    shell={shell}
    actions={
      <a class="button" href={NEW}>
        New agent
      </a>
    }
  >
    {notice ? <Flash>{notice}</Flash> : null}
    <DataTable
      rows={agents}
      empty={<EmptyState action={{ href: NEW, label: "Create the first one" }}>No agents yet.</EmptyState>}
      columns={[
        { header: "Name", cell: (a) => <a href={`/dashboard/agents/${a.id}`}>{a.name}</a> },
        { header: "Model", class: "mono", cell: (a) => a.llmModel },
        { header: "First message", class: "small", cell: (a) => a.firstMessage ?? <span class="muted">waits for the caller</span> },
        { header: "Updated", cell: (a) => <When at={a.updatedAt} /> },
      ]}
    />
  </Layout>
);

export interface AgentFormProps {
  shell: Shell;
  agent: Agent | null;
  values: Values;
  errors: FieldErrors;
  voices: Array<{ value: string; label: string }>;
  /** What the configured LLM provider offers (its GET /models), offered as suggestions; empty when unknown. */
  models: string[];
  notice?: string;
  /** A tool signing secret, shown once: after Rotate, or made with the agent's first tools. */
  newToolSecret?: NewToolSecret;
  /** The voice the form names (as saved or typed), to hear it; null when unknown. */
  heardVoice: { id: string; name: string } | null;
  /** The platform's default voice (what "" plays), for the page's script when the choice changes. */
  defaultVoice: { id: string; name: string } | null;
  /** The tool builder, as typed (and its errors, when it came back), or opened on a tool. */
  tool: { values: ToolFormValues; errors: FieldErrors };
  /** The workspace's knowledge bases, by name, for the Knowledge section. */
  knowledgeBases: KnowledgeChoice[];
  /** The agent's newest versions (edit page). */
  versions: ListedVersion[];
}

/** A tool signing secret in the response that made it. */
export interface NewToolSecret {
  value: string;
  why: "rotated" | "created";
}

/**
 * The player of the voice the form names; the page's script points it at another voice when the
 * select changes (the default's id and name for "Platform default").
 */
const HeardVoice: FC<{ heard: { id: string; name: string } | null; fallback: { id: string; name: string } | null }> = ({
  heard,
  fallback,
}) => (
  <p class="small muted m0" data-voice-sample data-default-id={fallback?.id ?? ""} data-default-name={fallback?.name ?? ""} hidden={!heard}>
    Hear <span data-voice-name>{heard?.name ?? ""}</span>: <VoiceSample id={heard?.id ?? null} name={heard?.name ?? ""} />
  </p>
);

/** The New agent page's starting points. */
const Templates: FC = () => (
  <nav class="card" aria-label="Start from a template">
    <p class="mt0">
      <strong>Start from a template</strong> <span class="muted small">(fills the form; nothing is created until you save)</span>
    </p>
    <ul class="plain-list">
      {AGENT_TEMPLATES.map((t) => (
        <li>
          <a href={`/dashboard/agents/new?template=${t.key}`}>{t.label}</a> <span class="muted small">{t.description}</span>
        </li>
      ))}
    </ul>
  </nav>
);

export const AgentForm: FC<AgentFormProps> = ({
  shell,
  agent,
  values,
  errors,
  voices,
  models,
  notice,
  newToolSecret,
  heardVoice,
  defaultVoice,
  tool,
  knowledgeBases,
  versions,
}) => {
  const v = (k: string) => String(values[k] ?? "");
  return (
    <Layout
      shell={shell}
      css={AGENTS_CSS}
      actions={
        agent ? (
          <a class="button secondary" href={`/dashboard/agents/${agent.id}/tests`}>
            Tests
          </a>
        ) : undefined
      }
    >
      {notice ? <Flash>{notice}</Flash> : null}
      <ErrorSummary errors={errors} />
      {agent && agent.latestVersion > agent.liveVersion ? (
        <Flash kind="warn">
          Version {agent.latestVersion} is a draft, not live (version {agent.liveVersion} is): the form and the tools show the draft. Save
          as draft builds on it; Save publishes what the form shows. Compare or publish it under Versions.
        </Flash>
      ) : null}
      {agent ? <TryPanel agent={agent} versions={versions} csrf={shell.csrf} nonce={shell.nonce} /> : <Templates />}
      <form method="post" action={agent ? `/dashboard/agents/${agent.id}` : "/dashboard/agents"} class="card" novalidate>
        <Csrf token={shell.csrf} />
        <TextField name="name" label="Name" value={v("name")} errors={errors} required />
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
          <div>
            <Select name="voiceId" label="Voice" value={v("voiceId")} options={voices} errors={errors} />
            <HeardVoice heard={heardVoice} fallback={defaultVoice} />
          </div>
          <TextField
            name="llmModel"
            label="LLM model"
            value={v("llmModel")}
            errors={errors}
            list={models}
            hint={models.length ? "Type, or pick one the configured provider offers." : undefined}
          />
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
        <details class="advanced" open={Boolean(errors.personaId || errors.metadata)}>
          <summary>Advanced: persona id and metadata</summary>
          <TextField
            name="personaId"
            label="Persona id (UUID)"
            value={v("personaId")}
            errors={errors}
            required
            hint="Your own identifier for this agent's persona, for your systems (the API requires one). The dashboard made one for you: change it only if your systems name personas by id."
          />
          <TextArea name="metadata" label="Metadata (JSON object)" value={v("metadata")} errors={errors} rows={3} />
        </details>
        <KnowledgeSection values={values} errors={errors} bases={knowledgeBases} />
        <h2>Voicemail</h2>
        <Select
          name="voicemailDetection"
          label="When a machine answers an outbound call"
          value={v("voicemailDetection")}
          options={[
            { value: "off", label: "No detection: the agent talks to whoever answers" },
            { value: "hang-up", label: "Hang up" },
            { value: "leave-message", label: "Wait for the beep and leave a message" },
          ]}
          errors={errors}
        />
        <TextArea
          name="voicemailMessage"
          label="Voicemail message"
          value={v("voicemailMessage")}
          errors={errors}
          rows={2}
          hint="Said after the beep, then the agent hangs up. {{name}} is replaced by the call's variable `name`."
        />
        <h2>Turn-taking</h2>
        <div class="grid2">
          <Select
            name="eagerness"
            label="Eagerness"
            value={v("eagerness")}
            options={[
              { value: "patient", label: "Patient: waits out the longest wait" },
              { value: "normal", label: "Normal: answers a finished sentence" },
              { value: "eager", label: "Eager: answers a phrase that sounds done" },
            ]}
            errors={errors}
          />
          <TextField
            name="interruptionMinWords"
            label="Words that interrupt the agent"
            type="number"
            value={v("interruptionMinWords")}
            errors={errors}
            hint='Not counting backchannels such as "mhm" or "yeah".'
          />
          <TextField
            name="minWaitMs"
            label="Shortest wait (ms)"
            type="number"
            value={v("minWaitMs")}
            errors={errors}
            hint="Quiet that ends a turn that sounds finished. Empty: 200."
          />
          <TextField
            name="maxWaitMs"
            label="Longest wait (ms)"
            type="number"
            value={v("maxWaitMs")}
            errors={errors}
            hint="Quiet that ends any turn. Empty: 500, or Flux's 5,000 when streaming."
          />
          <TextField
            name="interruptionMinMs"
            label="Sound that interrupts (ms)"
            type="number"
            value={v("interruptionMinMs")}
            errors={errors}
            hint="Before any word is recognized. Empty: 700."
          />
        </div>
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
        <h2>Tools (JSON)</h2>
        <TextArea
          name="tools"
          label="Tools (JSON array)"
          value={v("tools")}
          errors={errors}
          rows={8}
          hint='Functions on your server and the built-ins (docs/tools.md), e.g. [{"type":"function","name":"lookup_order","description":"Looks up an order","parameters":{"type":"object","properties":{"orderId":{"type":"string"}},"required":["orderId"]},"url":"https://api.example.com/tools/order","timeoutSeconds":10},{"type":"end_call"}]'
        />
        {v("toolSecret") ? (
          <p class="small muted">
            Tool requests are signed with <code>{v("toolSecret")}</code> (X-Service-Signature, verified like webhooks). The whole secret is
            shown once, when it is made: rotate it below to see a new one.
          </p>
        ) : null}
        <p class="row">
          {agent ? (
            <>
              <button type="submit">Save and publish</button>
              <button type="submit" name="draft" value="1" class="secondary">
                Save as draft
              </button>
            </>
          ) : (
            <button type="submit">Create agent</button>
          )}
          <a class="button secondary" href="/dashboard/agents">
            Cancel
          </a>
        </p>
      </form>
      {agent ? <VersionList agent={agent} versions={versions} csrf={shell.csrf} /> : null}
      {agent ? <ToolBuilder agent={agent} csrf={shell.csrf} values={tool.values} errors={tool.errors} /> : null}
      {agent ? (
        <form
          method="post"
          action={`/dashboard/agents/${agent.id}/rotate-tool-secret`}
          class="card"
          data-confirm="Make a new tool signing secret? The current one stops signing at once: update your tool servers."
        >
          <Csrf token={shell.csrf} />
          <h2 class="mt0">Tool signing secret</h2>
          {newToolSecret ? (
            <Secret
              id="tool-secret"
              value={newToolSecret.value}
              warning={
                newToolSecret.why === "rotated"
                  ? "The new secret. Copy it now: it is not shown again. Your tool servers verify requests with it from now on."
                  : "The agent's tool signing secret, made with its tools. Copy it now: it is not shown again. Your tool servers verify requests with it."
              }
            />
          ) : (
            <p class="small muted">Every request to the agent's tools is signed with it. A new one replaces it at once.</p>
          )}
          <button type="submit" class="secondary">
            Rotate the secret
          </button>
        </form>
      ) : null}
      {agent ? (
        <form method="post" action={`/dashboard/agents/${agent.id}/delete`} data-confirm={`Delete the agent "${agent.name}"?`} class="card">
          <Csrf token={shell.csrf} />
          <p class="mt0">Deleting an agent keeps its calls (they show its name).</p>
          <button type="submit" class="danger">
            Delete agent
          </button>
        </form>
      ) : null}
      <InlineScript nonce={shell.nonce} js={AGENT_FORM_JS} />
    </Layout>
  );
};
