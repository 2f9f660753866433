/** @jsxImportSource hono/jsx */
// What the agent pages share: the form page (new, edit, and a refused create or update) with the
// voice choices, the page after a change that made the tool signing secret (shown once), and the
// ownership lookup (the API's own: agents/service.ts).
import type { Context } from "hono";
import { z } from "zod";
import { toAgent } from "../../../agents/mapper";
import { type Agent, getAgent, llmModelChoices, type SavedAgent, withToolSecret } from "../../../agents/service";
import { listAgentVersions } from "../../../agents/versions";
import { agentVersionField } from "../../../agents/versions-schema";
import type { AppEnv } from "../../../context";
import { type Values, valuesOf } from "../../../dashboard/agents/form";
import { EMPTY_TOOL, type ToolFormValues } from "../../../dashboard/agents/tool-form";
import { AgentForm, type NewToolSecret } from "../../../dashboard/agents/views";
import { agentVersionOf } from "../../../dashboard/forms";
import { type FieldErrors, shellOf } from "../../../dashboard/ui";
import { listKnowledgeBasesByName } from "../../../knowledge/service";
import { invalidInput } from "../../../lib/errors";
import { defaultVoiceId, listVoicesByName } from "../../../voices/service";

/** The voice select's options, and the voice the form's value names (the platform's default for ""), to hear it. */
async function voiceOptions(c: Context<AppEnv>, chosen: string) {
  const rows = await listVoicesByName({ ctx: c.var.ctx });
  const fallback = rows.find((v) => v.id === defaultVoiceId(c.var.config));
  const options = [
    { value: "", label: fallback ? `Platform default (now ${fallback.name}, ${fallback.provider})` : "Platform default voice" },
    ...rows.map((v) => ({ value: v.id, label: `${v.name} (${v.provider}${v.organizationId ? ", owned" : ", system"})` })),
  ];
  const heard = rows.find((v) => v.id === chosen) ?? (chosen === "" ? fallback : undefined);
  return {
    options,
    heard: heard ? { id: heard.id, name: heard.name } : null,
    fallback: fallback ? { id: fallback.id, name: fallback.name } : null,
  };
}

export interface FormExtras {
  notice?: string;
  /** A tool signing secret to show once: just made by a rotation, or with the agent's first tools. */
  newToolSecret?: NewToolSecret;
  /** The tool builder as typed (and its errors), or a tool being edited. */
  tool?: { values: ToolFormValues; errors: FieldErrors };
}

export async function renderForm(
  c: Context<AppEnv>,
  agent: Agent | null,
  values: Values,
  errors: FieldErrors = {},
  status: 200 | 400 = 200,
  { notice, newToolSecret, tool }: FormExtras = {},
) {
  const [shell, voices, models, knowledgeBases, versions] = await Promise.all([
    shellOf(c, agent ? `Agent: ${agent.name}` : "New agent", "agents"),
    voiceOptions(c, String(values.voiceId ?? "")),
    llmModelChoices({ ctx: c.var.ctx }),
    listKnowledgeBasesByName({ ctx: c.var.ctx }),
    agent ? listAgentVersions({ ctx: c.var.ctx, input: { agentId: agent.id, limit: 20 } }) : null,
  ]);
  return c.html(
    <AgentForm
      shell={shell}
      agent={agent}
      values={values}
      errors={errors}
      voices={voices.options}
      heardVoice={voices.heard}
      defaultVoice={voices.fallback}
      models={models}
      notice={notice}
      newToolSecret={newToolSecret}
      tool={tool ?? { values: EMPTY_TOOL, errors: {} }}
      knowledgeBases={knowledgeBases.map((b) => ({ id: b.id, name: b.name }))}
      versions={versions?.page.data ?? []}
    />,
    status,
  );
}

/**
 * After a change: when it made the tool signing secret (an agent created with tools, or given its
 * first ones), the agent's page with the secret in full, once, in this response (no-store, never in
 * a URL); otherwise a redirect to the page (`draft`: which flash it shows; `anchor`: where it lands).
 */
export async function afterSave(
  c: Context<AppEnv>,
  saved: SavedAgent,
  { draft = false, created = false, anchor = "" }: { draft?: boolean; created?: boolean; anchor?: string } = {},
) {
  if (saved.secretCreated && saved.toolSecret) {
    const masked = await withToolSecret({ ctx: c.var.ctx, input: saved.agent });
    const done = created ? "Agent created." : draft ? "Saved as a draft: not live until published." : "Agent saved.";
    return renderForm(c, saved.agent, valuesOf(toAgent(saved.agent, masked.toolSecret)), {}, 200, {
      notice: `${done} Its tool signing secret is shown once, under Tool signing secret: copy it now.`,
      newToolSecret: { value: saved.toolSecret, why: "created" },
    });
  }
  return c.redirect(`/dashboard/agents/${saved.agent.id}?saved=${draft ? "draft" : "1"}${anchor}`, 303);
}

export const ownAgent = (c: Context<AppEnv>, id: string): Promise<Agent> => getAgent({ ctx: c.var.ctx, input: { id } });

const triedVersion = z.object({ agentVersion: agentVersionField("The version tried; empty: the live one.").nullable() });

/** The version the "Try the agent" panel's call or chat runs: its `agentVersion` field, null (empty) for the live one. */
export function versionTried(c: Context<AppEnv>): number | null {
  const checked = triedVersion.safeParse({ agentVersion: agentVersionOf(c.var.form ?? {}) });
  if (!checked.success) throw invalidInput("form", checked.error.issues);
  return checked.data.agentVersion;
}
