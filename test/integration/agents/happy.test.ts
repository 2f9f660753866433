// Agents: create, list, get, update, delete, pagination and filters, each on its own workspace.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createWorkspace, expectError, type Workspace } from "../../support/harness";

interface Agent {
  id: string;
  name: string;
  personaId: string;
  systemPrompt: string;
  firstMessage: string | null;
  language: string;
  voiceId: string | null;
  llmModel: string;
  temperature: number;
  maxDurationSeconds: number;
  silenceTimeoutSeconds: number;
  endCallPhrases: string[];
  metadata: Record<string, unknown>;
  analysisPlan: {
    summaryEnabled: boolean;
    successCriteria: string[];
    extractionFields: Array<{ name: string; type: string; description: string; choices?: string[] }>;
  };
  turnTaking: Record<string, unknown>;
  tools: Array<Record<string, unknown>>;
  voicemail: { detection: string; message: string | null };
  liveVersion: number;
  latestVersion: number;
  hasDraft: boolean;
  toolSecret: string | null;
  createdAt: string;
  updatedAt: string;
}
interface Page<T> {
  data: T[];
  nextCursor: string | null;
  hasMore: boolean;
}

const SYSTEM_VOICE = "00000000-0000-7000-8000-000000000003"; // Coral, seeded by drizzle/0001
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const body = async <T>(res: Response, status: number): Promise<T> => {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  return JSON.parse(text) as T;
};

async function createAgent(ws: Workspace, json: Record<string, unknown> = {}): Promise<Agent> {
  const res = await ws.api("/v1/agents", { method: "POST", json: { name: "Agent", personaId: randomUUID(), ...json } });
  return masked(await body<Agent>(res, 201));
}

/** The tool signing secret is in full in the create response only; every later read masks it (docs/tools.md). */
const masked = (a: Agent): Agent => ({ ...a, toolSecret: a.toolSecret ? `tss_...${a.toolSecret.slice(-6)}` : null });

async function createVoice(ws: Workspace): Promise<{ id: string }> {
  const json = { name: "Mine", provider: "sandbox", providerVoiceId: "sandbox-1", language: "en-US" };
  return body<{ id: string }>(await ws.api("/v1/voices", { method: "POST", json }), 201);
}

const list = async (ws: Workspace, query = "") => body<Page<Agent>>(await ws.api(`/v1/agents${query}`), 200);

describe("POST /v1/agents", () => {
  it("creates an agent from the two required fields, filling every default", async () => {
    const ws = await createWorkspace();
    const personaId = randomUUID();
    const before = Date.now();
    const res = await ws.api("/v1/agents", { method: "POST", json: { name: "  Front desk  ", personaId } });
    const agent = await body<Agent>(res, 201);

    expect(res.headers.get("location")).toBe(`/v1/agents/${agent.id}`);
    expect(agent.id).toMatch(UUID_V7);
    expect(agent).toEqual({
      id: agent.id,
      name: "Front desk",
      personaId,
      systemPrompt: "",
      firstMessage: null,
      language: "en-US",
      voiceId: null,
      llmModel: "gpt-4o-mini",
      temperature: 0.7,
      maxDurationSeconds: 600,
      silenceTimeoutSeconds: 30,
      endCallPhrases: ["goodbye"],
      metadata: {},
      analysisPlan: { summaryEnabled: true, successCriteria: [], extractionFields: [] },
      turnTaking: { eagerness: "normal", minWaitMs: null, maxWaitMs: null, interruptionMinWords: 1, interruptionMinMs: null },
      tools: [],
      knowledge: { knowledgeBaseIds: [], topK: 3, maxDistance: null, retrieval: "every_turn" },
      voicemail: { detection: "off", message: null },
      liveVersion: 1,
      latestVersion: 1,
      hasDraft: false,
      toolSecret: expect.stringMatching(/^tss_[A-Za-z0-9]{40}$/),
      createdAt: agent.createdAt,
      updatedAt: agent.createdAt,
    });
    expect(new Date(agent.createdAt).toISOString()).toBe(agent.createdAt);
    expect(Date.parse(agent.createdAt)).toBeGreaterThanOrEqual(before - 5_000);
  });

  it("stores every field as sent and returns it from GET unchanged", async () => {
    const ws = await createWorkspace();
    const owned = await createVoice(ws);
    const input = {
      name: "Réception 🎧 接待 مكتب الاستقبال",
      personaId: randomUUID(),
      systemPrompt: "You are the front desk.\nBe brief.\t😀",
      firstMessage: "Grüezi! 👋",
      language: "de-CH",
      voiceId: owned.id,
      llmModel: "openai/gpt-4o",
      temperature: 0,
      maxDurationSeconds: 7200,
      silenceTimeoutSeconds: 5,
      endCallPhrases: ["auf Wiederhören", "再见"],
      analysisPlan: {
        summaryEnabled: false,
        successCriteria: ["Booked an appointment"],
        extractionFields: [
          { name: "visit_type", type: "enum", description: "New or existing patient", choices: ["new", "existing"] },
          { name: "age", type: "number", description: "Caller's age" },
          { name: "_insured", type: "boolean", description: "Has insurance" },
        ],
      },
      turnTaking: { eagerness: "patient", minWaitMs: 0, maxWaitMs: 10_000, interruptionMinWords: 10, interruptionMinMs: 5_000 },
      voicemail: { detection: "leave-message", message: "Hi {{customer}}, please call us back. 📞" },
    };
    // Written as raw JSON: an object literal cannot carry an own "__proto__" key.
    const metadataJson = '{"crm":{"id":"A-1","tags":["vip",1,true,null]},"ключ":"значение","__proto__":"kept"}';
    const raw = `${JSON.stringify(input).slice(0, -1)},"metadata":${metadataJson}}`;
    const res = await ws.api("/v1/agents", { method: "POST", body: raw, headers: { "content-type": "application/json" } });
    const created = masked(await body<Agent>(res, 201));
    expect(created).toMatchObject(input);
    expect(created.metadata).toEqual(JSON.parse(metadataJson));
    expect(Object.keys(created.metadata).sort()).toEqual(["__proto__", "crm", "ключ"]);

    const fetched = await body<Agent>(await ws.api(`/v1/agents/${created.id}`), 200);
    expect(fetched).toEqual(created);
  });

  it("canonicalises the case of the language tag", async () => {
    const ws = await createWorkspace();
    expect((await createAgent(ws, { language: "EN-us" })).language).toBe("en-US");
    expect((await createAgent(ws, { language: "zh-hant-tw" })).language).toBe("zh-Hant-TW");
    expect((await createAgent(ws, { language: "es-419" })).language).toBe("es-419");
  });

  it("returns a personaId sent in upper case in lower case", async () => {
    const ws = await createWorkspace();
    const personaId = randomUUID();
    expect((await createAgent(ws, { personaId: personaId.toUpperCase() })).personaId).toBe(personaId);
  });

  it("accepts a system voice and an owned voice", async () => {
    const ws = await createWorkspace();
    expect((await createAgent(ws, { voiceId: SYSTEM_VOICE })).voiceId).toBe(SYSTEM_VOICE);
    const owned = await createVoice(ws);
    expect((await createAgent(ws, { voiceId: owned.id })).voiceId).toBe(owned.id);
  });

  it("counts length in characters, so 200 emoji are a valid name", async () => {
    const ws = await createWorkspace();
    const name = "👩🏽".repeat(100); // 200 code points, 400 UTF-16 units
    expect((await createAgent(ws, { name })).name).toBe(name);
  });

  it("accepts metadata of exactly 50 keys", async () => {
    const ws = await createWorkspace();
    const metadata = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i]));
    expect((await createAgent(ws, { metadata })).metadata).toEqual(metadata);
  });
});

describe("GET /v1/agents", () => {
  it("lists only this workspace's agents, newest first", async () => {
    const [ws, other] = await Promise.all([createWorkspace(), createWorkspace()]);
    const a = await createAgent(ws, { name: "a" });
    const b = await createAgent(ws, { name: "b" });
    const c = await createAgent(ws, { name: "c" });
    await createAgent(other, { name: "theirs" });

    const page = await list(ws);
    expect(page.data.map((x) => x.id)).toEqual([c.id, b.id, a.id]);
    expect(page.data[0]).toEqual(c);
    expect(page).toMatchObject({ hasMore: false, nextCursor: null });
  });

  it("answers an empty page for a workspace without agents", async () => {
    const ws = await createWorkspace();
    expect(await list(ws)).toEqual({ data: [], nextCursor: null, hasMore: false });
  });

  it("walks every agent with limit and cursor: no duplicates, no gaps", async () => {
    const ws = await createWorkspace();
    const created: Agent[] = [];
    for (let i = 0; i < 7; i++) created.push(await createAgent(ws, { name: `agent ${i}` }));
    const expected = created.map((a) => a.id).reverse();

    const seen: string[] = [];
    const sizes: number[] = [];
    let cursor: string | null = null;
    do {
      const page: Page<Agent> = await list(ws, `?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      sizes.push(page.data.length);
      seen.push(...page.data.map((a) => a.id));
      expect(page.hasMore).toBe(page.nextCursor !== null);
      cursor = page.nextCursor;
    } while (cursor);

    expect(sizes).toEqual([3, 3, 1]);
    expect(seen).toEqual(expected);
  });

  it("says hasMore false on a page that ends exactly at the last agent", async () => {
    const ws = await createWorkspace();
    for (let i = 0; i < 2; i++) await createAgent(ws);
    expect(await list(ws, "?limit=2")).toMatchObject({ hasMore: false, nextCursor: null });
    const first = await list(ws, "?limit=1");
    expect(first.hasMore).toBe(true);
    expect(typeof first.nextCursor).toBe("string");
  });

  it("accepts limits 1 and 100", async () => {
    const ws = await createWorkspace();
    await createAgent(ws);
    expect((await list(ws, "?limit=1")).data).toHaveLength(1);
    expect((await list(ws, "?limit=100")).data).toHaveLength(1);
  });

  it("filters by createdAfter and createdBefore (both exclusive)", async () => {
    const ws = await createWorkspace();
    const a = await createAgent(ws, { name: "a" });
    await new Promise((r) => setTimeout(r, 5));
    const b = await createAgent(ws, { name: "b" });
    await new Promise((r) => setTimeout(r, 5));
    const c = await createAgent(ws, { name: "c" });

    const after = await list(ws, `?createdAfter=${encodeURIComponent(a.createdAt)}`);
    expect(after.data.map((x) => x.id)).toEqual([c.id, b.id]);
    const before = await list(ws, `?createdBefore=${encodeURIComponent(c.createdAt)}`);
    expect(before.data.map((x) => x.id)).toEqual([b.id, a.id]);
    const between = await list(ws, `?createdAfter=${encodeURIComponent(a.createdAt)}&createdBefore=${encodeURIComponent(c.createdAt)}`);
    expect(between.data.map((x) => x.id)).toEqual([b.id]);
    // An offset form of the same instant works too.
    const offset = new Date(Date.parse(a.createdAt)).toISOString().replace("Z", "+00:00");
    expect((await list(ws, `?createdAfter=${encodeURIComponent(offset)}`)).data.map((x) => x.id)).toEqual([c.id, b.id]);
  });

  it("keeps a filter across pages", async () => {
    const ws = await createWorkspace();
    const a = await createAgent(ws, { name: "a" });
    await new Promise((r) => setTimeout(r, 5));
    const kept: string[] = [];
    for (let i = 0; i < 3; i++) kept.push((await createAgent(ws)).id);
    const q = `createdAfter=${encodeURIComponent(a.createdAt)}&limit=2`;
    const p1 = await list(ws, `?${q}`);
    const p2 = await list(ws, `?${q}&cursor=${p1.nextCursor}`);
    expect([...p1.data, ...p2.data].map((x) => x.id)).toEqual(kept.reverse());
    expect(p2.hasMore).toBe(false);
  });

  it("filters by name (case-insensitive substring; % and _ are literal)", async () => {
    const ws = await createWorkspace();
    const desk = await createAgent(ws, { name: "Front Desk" });
    const deskToo = await createAgent(ws, { name: "night desk 接待" });
    await createAgent(ws, { name: "Sales" });
    const pct = await createAgent(ws, { name: "100% sales_bot" });

    expect((await list(ws, "?name=DESK")).data.map((x) => x.id)).toEqual([deskToo.id, desk.id]);
    expect((await list(ws, `?name=${encodeURIComponent("接待")}`)).data.map((x) => x.id)).toEqual([deskToo.id]);
    expect((await list(ws, `?name=${encodeURIComponent("%")}`)).data.map((x) => x.id)).toEqual([pct.id]);
    // As LIKE wildcards these would match "100% sales_bot"; taken literally they do not.
    expect((await list(ws, `?name=${encodeURIComponent("0%s")}`)).data).toEqual([]);
    expect((await list(ws, "?name=sale_")).data).toEqual([]);
    expect((await list(ws, "?name=s_bot")).data.map((x) => x.id)).toEqual([pct.id]);
  });

  it("filters by voiceId", async () => {
    const ws = await createWorkspace();
    const withVoice = await createAgent(ws, { voiceId: SYSTEM_VOICE });
    await createAgent(ws);
    expect((await list(ws, `?voiceId=${SYSTEM_VOICE}`)).data.map((x) => x.id)).toEqual([withVoice.id]);
  });
});

describe("PATCH /v1/agents/{id}", () => {
  it("changes only the fields sent and bumps updatedAt", async () => {
    const ws = await createWorkspace();
    const agent = await createAgent(ws, { firstMessage: "Hello", voiceId: SYSTEM_VOICE, metadata: { a: 1 } });
    await new Promise((r) => setTimeout(r, 5));
    const res = await ws.api(`/v1/agents/${agent.id}`, { method: "PATCH", json: { name: " Renamed ✨ ", temperature: 1.5 } });
    const updated = await body<Agent>(res, 200);

    // A change is a new version, live at once (docs/agents.md, "Versions").
    expect(updated).toEqual({
      ...agent,
      name: "Renamed ✨",
      temperature: 1.5,
      liveVersion: 2,
      latestVersion: 2,
      updatedAt: updated.updatedAt,
    });
    expect(Date.parse(updated.updatedAt)).toBeGreaterThan(Date.parse(agent.updatedAt));
    expect(await body<Agent>(await ws.api(`/v1/agents/${agent.id}`), 200)).toEqual(updated);
  });

  it("clears firstMessage and voiceId with null, and replaces metadata whole", async () => {
    const ws = await createWorkspace();
    const agent = await createAgent(ws, { firstMessage: "Hello", voiceId: SYSTEM_VOICE, metadata: { a: 1, b: 2 } });
    const json = { firstMessage: null, voiceId: null, metadata: { c: 3 } };
    const updated = await body<Agent>(await ws.api(`/v1/agents/${agent.id}`, { method: "PATCH", json }), 200);
    expect(updated).toMatchObject(json);
    const cleared = await body<Agent>(await ws.api(`/v1/agents/${agent.id}`, { method: "PATCH", json: { metadata: {} } }), 200);
    expect(cleared.metadata).toEqual({});
  });

  it("merges analysisPlan sub-fields: those sent replace, the others are kept", async () => {
    const ws = await createWorkspace();
    const agent = await createAgent(ws, {
      analysisPlan: {
        summaryEnabled: true,
        successCriteria: ["one"],
        extractionFields: [{ name: "x", type: "string", description: "x" }],
      },
    });
    const res = await ws.api(`/v1/agents/${agent.id}`, { method: "PATCH", json: { analysisPlan: { summaryEnabled: false } } });
    expect((await body<Agent>(res, 200)).analysisPlan).toEqual({ ...agent.analysisPlan, summaryEnabled: false });

    const res2 = await ws.api(`/v1/agents/${agent.id}`, { method: "PATCH", json: { analysisPlan: { successCriteria: [] } } });
    expect((await body<Agent>(res2, 200)).analysisPlan).toEqual({
      summaryEnabled: false,
      successCriteria: [],
      extractionFields: [{ name: "x", type: "string", description: "x" }],
    });
  });

  it("merges turnTaking sub-fields: those sent replace (null back to the deployment's), the others are kept", async () => {
    const ws = await createWorkspace();
    const agent = await createAgent(ws, { turnTaking: { eagerness: "eager", maxWaitMs: 1_500, interruptionMinMs: 400 } });
    expect(agent.turnTaking).toEqual({
      eagerness: "eager",
      minWaitMs: null,
      maxWaitMs: 1_500,
      interruptionMinWords: 1,
      interruptionMinMs: 400,
    });
    const patch = (turnTaking: unknown) => ws.api(`/v1/agents/${agent.id}`, { method: "PATCH", json: { turnTaking } });
    expect((await body<Agent>(await patch({ interruptionMinWords: 2, interruptionMinMs: null }), 200)).turnTaking).toEqual({
      eagerness: "eager",
      minWaitMs: null,
      maxWaitMs: 1_500,
      interruptionMinWords: 2,
      interruptionMinMs: null,
    });
    const fetched = await body<Agent>(await ws.api(`/v1/agents/${agent.id}`), 200);
    expect(fetched.turnTaking).toMatchObject({ eagerness: "eager", interruptionMinWords: 2 });
  });

  it("replaces the voicemail plan whole: a message may stay with hang-up, and off clears nothing else", async () => {
    const ws = await createWorkspace();
    const agent = await createAgent(ws, { voicemail: { detection: "hang-up" } });
    expect(agent.voicemail).toEqual({ detection: "hang-up", message: null });
    const patch = (voicemail: unknown) => ws.api(`/v1/agents/${agent.id}`, { method: "PATCH", json: { voicemail } });
    const leave = { detection: "leave-message", message: "  Hi {{name}}, call us back.  " };
    expect((await body<Agent>(await patch(leave), 200)).voicemail).toEqual({
      detection: "leave-message",
      message: "Hi {{name}}, call us back.",
    });
    expect((await body<Agent>(await patch({ detection: "off" }), 200)).voicemail).toEqual({ detection: "off", message: null });
    const fetched = await body<Agent>(await ws.api(`/v1/agents/${agent.id}`), 200);
    expect(fetched.voicemail).toEqual({ detection: "off", message: null });
  });

  it("sets an owned voice", async () => {
    const ws = await createWorkspace();
    const agent = await createAgent(ws);
    const voice = await createVoice(ws);
    const updated = await body<Agent>(await ws.api(`/v1/agents/${agent.id}`, { method: "PATCH", json: { voiceId: voice.id } }), 200);
    expect(updated.voiceId).toBe(voice.id);
  });

  it("by another workspace answers 404 and changes nothing", async () => {
    const [ws, other] = await Promise.all([createWorkspace(), createWorkspace()]);
    const agent = await createAgent(ws, { name: "Mine" });
    const res = await other.api(`/v1/agents/${agent.id}`, { method: "PATCH", json: { name: "Stolen" } });
    const foreign = await expectError(res, 404, "not_found");
    const missing = await expectError(
      await other.api(`/v1/agents/${randomUUID()}`, { method: "PATCH", json: { name: "x" } }),
      404,
      "not_found",
    );
    expect(foreign.message).toBe(missing.message);
    expect(await body<Agent>(await ws.api(`/v1/agents/${agent.id}`), 200)).toEqual(agent);
  });
});

describe("DELETE /v1/agents/{id}", () => {
  it("deletes: 204 with no body, then 404 on GET, PATCH and a second DELETE", async () => {
    const ws = await createWorkspace();
    const keep = await createAgent(ws, { name: "keep" });
    const agent = await createAgent(ws, { name: "gone" });
    const res = await ws.api(`/v1/agents/${agent.id}`, { method: "DELETE" });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe("");

    await expectError(await ws.api(`/v1/agents/${agent.id}`), 404, "not_found");
    await expectError(await ws.api(`/v1/agents/${agent.id}`, { method: "PATCH", json: { name: "x" } }), 404, "not_found");
    await expectError(await ws.api(`/v1/agents/${agent.id}`, { method: "DELETE" }), 404, "not_found");
    expect((await list(ws)).data.map((a) => a.id)).toEqual([keep.id]);
  });

  it("by another workspace answers 404 and deletes nothing", async () => {
    const [ws, other] = await Promise.all([createWorkspace(), createWorkspace()]);
    const agent = await createAgent(ws);
    await expectError(await other.api(`/v1/agents/${agent.id}`, { method: "DELETE" }), 404, "not_found");
    expect(await body<Agent>(await ws.api(`/v1/agents/${agent.id}`), 200)).toEqual(agent);
  });
});

describe("GET /v1/agents/{id}", () => {
  it("answers another workspace's agent exactly like a missing one", async () => {
    const [ws, other] = await Promise.all([createWorkspace(), createWorkspace()]);
    const agent = await createAgent(ws);
    const foreign = await expectError(await other.api(`/v1/agents/${agent.id}`), 404, "not_found");
    const missing = await expectError(await other.api(`/v1/agents/${randomUUID()}`), 404, "not_found");
    expect({ ...foreign, requestId: "" }).toEqual({ ...missing, requestId: "" });
  });
});
