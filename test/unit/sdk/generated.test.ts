// The SDK's generated types are the OpenAPI document's of today: a route schema changed without
// `npm run sdk:generate` fails here (and in .ci/run's `npm run sdk:check`).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { GENERATED, generateSdkTypes } from "../../../dev/generate-sdk-types";

describe("SDK generated types", () => {
  it("match what the routes generate now", async () => {
    const fresh = await generateSdkTypes();
    expect(fresh).toContain("export interface paths");
    expect(fresh).toContain('"/v1/agents/{id}/calls"');
    // Not toEqual on the whole text: a 9 000-line diff helps nobody; the command does.
    const upToDate = readFileSync(GENERATED, "utf8") === fresh;
    expect(upToDate, "packages/sdk/src/generated/openapi.ts is stale: run npm run sdk:generate").toBe(true);
  }, 60_000);
});
