// Agents: every way a request can be refused, and that refusals leave no trace.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createWorkspace, expectError, json, type Workspace } from "../../support/harness";

const personaId = "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77";
const valid = { name: "Agent", personaId };

const post = (ws: Workspace, json: unknown) => ws.api("/v1/agents", { method: "POST", json });

/** Asserts a 400 validation_failed whose issues name `path`, and that nothing was created. */
async function refused(ws: Workspace, json: unknown, path: string) {
  const err = await expectError(await post(ws, json), 400, "validation_failed");
  expect(
    err.issues?.map((i) => i.path),
    err.message,
  ).toContain(path);
  expect(err.message).toContain(path);
  return err;
}

async function agentCount(ws: Workspace): Promise<number> {
  return (await json<{ data: unknown[] }>(await ws.api("/v1/agents?limit=100"))).data.length;
}

async function createAgent(ws: Workspace): Promise<{ id: string } & Record<string, unknown>> {
  const res = await post(ws, valid);
  expect(res.status).toBe(201);
  const agent = await json<{ id: string; toolSecret: string } & Record<string, unknown>>(res);
  // In full in the create response only; every later read shows it masked (docs/tools.md).
  return { ...agent, toolSecret: `tss_...${agent.toolSecret.slice(-6)}` };
}

describe("POST /v1/agents refuses", () => {
  it("missing required fields, naming each", async () => {
    const ws = await createWorkspace();
    const err = await expectError(await post(ws, {}), 400, "validation_failed");
    expect(err.issues?.map((i) => i.path).sort()).toEqual(["name", "personaId"]);
    await refused(ws, { name: "x" }, "personaId");
    await refused(ws, { personaId }, "name");
    expect(await agentCount(ws)).toBe(0);
  });

  it("a body that is not an object", async () => {
    const ws = await createWorkspace();
    for (const json of [[], "agent", 42, null]) await expectError(await post(ws, json), 400, "validation_failed");
  });

  it("wrong types", async () => {
    const ws = await createWorkspace();
    await refused(ws, { ...valid, name: 123 }, "name");
    await refused(ws, { ...valid, personaId: 5 }, "personaId");
    await refused(ws, { ...valid, temperature: "0.7" }, "temperature");
    await refused(ws, { ...valid, maxDurationSeconds: 60.5 }, "maxDurationSeconds");
    await refused(ws, { ...valid, silenceTimeoutSeconds: "30" }, "silenceTimeoutSeconds");
    await refused(ws, { ...valid, endCallPhrases: "bye" }, "endCallPhrases");
    await refused(ws, { ...valid, endCallPhrases: [1] }, "endCallPhrases.0");
    await refused(ws, { ...valid, metadata: [] }, "metadata");
    await refused(ws, { ...valid, metadata: "x" }, "metadata");
    await refused(ws, { ...valid, metadata: null }, "metadata");
    await refused(ws, { ...valid, firstMessage: 1 }, "firstMessage");
    await refused(ws, { ...valid, analysisPlan: { summaryEnabled: "yes" } }, "analysisPlan.summaryEnabled");
    await refused(ws, { ...valid, name: null }, "name");
    expect(await agentCount(ws)).toBe(0);
  });

  it("unknown fields, at the top and nested, instead of dropping them", async () => {
    const ws = await createWorkspace();
    const top = await refused(ws, { ...valid, voice: "alloy" }, "(root)");
    expect(top.message).toContain("voice");
    const nested = await refused(ws, { ...valid, analysisPlan: { summary: true } }, "analysisPlan");
    expect(nested.message).toContain("summary");
    await refused(
      ws,
      { ...valid, analysisPlan: { extractionFields: [{ name: "x", type: "string", description: "d", required: true }] } },
      "analysisPlan.extractionFields.0",
    );
    expect(await agentCount(ws)).toBe(0);
  });

  it("invalid UUIDs", async () => {
    const ws = await createWorkspace();
    await refused(ws, { ...valid, personaId: "not-a-uuid" }, "personaId");
    await refused(ws, { ...valid, personaId: `${personaId}0` }, "personaId");
    await refused(ws, { ...valid, voiceId: "alloy" }, "voiceId");
  });

  it("names that are empty, blank, too long or multi-line", async () => {
    const ws = await createWorkspace();
    await refused(ws, { ...valid, name: "" }, "name");
    await refused(ws, { ...valid, name: " \t " }, "name");
    await refused(ws, { ...valid, name: "a".repeat(201) }, "name");
    await refused(ws, { ...valid, name: "😀".repeat(201) }, "name");
    await refused(ws, { ...valid, name: "two\nlines" }, "name");
  });

  it("strings Postgres cannot store (NUL, lone surrogates) with a 400, not a 500", async () => {
    const ws = await createWorkspace();
    await refused(ws, { ...valid, name: "a\u0000b" }, "name");
    await refused(ws, { ...valid, systemPrompt: "a\u0000b" }, "systemPrompt");
    await refused(ws, { ...valid, name: "a\uD800b" }, "name");
    // Named down to the string (the input guard walks the whole body).
    await refused(ws, { ...valid, metadata: { k: "a\u0000b" } }, "metadata.k");
    await refused(ws, { ...valid, metadata: { "a\u0000": 1 } }, "metadata.a\uFFFD");
    await refused(ws, { ...valid, metadata: { deep: [{ x: "\uDC00" }] } }, "metadata.deep.0.x");
    expect(await agentCount(ws)).toBe(0);
  });

  it("oversize strings and arrays", async () => {
    const ws = await createWorkspace();
    await refused(ws, { ...valid, systemPrompt: "p".repeat(20_001) }, "systemPrompt");
    await refused(ws, { ...valid, firstMessage: "m".repeat(2_001) }, "firstMessage");
    await refused(ws, { ...valid, firstMessage: "" }, "firstMessage");
    await refused(ws, { ...valid, endCallPhrases: Array.from({ length: 21 }, (_, i) => `bye ${i}`) }, "endCallPhrases");
    await refused(ws, { ...valid, endCallPhrases: ["x".repeat(201)] }, "endCallPhrases.0");
    await refused(ws, { ...valid, endCallPhrases: [" "] }, "endCallPhrases.0");
    await refused(
      ws,
      { ...valid, analysisPlan: { successCriteria: Array.from({ length: 21 }, () => "c") } },
      "analysisPlan.successCriteria",
    );
    const fields = Array.from({ length: 31 }, (_, i) => ({ name: `f${i}`, type: "string", description: "d" }));
    await refused(ws, { ...valid, analysisPlan: { extractionFields: fields } }, "analysisPlan.extractionFields");
    // The limits themselves are accepted.
    const ok = await post(ws, { ...valid, systemPrompt: "p".repeat(20_000), firstMessage: "m".repeat(2_000) });
    expect(ok.status).toBe(201);
  });

  it("numbers out of range", async () => {
    const ws = await createWorkspace();
    for (const [field, bad] of [
      ["temperature", -0.1],
      ["temperature", 2.01],
      ["maxDurationSeconds", 9],
      ["maxDurationSeconds", 7_201],
      ["silenceTimeoutSeconds", 4],
      ["silenceTimeoutSeconds", 601],
    ] as const) {
      await refused(ws, { ...valid, [field]: bad }, field);
    }
    const edges = { temperature: 2, maxDurationSeconds: 10, silenceTimeoutSeconds: 600 };
    const res = await post(ws, { ...valid, ...edges });
    expect(await res.json()).toMatchObject(edges);
  });

  it("turn-taking settings out of range, of the wrong type, unknown, or waits in the wrong order", async () => {
    const ws = await createWorkspace();
    const turn = (turnTaking: unknown) => ({ ...valid, turnTaking });
    await refused(ws, turn({ eagerness: "hasty" }), "turnTaking.eagerness");
    await refused(ws, turn({ minWaitMs: -1 }), "turnTaking.minWaitMs");
    await refused(ws, turn({ minWaitMs: 2_001 }), "turnTaking.minWaitMs");
    await refused(ws, turn({ maxWaitMs: 499 }), "turnTaking.maxWaitMs");
    await refused(ws, turn({ maxWaitMs: 10_001 }), "turnTaking.maxWaitMs");
    await refused(ws, turn({ maxWaitMs: "1000" }), "turnTaking.maxWaitMs");
    await refused(ws, turn({ interruptionMinWords: 0 }), "turnTaking.interruptionMinWords");
    await refused(ws, turn({ interruptionMinWords: 1.5 }), "turnTaking.interruptionMinWords");
    await refused(ws, turn({ interruptionMinMs: 199 }), "turnTaking.interruptionMinMs");
    await refused(ws, turn({ endpointing: 300 }), "turnTaking");
    await refused(ws, turn("eager"), "turnTaking");
    const order = await refused(ws, turn({ minWaitMs: 900, maxWaitMs: 600 }), "turnTaking.minWaitMs");
    expect(order.message).toContain("maxWaitMs");
    expect(await agentCount(ws)).toBe(0);
    const agent = await createAgent(ws);
    const patched = await ws.api(`/v1/agents/${agent.id}`, { method: "PATCH", json: { turnTaking: { minWaitMs: 900, maxWaitMs: 600 } } });
    await expectError(patched, 400, "validation_failed");
  });

  it("a voicemail plan that leaves no message, leaves one too long, or names an unknown mode", async () => {
    const ws = await createWorkspace();
    const vm = (voicemail: unknown) => ({ ...valid, voicemail });
    const missing = await refused(ws, vm({ detection: "leave-message" }), "voicemail.message");
    expect(missing.message).toContain("leave-message");
    await refused(ws, vm({ detection: "leave-message", message: "   " }), "voicemail.message");
    await refused(ws, vm({ detection: "leave-message", message: "x".repeat(1_001) }), "voicemail.message");
    await refused(ws, vm({ detection: "screen" }), "voicemail.detection");
    await refused(ws, vm({ detection: "off", beep: true }), "voicemail");
    expect(await agentCount(ws)).toBe(0);
    const agent = await createAgent(ws);
    const plan = { detection: "leave-message", message: "Call us back." };
    expect((await ws.api(`/v1/agents/${agent.id}`, { method: "PATCH", json: { voicemail: plan } })).status).toBe(200);
    const patched = await ws.api(`/v1/agents/${agent.id}`, { method: "PATCH", json: { voicemail: { detection: "leave-message" } } });
    await expectError(patched, 400, "validation_failed");
    expect((await json<{ voicemail: unknown }>(await ws.api(`/v1/agents/${agent.id}`))).voicemail).toEqual({
      detection: "leave-message",
      message: "Call us back.",
    });
  });

  it("language tags that are not BCP 47", async () => {
    const ws = await createWorkspace();
    for (const language of ["english", "en_US", "e", "en-", "en-USA", "", "en-US-x-private"]) {
      await refused(ws, { ...valid, language }, "language");
    }
  });

  it("an llmModel that is not a model name", async () => {
    const ws = await createWorkspace();
    await refused(ws, { ...valid, llmModel: "" }, "llmModel");
    await refused(ws, { ...valid, llmModel: "gpt 4o" }, "llmModel");
    await refused(ws, { ...valid, llmModel: "m".repeat(101) }, "llmModel");
  });

  it("metadata over 50 keys, over 16 KB or nested too deep", async () => {
    const ws = await createWorkspace();
    const keys = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i]));
    expect((await refused(ws, { ...valid, metadata: keys }, "metadata")).message).toContain("50");
    const big = await refused(ws, { ...valid, metadata: { blob: "x".repeat(16 * 1024) } }, "metadata");
    expect(big.message).toContain("16384");
    // 16 KB counts UTF-8 bytes: 6,000 three-byte characters are 18,000 bytes.
    await refused(ws, { ...valid, metadata: { blob: "€".repeat(6_000) } }, "metadata");
    // Five levels of objects or arrays, counting metadata itself, and no more.
    await refused(ws, { ...valid, metadata: { a: { b: { c: { d: { e: { f: 1 } } } } } } }, "metadata");
    await refused(ws, { ...valid, metadata: { a: [[[[[1]]]]] } }, "metadata");
    expect((await post(ws, { ...valid, metadata: { a: { b: { c: { d: { e: 1 } } } } } })).status).toBe(201);
    expect((await post(ws, { ...valid, metadata: { a: [[[[1]]]] } })).status).toBe(201);
  });

  it("extraction fields that break their rules", async () => {
    const ws = await createWorkspace();
    const plan = (...extractionFields: unknown[]) => ({ ...valid, analysisPlan: { extractionFields } });
    await refused(ws, plan({ name: "status", type: "enum", description: "d" }), "analysisPlan.extractionFields.0.choices");
    await refused(ws, plan({ name: "age", type: "number", description: "d", choices: ["1"] }), "analysisPlan.extractionFields.0.choices");
    await refused(ws, plan({ name: "s", type: "enum", description: "d", choices: [] }), "analysisPlan.extractionFields.0.choices");
    await refused(ws, plan({ name: "s", type: "enum", description: "d", choices: ["a", "a"] }), "analysisPlan.extractionFields.0.choices");
    await refused(ws, plan({ name: "first name", type: "string", description: "d" }), "analysisPlan.extractionFields.0.name");
    await refused(ws, plan({ name: "1st", type: "string", description: "d" }), "analysisPlan.extractionFields.0.name");
    await refused(ws, plan({ name: "x", type: "date", description: "d" }), "analysisPlan.extractionFields.0.type");
    await refused(ws, plan({ name: "x", type: "string" }), "analysisPlan.extractionFields.0.description");
    await refused(
      ws,
      plan({ name: "x", type: "string", description: "d" }, { name: "x", type: "number", description: "e" }),
      "analysisPlan.extractionFields.1.name",
    );
    expect(await agentCount(ws)).toBe(0);
  });

  it("a voiceId that is missing or another workspace's, with the same answer", async () => {
    const [ws, other] = await Promise.all([createWorkspace(), createWorkspace()]);
    const res = await other.api("/v1/voices", {
      method: "POST",
      json: { name: "Theirs", provider: "sandbox", providerVoiceId: "v", language: "en" },
    });
    const theirs = (await json<{ id: string }>(res)).id;
    const foreign = await refused(ws, { ...valid, voiceId: theirs }, "voiceId");
    const missing = await refused(ws, { ...valid, voiceId: randomUUID() }, "voiceId");
    expect(foreign.message).toBe(missing.message);
    expect(foreign.issues).toEqual(missing.issues);
    expect(await agentCount(ws)).toBe(0);
  });

  it("a body over 256 KB (413)", async () => {
    const ws = await createWorkspace();
    await expectError(await post(ws, { ...valid, systemPrompt: "x".repeat(300 * 1024) }), 413, "payload_too_large");
  });

  it("a Content-Type other than JSON (415)", async () => {
    const ws = await createWorkspace();
    const res = await ws.api("/v1/agents", { method: "POST", body: JSON.stringify(valid), headers: { "content-type": "text/plain" } });
    await expectError(res, 415, "unsupported_media_type");
    const form = await ws.api("/v1/agents", {
      method: "POST",
      body: "name=a",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    await expectError(form, 415, "unsupported_media_type");
    expect(await agentCount(ws)).toBe(0);
  });

  it("malformed JSON (400 invalid_json)", async () => {
    const ws = await createWorkspace();
    for (const raw of ['{"name": "a",', "{name: 'a'}", "nope"]) {
      const res = await ws.api("/v1/agents", { method: "POST", body: raw, headers: { "content-type": "application/json" } });
      await expectError(res, 400, "invalid_json");
    }
  });

  it("a POST without a body (400)", async () => {
    const ws = await createWorkspace();
    const err = await expectError(await ws.api("/v1/agents", { method: "POST" }), 400, "validation_failed");
    expect(err.issues?.map((i) => i.path).sort()).toEqual(["name", "personaId"]);
  });
});

describe("GET, PATCH, DELETE /v1/agents/{id} refuse", () => {
  it("an id that is not a UUID (400) on every method", async () => {
    const ws = await createWorkspace();
    for (const method of ["GET", "PATCH", "DELETE"]) {
      const res = await ws.api("/v1/agents/not-a-uuid", { method, ...(method === "PATCH" ? { json: { name: "x" } } : {}) });
      const err = await expectError(res, 400, "validation_failed");
      expect(err.issues?.[0]?.path).toBe("id");
    }
  });

  it("an id that does not exist (404)", async () => {
    const ws = await createWorkspace();
    const id = randomUUID();
    await expectError(await ws.api(`/v1/agents/${id}`), 404, "not_found");
    await expectError(await ws.api(`/v1/agents/${id}`, { method: "PATCH", json: { name: "x" } }), 404, "not_found");
    await expectError(await ws.api(`/v1/agents/${id}`, { method: "DELETE" }), 404, "not_found");
  });
});

describe("PATCH /v1/agents/{id} validates like create", () => {
  it("refuses an empty patch, unknown fields, null for required fields, and bad values, changing nothing", async () => {
    const ws = await createWorkspace();
    const agent = await createAgent(ws);
    const patch = (json: unknown) => ws.api(`/v1/agents/${agent.id}`, { method: "PATCH", json });
    const cases: Array<[unknown, string]> = [
      [{ name: null }, "name"],
      [{ name: "" }, "name"],
      [{ personaId: null }, "personaId"],
      [{ temperature: 3 }, "temperature"],
      [{ language: "english" }, "language"],
      [{ metadata: null }, "metadata"],
      [{ endCallPhrases: null }, "endCallPhrases"],
      [{ analysisPlan: { extractionFields: [{ name: "s", type: "enum", description: "d" }] } }, "analysisPlan.extractionFields.0.choices"],
      [{ analysisPlan: { unknown: 1 } }, "analysisPlan"],
      [{ name: "ok", id: randomUUID() }, "(root)"],
      [{ createdAt: "2020-01-01T00:00:00Z" }, "(root)"],
      [{ voiceId: randomUUID() }, "voiceId"],
    ];
    for (const [json, path] of cases) {
      const err = await expectError(await patch(json), 400, "validation_failed");
      expect(
        err.issues?.map((i) => i.path),
        JSON.stringify(json),
      ).toContain(path);
    }
    const empty = await expectError(await patch({}), 400, "validation_failed");
    expect(empty.message).toContain("at least one field");
    const res = await ws.api(`/v1/agents/${agent.id}`);
    expect(await res.json()).toEqual(agent);
  });

  it("refuses another workspace's voice", async () => {
    const [ws, other] = await Promise.all([createWorkspace(), createWorkspace()]);
    const agent = await createAgent(ws);
    const res = await other.api("/v1/voices", {
      method: "POST",
      json: { name: "Theirs", provider: "sandbox", providerVoiceId: "v", language: "en" },
    });
    const theirs = (await json<{ id: string }>(res)).id;
    const err = await expectError(
      await ws.api(`/v1/agents/${agent.id}`, { method: "PATCH", json: { voiceId: theirs } }),
      400,
      "validation_failed",
    );
    expect(err.issues?.[0]?.path).toBe("voiceId");
  });

  it("refuses a wrong Content-Type and malformed JSON", async () => {
    const ws = await createWorkspace();
    const agent = await createAgent(ws);
    const url = `/v1/agents/${agent.id}`;
    await expectError(
      await ws.api(url, { method: "PATCH", body: "name=x", headers: { "content-type": "text/plain" } }),
      415,
      "unsupported_media_type",
    );
    await expectError(
      await ws.api(url, { method: "PATCH", body: "{", headers: { "content-type": "application/json" } }),
      400,
      "invalid_json",
    );
    await expectError(await ws.api(url, { method: "PATCH", json: { systemPrompt: "x".repeat(300 * 1024) } }), 413, "payload_too_large");
  });
});

describe("GET /v1/agents refuses", () => {
  it("limits outside 1..100 and non-numbers", async () => {
    const ws = await createWorkspace();
    for (const limit of ["0", "101", "-1", "abc", "1.5"]) {
      const err = await expectError(await ws.api(`/v1/agents?limit=${limit}`), 400, "validation_failed");
      expect(err.issues?.[0]?.path).toBe("limit");
    }
  });

  it("a cursor that is not one we issued (400 bad_request)", async () => {
    const ws = await createWorkspace();
    const forged = Buffer.from(JSON.stringify({ id: "x" })).toString("base64url");
    for (const cursor of ["garbage", "%%%", forged, "eyJ9"]) {
      await expectError(await ws.api(`/v1/agents?cursor=${encodeURIComponent(cursor)}`), 400, "bad_request");
    }
  });

  it("timestamps that are not ISO 8601, unknown parameters and bad filters", async () => {
    const ws = await createWorkspace();
    await expectError(await ws.api("/v1/agents?createdAfter=yesterday"), 400, "validation_failed");
    await expectError(await ws.api("/v1/agents?createdBefore=2025-13-01T00:00:00Z"), 400, "validation_failed");
    const typo = await expectError(await ws.api("/v1/agents?created_after=2025-01-01T00:00:00Z"), 400, "validation_failed");
    expect(typo.message).toContain("created_after");
    await expectError(await ws.api("/v1/agents?voiceId=alloy"), 400, "validation_failed");
    await expectError(await ws.api(`/v1/agents?name=${"n".repeat(201)}`), 400, "validation_failed");
  });
});
