import { describe, expect, it } from "vitest";
import { type Bindings, parseEnv } from "../../src/env";
import { ApiError } from "../../src/lib/errors";

const good: Bindings = {
  DATABASE_URL: "postgres://u:p@db.example/x",
  DATABASE_WS_PROXY: undefined,
  UPSTASH_REDIS_REST_URL: "https://redis.example",
  UPSTASH_REDIS_REST_TOKEN: "tok",
  SECRETS_KEK: `k1:${btoa("0123456789abcdef0123456789abcdef")}`,
  RATE_LIMIT_REQUESTS: undefined,
  RATE_LIMIT_WINDOW: undefined,
  SESSION_TTL_HOURS: undefined,
};

describe("worker configuration", () => {
  it("applies defaults", () => {
    const cfg = parseEnv({ ...good });
    expect(cfg.RATE_LIMIT_REQUESTS).toBe(600);
    expect(cfg.RATE_LIMIT_WINDOW).toBe("60 s");
    expect(cfg.SESSION_TTL_HOURS).toBe(168);
  });

  it("names the bad variables and never echoes their values", () => {
    const secret = "super-secret-token-value";
    const bad = { ...good, DATABASE_URL: `not a url ${secret}`, UPSTASH_REDIS_REST_TOKEN: "", RATE_LIMIT_WINDOW: `soon ${secret}` };
    try {
      parseEnv(bad);
      expect.unreachable("parseEnv accepted a bad configuration");
    } catch (err) {
      expect(err).toBeInstanceOf(ApiError);
      const e = err as ApiError;
      expect(e.code).toBe("misconfigured");
      expect(e.message).toContain("DATABASE_URL");
      expect(e.message).toContain("UPSTASH_REDIS_REST_TOKEN");
      expect(e.message).toContain("RATE_LIMIT_WINDOW");
      expect(e.message).not.toContain(secret);
    }
  });

  it("requires SECRETS_KEK and refuses a malformed one without echoing it", () => {
    const { SECRETS_KEK: _kek, ...without } = good;
    expect(() => parseEnv(without)).toThrow(/SECRETS_KEK/);
    const short = `k1:${btoa("too short")}`;
    try {
      parseEnv({ ...good, SECRETS_KEK: short });
      expect.unreachable("parseEnv accepted a short key");
    } catch (err) {
      expect((err as ApiError).message).toBe("The deployment's configuration is invalid: check SECRETS_KEK.");
    }
    expect(parseEnv({ ...good }).SECRETS_KEK.current).toBe("k1");
  });

  it("refuses a non-numeric rate limit", () => {
    expect(() => parseEnv({ ...good, RATE_LIMIT_REQUESTS: "lots" })).toThrow(/RATE_LIMIT_REQUESTS/);
  });
});
