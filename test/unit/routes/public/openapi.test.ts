// The document's guard statuses come from the guards the app's router runs on each operation
// (src/routes/public/openapi.ts guardAnswersFor), and the contract the integration suite holds responses to
// (test/support/openapi.ts) rejects what the document does not allow.
import { describe, expect, it } from "vitest";
import { createApp } from "../../../../src/app";
import { bodyLimitFor } from "../../../../src/middleware/guards";
import { guardAnswersFor, openApiDocument } from "../../../../src/routes/public/openapi";
import { contractOf } from "../../../support/openapi";

const app = createApp();
const doc = openApiDocument(app, "http://localhost");
const contract = contractOf(doc);
const op = (path: string, method: string) =>
  (doc.paths?.[path] as Record<string, { responses: Record<string, { description: string }> }>)[method];
const AGENT_ID = "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77";
const errorBody = (statusCode: number, code: string) => ({ statusCode, error: "x", code, message: "m", requestId: "r" });

describe("guard statuses in the document", () => {
  it("follow the router: /v1 gets auth, rate limit, CSRF and its body types; public routes only the input guard", () => {
    const statuses = (method: string, path: string) => [...new Set(guardAnswersFor(app, method, path).map((a) => a.status))].sort();
    expect(statuses("post", "/v1/agents")).toEqual([400, 401, 403, 413, 415, 429, 503]);
    expect(statuses("get", "/v1/agents")).toEqual([400, 401, 403, 413, 429, 503]);
    expect(statuses("get", "/health")).toEqual([400, 413]);
    expect(statuses("post", "/v1/webhook-endpoints/{id}/test")).toContain(403);
    expect(() => guardAnswersFor(app, "get", "/v1/nothing-here")).toThrow(/does not route/);
  });

  it("state each route's own body limit and content types", () => {
    expect(op("/v1/stt", "post")?.responses["413"]?.description).toContain(String(bodyLimitFor("/v1/stt")));
    expect(op("/v1/agents/{id}", "get")?.responses["413"]?.description).toContain(String(bodyLimitFor("/v1/agents/:id")));
    expect(op("/v1/stt", "post")?.responses["415"]?.description).toContain("multipart/form-data");
    expect(op("/v1/widgets/{id}/rotate-token", "post")?.responses["415"]?.description).toContain("application/json");
  });

  it("describe every webhook event with security: [] and a payload", () => {
    expect(Object.keys(doc.webhooks ?? {})).toContain("call.completed");
    for (const item of Object.values(doc.webhooks ?? {})) {
      const post = (item as { post: { security: unknown[]; requestBody: unknown } }).post;
      expect(post.security).toEqual([]);
      expect(post.requestBody).toBeTruthy();
    }
  });
});

describe("the response contract", () => {
  it("finds the operation of a request path, and none for paths the document does not describe", () => {
    expect(contract.operationFor("GET", `/v1/agents/${AGENT_ID}`)).toBe("/v1/agents/{id}");
    expect(contract.operationFor("GET", "/v1/agents")).toBe("/v1/agents");
    expect(contract.operationFor("PUT", "/v1/agents")).toBeUndefined();
    expect(contract.operationFor("GET", "/dashboard/agents")).toBeUndefined();
  });

  it("accepts a documented status with its body, and rejects an undocumented status, a bad body, an unknown code", () => {
    expect(contract.checkResponse("GET", "/v1/agents/{id}", 404, errorBody(404, "not_found"))).toEqual([]);
    expect(contract.checkResponse("GET", "/v1/agents/{id}", 418, errorBody(418, "not_found"))[0]).toMatch(/lists no 418/);
    expect(contract.checkResponse("GET", "/v1/agents/{id}", 404, errorBody(404, "no_such_code"))).not.toEqual([]);
    expect(contract.checkResponse("GET", "/v1/agents/{id}", 404, { message: "m" })).not.toEqual([]);
    expect(contract.checkResponse("GET", "/v1/agents/{id}", 200, { id: "not-a-uuid" })).not.toEqual([]);
  });
});
