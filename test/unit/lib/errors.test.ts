import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ERRORS, reasonPhrase, renderErrorTable } from "../../../src/lib/errors";

describe("error table", () => {
  it("docs/errors.md carries the table rendered from the code, unchanged", () => {
    const doc = readFileSync(new URL("../../../docs/errors.md", import.meta.url), "utf8");
    expect(doc).toContain(renderErrorTable());
  });

  it("gives every code a status with a reason phrase", () => {
    for (const [code, { status }] of Object.entries(ERRORS)) {
      expect(reasonPhrase(status), code).not.toBe("Error");
    }
    expect(ERRORS.unauthorized.status).toBe(401);
    expect(reasonPhrase(401)).toBe("Unauthorized");
  });
});
