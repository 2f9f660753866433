// The snapshot a version keeps, a PATCH applied to it, and the comparison of two (src/agents/config.ts).
import { describe, expect, it } from "vitest";
import { agentConfigOf, agentWithConfig, applyAgentPatch, changedFields, diffConfigs } from "../../../src/agents/config";
import { createAgentSchema, updateAgentSchema } from "../../../src/agents/schema";
import { AGENT_CONFIG_KEYS, type Agent, type AgentConfig } from "../../../src/db/schema";

const row: Agent = {
  id: "0193b6e2-0000-7000-8000-000000000001",
  organizationId: "0193b6e2-0000-7000-8000-000000000002",
  name: "Front desk",
  personaId: "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77",
  systemPrompt: "Be brief.",
  firstMessage: "Hi!",
  language: "en-US",
  voiceId: null,
  llmModel: "gpt-4o-mini",
  temperature: 0.7,
  maxDurationSeconds: 600,
  silenceTimeoutSeconds: 30,
  endCallPhrases: ["goodbye"],
  metadata: { crm: "A-1" },
  analysisPlan: { summaryEnabled: true, successCriteria: ["booked"], extractionFields: [] },
  turnTaking: { eagerness: "normal", minWaitMs: null, maxWaitMs: null, interruptionMinWords: 1, interruptionMinMs: null },
  tools: [{ type: "end_call", messages: {} }],
  knowledge: { knowledgeBaseIds: [], topK: 3, maxDistance: null, retrieval: "every_turn" },
  voicemail: { detection: "off", message: null },
  toolSecret: "sealed-secret",
  liveVersion: 2,
  latestVersion: 3,
  createdAt: new Date("2026-01-01T00:00:00Z"),
  updatedAt: new Date("2026-01-02T00:00:00Z"),
};

describe("agentConfigOf", () => {
  it("keeps exactly the fields a PATCH can change: a new editable field is versioned or this fails", () => {
    const editable = Object.keys(updateAgentSchema.shape).sort();
    expect([...AGENT_CONFIG_KEYS].sort()).toEqual(editable);
    expect(Object.keys(agentConfigOf(row)).sort()).toEqual(editable);
    // What create takes is what a version keeps, too.
    expect(Object.keys(createAgentSchema.shape).sort()).toEqual(editable);
  });

  it("leaves out identity, tenancy, the signing secret, the counters and the timestamps", () => {
    const config = agentConfigOf(row) as Record<string, unknown>;
    for (const key of ["id", "organizationId", "toolSecret", "liveVersion", "latestVersion", "createdAt", "updatedAt"]) {
      expect(config).not.toHaveProperty(key);
    }
    expect(config.systemPrompt).toBe("Be brief.");
  });

  it("puts a version's configuration on the agent's row, keeping its identity and secret", () => {
    const at = agentWithConfig(row, { ...agentConfigOf(row), systemPrompt: "Old prompt", temperature: 0.2 });
    expect(at).toEqual({ ...row, systemPrompt: "Old prompt", temperature: 0.2 });
  });

  it("keeps the row's value of a field a version made before it existed does not have", () => {
    const { voicemail: _, ...older } = agentConfigOf(row);
    const at = agentWithConfig({ ...row, voicemail: { detection: "hang-up", message: null } }, older as AgentConfig);
    expect(at.voicemail).toEqual({ detection: "hang-up", message: null });
  });
});

describe("applyAgentPatch", () => {
  const base = agentConfigOf(row);

  it("replaces the fields sent and merges the plans key by key", () => {
    const next = applyAgentPatch(base, {
      temperature: 0.2,
      firstMessage: null,
      metadata: {},
      analysisPlan: { summaryEnabled: false },
      turnTaking: { eagerness: "eager" },
      knowledge: { topK: 5 },
      voicemail: { detection: "hang-up", message: null },
    });
    expect(next).toEqual({
      ...base,
      temperature: 0.2,
      firstMessage: null,
      metadata: {},
      analysisPlan: { summaryEnabled: false, successCriteria: ["booked"], extractionFields: [] },
      turnTaking: { ...base.turnTaking, eagerness: "eager" },
      knowledge: { ...base.knowledge, topK: 5 },
      voicemail: { detection: "hang-up", message: null },
    });
    expect(base.temperature).toBe(0.7);
  });

  it("changes nothing for fields left out", () => {
    expect(applyAgentPatch(base, { name: "Front desk" })).toEqual(base);
  });
});

describe("changedFields and diffConfigs", () => {
  const base = agentConfigOf(row);

  it("lists the top-level fields that differ, in the configuration's order, with both values", () => {
    const after = { ...base, temperature: 0.1, name: "Desk", tools: [] };
    expect(changedFields(base, after)).toEqual(["name", "temperature", "tools"]);
    expect(diffConfigs(base, after)).toEqual([
      { field: "name", before: "Front desk", after: "Desk" },
      { field: "temperature", before: 0.7, after: 0.1 },
      { field: "tools", before: [{ type: "end_call", messages: {} }], after: [] },
    ]);
  });

  it("does not see a change in the order of an object's keys (jsonb keeps none)", () => {
    const reordered = {
      ...base,
      turnTaking: { interruptionMinMs: null, interruptionMinWords: 1, maxWaitMs: null, minWaitMs: null, eagerness: "normal" as const },
    };
    expect(changedFields(base, reordered)).toEqual([]);
    expect(changedFields(base, { ...base, endCallPhrases: ["bye", "goodbye"] })).toEqual(["endCallPhrases"]);
  });
});
