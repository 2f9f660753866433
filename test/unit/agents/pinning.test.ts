// Which version runs (docs/agents.md, "What runs which version"): the version field of the bodies
// that name one, the dashboard's field, the live version taken without a read, and whether a chat
// runs what its widget or channel runs now.
import { describe, expect, it } from "vitest";
import { agentToRun, type RunnableAgent } from "../../../src/agents/versions";
import { agentVersionField } from "../../../src/agents/versions-schema";
import { runsCurrent } from "../../../src/chats/runtime";
import { agentVersionOf } from "../../../src/dashboard/forms";
import type { Db } from "../../../src/db/client";
import type { Agent } from "../../../src/db/schema";

const agent = { id: "a1", organizationId: "o1", liveVersion: 3, systemPrompt: "Live." } as Agent;
/** A database any read of which fails the test. */
const noReads = new Proxy({} as Db, {
  get() {
    throw new Error("the database was read");
  },
});

describe("agentVersionField", () => {
  const field = agentVersionField("v").nullable();
  it("takes an integer from 1, or null", () => {
    expect(field.parse(1)).toBe(1);
    expect(field.parse(2_147_483_647)).toBe(2_147_483_647);
    expect(field.parse(null)).toBeNull();
  });
  it("refuses 0, fractions, strings and numbers past Postgres' integer", () => {
    for (const bad of [0, -1, 1.5, "2", 2_147_483_648, Number.NaN]) expect(field.safeParse(bad).success, String(bad)).toBe(false);
    expect(field.safeParse("2").error?.issues[0]?.message).toBe("agentVersion must be a version number");
  });
});

describe("the dashboard's Agent version field", () => {
  it("is null when empty (the live version), a number otherwise", () => {
    expect(agentVersionOf({})).toBeNull();
    expect(agentVersionOf({ agentVersion: ["  "] })).toBeNull();
    expect(agentVersionOf({ agentVersion: [" 4 "] })).toBe(4);
    expect(agentVersionOf({ agentVersion: ["four"] })).toBeNaN();
  });
});

describe("agentToRun", () => {
  it("runs the live version without a read when none is named, or the live one is", async () => {
    for (const version of [undefined, null, 3]) {
      const run = await agentToRun({ ctx: { db: noReads }, input: { agent, version } });
      expect(run).toEqual({ agent, version: 3 });
    }
  });
  it("reads the version named otherwise", async () => {
    await expect(agentToRun({ ctx: { db: noReads }, input: { agent, version: 2 } })).rejects.toThrow("the database was read");
  });
});

describe("runsCurrent", () => {
  const live: RunnableAgent = { agent, version: 3 };
  const pinned: RunnableAgent = { agent, version: 2 };
  it("a chat of the same agent and version runs what its channel runs", () => {
    expect(runsCurrent({ agentId: "a1", agentVersion: 3 }, live)).toBe(true);
    expect(runsCurrent({ agentId: "a1", agentVersion: 2 }, pinned)).toBe(true);
  });
  it("a chat from before versions runs the live version", () => {
    expect(runsCurrent({ agentId: "a1", agentVersion: null }, live)).toBe(true);
    expect(runsCurrent({ agentId: "a1", agentVersion: null }, pinned)).toBe(false);
  });
  it("a chat started on another version or agent runs its own", () => {
    expect(runsCurrent({ agentId: "a1", agentVersion: 2 }, live)).toBe(false);
    expect(runsCurrent({ agentId: "a2", agentVersion: 3 }, live)).toBe(false);
  });
  it("a chat whose agent is gone runs what its channel runs", () => {
    expect(runsCurrent({ agentId: null, agentVersion: 2 }, live)).toBe(true);
  });
});
