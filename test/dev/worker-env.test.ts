// `npm run dev` passes the worker every variable of its configuration that is set in the
// environment (dev/worker-env.ts). The list is the worker's schema; README's configuration table
// documents the same list, so neither can drift from the other.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { isSecret, STACK_VARIABLES, shownValue, WORKER_VARIABLES, workerEnvironment } from "../../dev/worker-env";

/** The variables named in the first column of README's worker configuration table. */
function readmeVariables(): string[] {
  const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
  const section = readme.slice(readme.indexOf("## Configuration"));
  const table = section.slice(0, section.indexOf("\n\n", section.indexOf("| variable |")));
  const names: string[] = [];
  for (const row of table.split("\n").filter((l) => l.startsWith("| `"))) {
    const first = row.split("|")[1] ?? "";
    for (const m of first.matchAll(/`([A-Z0-9_]+)`/g)) names.push(m[1] as string);
  }
  return names;
}

describe("the worker's variables", () => {
  it("are the ones README's configuration table documents, no more and no fewer", () => {
    const documented = readmeVariables();
    expect(documented.length).toBeGreaterThan(20);
    expect(
      WORKER_VARIABLES.filter((v) => !documented.includes(v)),
      "in src/env.ts, missing from README",
    ).toEqual([]);
    expect(
      documented.filter((v) => !(WORKER_VARIABLES as string[]).includes(v)),
      "in README, not in src/env.ts",
    ).toEqual([]);
  });

  it("are taken from the environment when set, checked by the worker's own rules", () => {
    const env = {
      RATE_LIMIT_REQUESTS: "20",
      RATE_LIMIT_WINDOW: "10 s",
      ELEVENLABS_API_KEY: "  sk_secret  ",
      DEFAULT_CHAT_MODEL: "",
      PATH: "/usr/bin",
    };
    const { vars, ignored, invalid } = workerEnvironment(env);
    expect(vars).toEqual({ RATE_LIMIT_REQUESTS: "20", RATE_LIMIT_WINDOW: "10 s", ELEVENLABS_API_KEY: "sk_secret" });
    expect(ignored).toEqual([]);
    expect(invalid).toEqual([]);
  });

  it("leave the stack's own stand-ins alone, and refuse a bad value by name without echoing it", () => {
    const { vars, ignored, invalid } = workerEnvironment(
      {
        UPSTASH_REDIS_REST_URL: "https://example.upstash.io",
        DATABASE_WS_PROXY: "127.0.0.1:1",
        RATE_LIMIT_WINDOW: "soon-ish",
        TWILIO_FROM_NUMBERS: "+15005550006,12345",
        DATABASE_URL: "postgres://u:p@h/db",
      },
      ["DATABASE_URL"],
    );
    expect(vars).toEqual({});
    expect(ignored).toEqual(expect.arrayContaining(["UPSTASH_REDIS_REST_URL", "DATABASE_WS_PROXY"]));
    expect(ignored.every((v) => STACK_VARIABLES.includes(v))).toBe(true);
    expect(invalid.map((v) => v.name)).toEqual(["RATE_LIMIT_WINDOW", "TWILIO_FROM_NUMBERS"]);
    expect(JSON.stringify(invalid)).not.toContain("soon-ish");
    expect(JSON.stringify(invalid)).not.toContain("12345");
  });

  it("are shown without the value of any secret, and URLs without their password", () => {
    for (const name of [
      "OPENAI_API_KEY",
      "ELEVENLABS_API_KEY",
      "TWILIO_AUTH_TOKEN",
      "UPSTASH_REDIS_REST_TOKEN",
      "QSTASH_TOKEN",
      "QSTASH_CURRENT_SIGNING_KEY",
      "OTEL_EXPORTER_OTLP_HEADERS",
    ]) {
      expect(isSecret(name), name).toBe(true);
      expect(shownValue(name, "value-that-must-not-show")).toBe("(set, hidden)");
    }
    expect(shownValue("RATE_LIMIT_WINDOW", "10 s")).toBe("10 s");
    expect(shownValue("ELEVENLABS_BASE_URL", "https://user:pw@el.example")).toBe("https://user:****@el.example/");
  });
});
