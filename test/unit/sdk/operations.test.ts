// The SDK covers the API: every operation of the OpenAPI document that takes an API key is in
// the SDK's operation table with the same method and path, the table names nothing else, and
// each entry's SDK method exists on a client, is in the README's table of resources and is called
// by the SDK's integration tests (test/integration/sdk, against the real worker).
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { OPERATIONS, VoiceAgentPlatform } from "../../../packages/sdk/src/index";
import { createApp } from "../../../src/app";
import { openApiConfig } from "../../../src/routes/public/openapi";

const doc = createApp().getOpenAPI31Document(openApiConfig("http://localhost"));
const METHODS = ["get", "post", "put", "patch", "delete"] as const;

/** `operationId METHOD path` of every operation an API key can call. */
const documented = Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
  METHODS.flatMap((m) => {
    const op = (item as Record<string, { operationId?: string; security?: Array<Record<string, unknown>> } | undefined>)[m];
    if (!op?.security?.some((s) => "apiKey" in s)) return [];
    return [`${op.operationId} ${m.toUpperCase()} ${path}`];
  }),
);
const inSdk = Object.entries(OPERATIONS).map(([id, op]) => `${id} ${op.method} ${op.path}`);

describe("SDK operations", () => {
  it("finds the API-key operations in the document", () => {
    expect(documented.length).toBeGreaterThan(40);
  });

  it("calls every API-key operation of the document, with its method and path", () => {
    expect(documented.filter((o) => !inSdk.includes(o))).toEqual([]);
  });

  it("calls nothing the document does not list", () => {
    expect(inSdk.filter((o) => !documented.includes(o))).toEqual([]);
  });

  it("has a method on the client for each operation, each name used once", () => {
    const client = new VoiceAgentPlatform({ apiKey: "sk-live-x", baseURL: "http://127.0.0.1:1" });
    const resolve = (dotted: string) =>
      dotted.split(".").reduce<unknown>((obj, key) => (obj as Record<string, unknown> | undefined)?.[key], client);
    const names = Object.values(OPERATIONS).map((o) => o.sdk);
    expect(names.filter((n) => typeof resolve(n) !== "function")).toEqual([]);
    expect(new Set(names).size).toBe(names.length);
  });

  it("lists every method in the README's table of resources", () => {
    const readme = readFileSync(new URL("../../../packages/sdk/README.md", import.meta.url), "utf8");
    const rows = readme.split("\n").filter((line) => line.startsWith("| `client."));
    const missing = Object.values(OPERATIONS)
      .map((o) => o.sdk)
      .filter((sdk) => {
        const [resource, ...rest] = sdk.split(".");
        const method = rest.join(".");
        const row = rows.find((r) => r.includes(`\`client.${resource}\``));
        return !row || !(row.includes(`\`${method}\``) || row.includes(`\`${method}(`));
      });
    expect(missing).toEqual([]);
  });

  it("has each method called by the SDK's integration tests, against the real worker", () => {
    const dir = new URL("../../integration/sdk/", import.meta.url);
    const tests = readdirSync(dir)
      .filter((f) => f.endsWith(".test.ts"))
      .map((f) => readFileSync(new URL(f, dir), "utf8"))
      .join("\n");
    const uncalled = Object.values(OPERATIONS)
      .map((o) => o.sdk)
      .filter((sdk) => !tests.includes(`.${sdk}(`));
    expect(uncalled).toEqual([]);
  });
});
