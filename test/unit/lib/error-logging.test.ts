// Unexpected errors are logged by their root cause only: the query parameters drizzle puts in
// its wrapper's message (signing secrets, hashes, payloads) never reach the logs.
import { DrizzleQueryError } from "drizzle-orm/errors";
import { Hono } from "hono";
import { requestId } from "hono/request-id";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiError, handleError } from "../../../src/lib/errors";

const secret = "whs_0123456789abcdefghijABCDEFGHIJklmnopqrst";

function appThrowing(err: Error) {
  const app = new Hono();
  app.use("*", requestId());
  app.onError(handleError);
  app.get("/", () => {
    throw err;
  });
  return app;
}

afterEach(() => vi.restoreAllMocks());

describe("error logging", () => {
  it("logs the root cause of a failed query, never its parameters, and answers 500 in the one body", async () => {
    const logged: string[] = [];
    vi.spyOn(console, "error").mockImplementation((line: string) => logged.push(line));
    const cause = Object.assign(new Error('duplicate key value violates unique constraint "x"'), { code: "23505" });
    const res = await appThrowing(new DrizzleQueryError('insert into "webhook_endpoints" ("secret") values ($1)', [secret], cause)).request(
      "/",
    );
    expect(res.status).toBe(500);
    const body = (await res.json()) as { code: string; message: string };
    expect(body.code).toBe("internal_error");
    expect(JSON.stringify(body)).not.toContain(secret);
    expect(logged).toHaveLength(1);
    expect(logged[0]).not.toContain(secret);
    expect(JSON.parse(logged[0] ?? "{}")).toMatchObject({
      level: "error",
      code: "23505",
      message: expect.stringContaining("duplicate key"),
    });
  });

  it("answers 503 when the database is unreachable, even behind a query wrapper", async () => {
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    const cause = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
    const res = await appThrowing(new DrizzleQueryError("select 1", [secret], cause)).request("/");
    expect(res.status).toBe(503);
    expect(((await res.json()) as { code: string }).code).toBe("service_unavailable");
    expect(res.headers.get("retry-after")).toBe("2"); // transient: when to come back
  });

  it("sends Retry-After only with transient errors, not with a 503 of configuration or a 500", async () => {
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    const notConfigured = await appThrowing(new ApiError("telephony_unavailable", "Phone calls are not configured.")).request("/");
    expect(notConfigured.status).toBe(503);
    expect(notConfigured.headers.get("retry-after")).toBeNull();
    const failed = await appThrowing(new Error("boom")).request("/");
    expect(failed.status).toBe(500);
    expect(failed.headers.get("retry-after")).toBeNull();
  });
});
