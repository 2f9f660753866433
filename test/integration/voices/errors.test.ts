// Voices: read-only system voices, tenancy, and validation.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createWorkspace, expectError, json, type Workspace } from "../../support/harness";

const ALLOY = "00000000-0000-7000-8000-000000000001";
const valid = { name: "Clara", provider: "sandbox", providerVoiceId: "sandbox-1", language: "en-US" };

const post = (ws: Workspace, json: unknown) => ws.api("/v1/voices", { method: "POST", json });

async function refused(ws: Workspace, json: unknown, path: string) {
  const err = await expectError(await post(ws, json), 400, "validation_failed");
  expect(
    err.issues?.map((i) => i.path),
    err.message,
  ).toContain(path);
  return err;
}

async function createVoice(ws: Workspace): Promise<Record<string, unknown> & { id: string }> {
  const res = await post(ws, valid);
  expect(res.status).toBe(201);
  return json<Record<string, unknown> & { id: string }>(res);
}

const ownedCount = async (ws: Workspace) => (await json<{ data: unknown[] }>(await ws.api("/v1/voices?type=owned"))).data.length;

describe("system voices are read-only", () => {
  it("PATCH answers 409 read_only and changes nothing", async () => {
    const ws = await createWorkspace();
    const before = await (await ws.api(`/v1/voices/${ALLOY}`)).json();
    const err = await expectError(await ws.api(`/v1/voices/${ALLOY}`, { method: "PATCH", json: { name: "Mine now" } }), 409, "read_only");
    expect(err.message).toMatch(/system voice/i);
    expect(err.error).toBe("Conflict");
    expect(await (await ws.api(`/v1/voices/${ALLOY}`)).json()).toEqual(before);
  });

  it("DELETE answers 409 read_only and deletes nothing", async () => {
    const ws = await createWorkspace();
    const err = await expectError(await ws.api(`/v1/voices/${ALLOY}`, { method: "DELETE" }), 409, "read_only");
    expect(err.message).toMatch(/cannot be deleted/);
    const res = await ws.api(`/v1/voices/${ALLOY}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: ALLOY, type: "system" });
  });
});

describe("another workspace's voice", () => {
  it("answers 404 like a missing one on GET, PATCH and DELETE, and changes nothing", async () => {
    const [ws, other] = await Promise.all([createWorkspace(), createWorkspace()]);
    const voice = await createVoice(ws);
    for (const [method, json] of [
      ["GET", undefined],
      ["PATCH", { name: "Stolen" }],
      ["DELETE", undefined],
    ] as const) {
      const init = { method, ...(json ? { json } : {}) };
      const foreign = await expectError(await other.api(`/v1/voices/${voice.id}`, init), 404, "not_found");
      const missing = await expectError(await other.api(`/v1/voices/${randomUUID()}`, init), 404, "not_found");
      expect({ ...foreign, requestId: "" }).toEqual({ ...missing, requestId: "" });
    }
    expect(await (await ws.api(`/v1/voices/${voice.id}`)).json()).toEqual(voice);
    const theirList = await json<{ data: Array<{ id: string }> }>(await other.api("/v1/voices?limit=100"));
    expect(theirList.data.map((v) => v.id)).not.toContain(voice.id);
  });
});

describe("POST /v1/voices refuses", () => {
  it("missing required fields, naming each", async () => {
    const ws = await createWorkspace();
    const err = await expectError(await post(ws, {}), 400, "validation_failed");
    expect(err.issues?.map((i) => i.path).sort()).toEqual(["language", "name", "provider", "providerVoiceId"]);
    expect(await ownedCount(ws)).toBe(0);
  });

  it("wrong types, unknown fields and bad values", async () => {
    const ws = await createWorkspace();
    await refused(ws, { ...valid, name: 1 }, "name");
    await refused(ws, { ...valid, name: " " }, "name");
    await refused(ws, { ...valid, name: "n".repeat(101) }, "name");
    await refused(ws, { ...valid, name: "a\u0000" }, "name");
    await refused(ws, { ...valid, provider: "acme" }, "provider");
    await refused(ws, { ...valid, provider: "OpenAI" }, "provider");
    await refused(ws, { ...valid, providerVoiceId: "" }, "providerVoiceId");
    await refused(ws, { ...valid, providerVoiceId: "v".repeat(201) }, "providerVoiceId");
    await refused(ws, { ...valid, language: "English" }, "language");
    await refused(ws, { ...valid, gender: "other" }, "gender");
    await refused(ws, { ...valid, description: "d".repeat(501) }, "description");
    await refused(ws, { ...valid, type: "system" }, "(root)");
    await refused(ws, { ...valid, organizationId: randomUUID() }, "(root)");
    expect(await ownedCount(ws)).toBe(0);
  });

  it("a previewUrl that is not an https URL", async () => {
    const ws = await createWorkspace();
    for (const previewUrl of [
      "http://cdn.example.com/a.mp3",
      "javascript:alert(1)",
      "ftp://x.example/a",
      "not a url",
      `https://x.example/${"a".repeat(2048)}`,
    ]) {
      await refused(ws, { ...valid, previewUrl }, "previewUrl");
    }
    expect(await ownedCount(ws)).toBe(0);
  });

  it("wrong Content-Type (415), malformed JSON (400) and a body over 256 KB (413)", async () => {
    const ws = await createWorkspace();
    const text = await ws.api("/v1/voices", { method: "POST", body: JSON.stringify(valid), headers: { "content-type": "text/plain" } });
    await expectError(text, 415, "unsupported_media_type");
    const broken = await ws.api("/v1/voices", { method: "POST", body: '{"name":', headers: { "content-type": "application/json" } });
    await expectError(broken, 400, "invalid_json");
    await expectError(await post(ws, { ...valid, description: "x".repeat(300 * 1024) }), 413, "payload_too_large");
    expect(await ownedCount(ws)).toBe(0);
  });
});

describe("PATCH /v1/voices/{id} refuses", () => {
  it("an empty patch, unknown fields, null for required fields, and bad values", async () => {
    const ws = await createWorkspace();
    const voice = await createVoice(ws);
    const patch = (json: unknown) => ws.api(`/v1/voices/${voice.id}`, { method: "PATCH", json });
    for (const [json, path] of [
      [{ name: null }, "name"],
      [{ provider: null }, "provider"],
      [{ language: "en_US" }, "language"],
      [{ previewUrl: "http://x.example/a.mp3" }, "previewUrl"],
      [{ type: "system" }, "(root)"],
    ] as const) {
      const err = await expectError(await patch(json), 400, "validation_failed");
      expect(err.issues?.map((i) => i.path)).toContain(path);
    }
    const empty = await expectError(await patch({}), 400, "validation_failed");
    expect(empty.message).toContain("at least one field");
    expect(await (await ws.api(`/v1/voices/${voice.id}`)).json()).toEqual(voice);
  });

  it("a system voice with an invalid body: validation comes first (400)", async () => {
    const ws = await createWorkspace();
    await expectError(await ws.api(`/v1/voices/${ALLOY}`, { method: "PATCH", json: { nope: 1 } }), 400, "validation_failed");
  });
});

describe("ids and listing", () => {
  it("an id that is not a UUID (400), or does not exist (404)", async () => {
    const ws = await createWorkspace();
    for (const method of ["GET", "PATCH", "DELETE"]) {
      const init = { method, ...(method === "PATCH" ? { json: { name: "x" } } : {}) };
      await expectError(await ws.api("/v1/voices/alloy", init), 400, "validation_failed");
      await expectError(await ws.api(`/v1/voices/${randomUUID()}`, init), 404, "not_found");
    }
  });

  it("list parameters out of range, unknown or malformed", async () => {
    const ws = await createWorkspace();
    for (const query of ["limit=0", "limit=101", "type=mine", "provider=acme", "language=english", "createdAfter=now", "sort=asc"]) {
      await expectError(await ws.api(`/v1/voices?${query}`), 400, "validation_failed");
    }
    await expectError(await ws.api("/v1/voices?cursor=garbage"), 400, "bad_request");
  });
});
