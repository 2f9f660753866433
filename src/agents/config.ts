// An agent's configuration as a version keeps it (docs/agents.md, "Versions"): the snapshot of a
// row, a PATCH applied to a configuration, and what differs between two. No I/O here.
import { AGENT_CONFIG_KEYS, type Agent, type AgentConfig, type AgentConfigKey } from "../db/schema";
import type { UpdateAgentInput } from "./schema";

/** The row's whole configuration: every column but identity, tenancy, the secret, the counters and the timestamps. */
export function agentConfigOf(row: AgentConfig): AgentConfig {
  return Object.fromEntries(AGENT_CONFIG_KEYS.map((key) => [key, row[key]])) as AgentConfig;
}

const sentOnly = <T extends object>(value: T): Partial<T> =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;

/**
 * The agent as it was at a version: the row's identity and secret with that version's configuration
 * (a field added to agents after the version was made keeps the row's value).
 */
export const agentWithConfig = (row: Agent, config: AgentConfig): Agent => ({ ...row, ...sentOnly(agentConfigOf(config)) });

/**
 * `config` with a PATCH applied: the fields sent replace the current ones (`metadata`, `tools` and
 * `voicemail` whole), while `analysisPlan`, `turnTaking` and `knowledge` are merged key by key.
 */
export function applyAgentPatch(config: AgentConfig, input: UpdateAgentInput): AgentConfig {
  const { analysisPlan, turnTaking, knowledge, ...rest } = input;
  const next: AgentConfig = { ...config, ...sentOnly(rest) };
  if (analysisPlan) next.analysisPlan = { ...config.analysisPlan, ...sentOnly(analysisPlan) };
  if (turnTaking) next.turnTaking = { ...config.turnTaking, ...sentOnly(turnTaking) };
  if (knowledge) next.knowledge = { ...config.knowledge, ...sentOnly(knowledge) };
  return next;
}

/** JSON with object keys sorted: jsonb does not keep key order, so equal values compare equal. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** The top-level fields whose values differ, in the configuration's order. */
export function changedFields(before: AgentConfig, after: AgentConfig): AgentConfigKey[] {
  return AGENT_CONFIG_KEYS.filter((key) => canonical(before[key] ?? null) !== canonical(after[key] ?? null));
}

export interface FieldChange {
  field: AgentConfigKey;
  before: unknown;
  after: unknown;
}

/** Per changed field, its value before and after (arrays and objects whole). */
export const diffConfigs = (before: AgentConfig, after: AgentConfig): FieldChange[] =>
  changedFields(before, after).map((field) => ({ field, before: before[field] ?? null, after: after[field] ?? null }));
