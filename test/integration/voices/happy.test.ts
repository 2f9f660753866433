// Voices: the system catalog every workspace sees, and a workspace's own voices.
import { describe, expect, it } from "vitest";
import { createWorkspace, expectError, type Workspace } from "../../support/harness";

interface Voice {
  id: string;
  type: "system" | "owned";
  name: string;
  provider: string;
  providerVoiceId: string;
  language: string;
  gender: string | null;
  previewUrl: string | null;
  description: string | null;
  available: boolean;
  createdAt: string;
  updatedAt: string;
}
interface Page<T> {
  data: T[];
  nextCursor: string | null;
  hasMore: boolean;
}

/** The seeded system voices (drizzle/0001_seed_system_voices.sql, 0015_cartesia_system_voices.sql), newest id first. */
const SYSTEM_IDS = Array.from({ length: 13 }, (_, i) => `00000000-0000-7000-8000-0000000000${String(13 - i).padStart(2, "0")}`);

const body = async <T>(res: Response, status: number): Promise<T> => {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  return JSON.parse(text) as T;
};

const base = { name: "Clara", provider: "elevenlabs", providerVoiceId: "21m00Tcm4TlvDq8ikWAM", language: "en-US" };

async function createVoice(ws: Workspace, json: Record<string, unknown> = {}): Promise<Voice> {
  return body<Voice>(await ws.api("/v1/voices", { method: "POST", json: { ...base, ...json } }), 201);
}

const list = (ws: Workspace, query = "") => ws.api(`/v1/voices${query}`).then((r) => body<Page<Voice>>(r, 200));

async function listAll(ws: Workspace, query = "", limit = 100): Promise<Voice[]> {
  const all: Voice[] = [];
  let cursor: string | null = null;
  do {
    const sep = query ? "&" : "";
    const page: Page<Voice> = await list(ws, `?${query}${sep}limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`);
    expect(page.hasMore).toBe(page.nextCursor !== null);
    all.push(...page.data);
    cursor = page.nextCursor;
  } while (cursor);
  return all;
}

describe("system voices", () => {
  it("are listed for every workspace, read-only, after the workspace's own", async () => {
    const [a, b] = await Promise.all([createWorkspace(), createWorkspace()]);
    const mine = await createVoice(a);
    const [systemA, systemB] = await Promise.all([listAll(a, "type=system"), listAll(b, "type=system")]);
    expect(systemA).toEqual(systemB);
    expect(systemA.map((v) => v.id)).toEqual(expect.arrayContaining(SYSTEM_IDS));
    expect(systemA.every((v) => v.type === "system")).toBe(true);
    expect((await listAll(a)).map((v) => v.id)).toEqual([mine.id, ...systemA.map((v) => v.id)]);
    expect((await listAll(b)).map((v) => v.id)).toEqual(systemB.map((v) => v.id));
    expect(await listAll(b, "type=owned")).toEqual([]);
  });

  it("can be fetched by id", async () => {
    const ws = await createWorkspace();
    const alloy = await body<Voice>(await ws.api("/v1/voices/00000000-0000-7000-8000-000000000001"), 200);
    expect(alloy).toMatchObject({
      id: "00000000-0000-7000-8000-000000000001",
      type: "system",
      name: "Alloy",
      provider: "openai",
      providerVoiceId: "alloy",
      language: "en",
      gender: "neutral",
    });
  });
});

describe("POST /v1/voices", () => {
  it("creates an owned voice with defaults for the optional fields", async () => {
    const ws = await createWorkspace();
    const res = await ws.api("/v1/voices", { method: "POST", json: { ...base, name: "  Clara  " } });
    const voice = await body<Voice>(res, 201);
    expect(res.headers.get("location")).toBe(`/v1/voices/${voice.id}`);
    expect(voice).toEqual({
      id: voice.id,
      type: "owned",
      name: "Clara",
      provider: "elevenlabs",
      providerVoiceId: "21m00Tcm4TlvDq8ikWAM",
      language: "en-US",
      gender: null,
      previewUrl: null,
      description: null,
      available: true, // the local stack's provider sandbox speaks ElevenLabs' API
      createdAt: voice.createdAt,
      updatedAt: voice.createdAt,
    });
    expect(await body<Voice>(await ws.api(`/v1/voices/${voice.id}`), 200)).toEqual(voice);
  });

  it("round-trips every field, unicode included", async () => {
    const ws = await createWorkspace();
    const input = {
      name: "صوت 🎙️ 声音",
      provider: "cartesia",
      providerVoiceId: "a0e99841-438c-4a64-b679-ae501e7d6091",
      language: "ar-EG",
      gender: "female",
      previewUrl: "https://cdn.example.com/voices/%E5%A3%B0.mp3?v=2",
      description: "Warm.\nUnhurried. ✨",
    };
    const voice = await createVoice(ws, input);
    expect(voice).toMatchObject({ ...input, type: "owned" });
    expect(await body<Voice>(await ws.api(`/v1/voices/${voice.id}`), 200)).toEqual(voice);
  });

  it("canonicalises the language tag", async () => {
    const ws = await createWorkspace();
    expect((await createVoice(ws, { language: "PT-br" })).language).toBe("pt-BR");
  });
});

describe("GET /v1/voices", () => {
  it("filters by type, provider and language", async () => {
    const ws = await createWorkspace();
    const system = await listAll(ws, "type=system");
    const ids = (voices: Voice[]) => voices.map((v) => v.id);
    const enUs = await createVoice(ws, { provider: "sandbox", language: "en-US" });
    const enGb = await createVoice(ws, { provider: "sandbox", language: "en-GB" });
    const de = await createVoice(ws, { provider: "openai", language: "de-DE" });

    expect(ids(await listAll(ws, "type=owned"))).toEqual([de.id, enGb.id, enUs.id]);
    expect(ids(await listAll(ws, "provider=sandbox"))).toEqual([enGb.id, enUs.id, ...ids(system.filter((v) => v.provider === "sandbox"))]);
    const elevenlabs = system.filter((v) => v.provider === "elevenlabs");
    expect(ids(elevenlabs)).toEqual(expect.arrayContaining(SYSTEM_IDS.slice(2, 4)));
    expect(ids(await listAll(ws, "provider=elevenlabs"))).toEqual(ids(elevenlabs));
    const cartesia = system.filter((v) => v.provider === "cartesia");
    expect(ids(cartesia)).toEqual(SYSTEM_IDS.slice(0, 2));
    expect(ids(await listAll(ws, "provider=cartesia"))).toEqual(ids(cartesia));
    expect(ids(await listAll(ws, "type=system&provider=openai"))).toEqual(ids(system.filter((v) => v.provider === "openai")));

    // `en` matches every English voice; `en-US` matches en-US and the generic `en`, not en-GB.
    const english = system.filter((v) => v.language === "en" || v.language.startsWith("en-"));
    expect(ids(english)).toEqual(expect.arrayContaining(SYSTEM_IDS)); // the seeded voices are tagged `en`
    expect(ids(await listAll(ws, "language=en"))).toEqual([enGb.id, enUs.id, ...ids(english)]);
    const usOrGeneric = english.filter((v) => v.language === "en" || v.language === "en-US");
    expect(ids(await listAll(ws, "language=en-us"))).toEqual([enUs.id, ...ids(usOrGeneric)]);
    expect(ids(await listAll(ws, "type=owned&language=de"))).toEqual([de.id]);
    expect(await listAll(ws, "type=owned&language=fr")).toEqual([]);
    expect(ids(await listAll(ws, "type=owned&provider=openai&language=de-DE"))).toEqual([de.id]);
  });

  it("walks owned and system voices with limit and cursor: no duplicates, no gaps", async () => {
    const ws = await createWorkspace();
    const system = await listAll(ws, "type=system");
    const owned: string[] = [];
    for (let i = 0; i < 4; i++) owned.unshift((await createVoice(ws, { name: `v${i}` })).id);
    const walked = await listAll(ws, "", 4);
    expect(walked.map((v) => v.id)).toEqual([...owned, ...system.map((v) => v.id)]);
    expect(new Set(walked.map((v) => v.id)).size).toBe(walked.length);
    const first = await list(ws, "?limit=4");
    expect(first.data.map((v) => v.id)).toEqual(owned);
    expect(first.hasMore).toBe(true);
  });

  it("filters by createdAfter", async () => {
    const ws = await createWorkspace();
    const a = await createVoice(ws);
    await new Promise((r) => setTimeout(r, 5));
    const b = await createVoice(ws);
    const page = await list(ws, `?createdAfter=${encodeURIComponent(a.createdAt)}`);
    expect(page.data.map((v) => v.id)).toEqual([b.id]);
  });
});

describe("PATCH /v1/voices/{id}", () => {
  it("changes only the fields sent; null clears the optional ones", async () => {
    const ws = await createWorkspace();
    const voice = await createVoice(ws, { gender: "male", previewUrl: "https://x.example/a.mp3", description: "d" });
    await new Promise((r) => setTimeout(r, 5));
    const json = { name: "Renamed 🎧", gender: null, previewUrl: null, language: "en-gb" };
    const updated = await body<Voice>(await ws.api(`/v1/voices/${voice.id}`, { method: "PATCH", json }), 200);
    expect(updated).toEqual({ ...voice, ...json, language: "en-GB", updatedAt: updated.updatedAt });
    expect(Date.parse(updated.updatedAt)).toBeGreaterThan(Date.parse(voice.updatedAt));
    expect(await body<Voice>(await ws.api(`/v1/voices/${voice.id}`), 200)).toEqual(updated);
  });
});

describe("DELETE /v1/voices/{id}", () => {
  it("deletes an owned voice; agents that used it get voiceId null", async () => {
    const ws = await createWorkspace();
    const voice = await createVoice(ws);
    const agentRes = await ws.api("/v1/agents", {
      method: "POST",
      json: { name: "Uses the voice", personaId: "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77", voiceId: voice.id },
    });
    const agent = await body<{ id: string; voiceId: string | null; updatedAt: string }>(agentRes, 201);
    expect(agent.voiceId).toBe(voice.id);

    const res = await ws.api(`/v1/voices/${voice.id}`, { method: "DELETE" });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe("");
    await expectError(await ws.api(`/v1/voices/${voice.id}`), 404, "not_found");
    await expectError(await ws.api(`/v1/voices/${voice.id}`, { method: "DELETE" }), 404, "not_found");
    expect((await listAll(ws, "type=owned")).length).toBe(0);

    const after = await body<{ voiceId: string | null; updatedAt: string }>(await ws.api(`/v1/agents/${agent.id}`), 200);
    expect(after.voiceId).toBeNull();
    expect(after.updatedAt).toBe(agent.updatedAt);
  });
});
