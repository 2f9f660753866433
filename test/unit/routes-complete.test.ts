// A route cannot skip the security table or the OpenAPI document: this fails when the app
// has a route missing from either, or the table names a route the app does not have.
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { OPENAPI_PATH, openApiDocument } from "../../src/routes/public/openapi";
import { ROUTES } from "../support/routes";

const app = createApp();
const key = (method: string, path: string) => `${method.toUpperCase()} ${path}`;
const appRoutes = [...new Set(app.routes.filter((r) => r.method !== "ALL").map((r) => key(r.method, r.path)))];
const doc = openApiDocument(app, "http://localhost");
const docRoutes = Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
  Object.keys(item as object)
    .filter((m) => ["get", "post", "put", "patch", "delete"].includes(m))
    .map((m) => key(m, path.replace(/\{(\w+)\}/g, ":$1"))),
);
const tableRoutes = ROUTES.map((r) => key(r.method, r.path));

describe("route completeness", () => {
  it("has routes at all", () => {
    expect(appRoutes.length).toBeGreaterThan(5);
  });

  it("lists every app route in the security table (test/support/routes.ts)", () => {
    expect(appRoutes.filter((r) => !tableRoutes.includes(r))).toEqual([]);
  });

  it("lists no route in the table that the app lacks", () => {
    expect(tableRoutes.filter((r) => !appRoutes.includes(r))).toEqual([]);
  });

  it("documents every app route in the OpenAPI document (except the document itself and the dashboard's HTML pages)", () => {
    const htmlPage = (r: string) => / \/dashboard(\/|$)/.test(r) && !r.includes(" /dashboard/api/");
    expect(appRoutes.filter((r) => r !== `GET ${OPENAPI_PATH}` && !htmlPage(r) && !docRoutes.includes(r))).toEqual([]);
  });

  it("gives every operation tags, an operationId and a summary", () => {
    const ops = Object.values(doc.paths ?? {}).flatMap((item) =>
      Object.values(item as Record<string, { tags?: string[]; operationId?: string; summary?: string }>),
    );
    for (const op of ops) {
      expect(op.tags?.length, JSON.stringify(op).slice(0, 80)).toBeGreaterThan(0);
      expect(op.operationId).toBeTruthy();
      expect(op.summary).toBeTruthy();
    }
    const ids = ops.map((o) => o.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("declares `security: []` on exactly the public operations, and a scheme on every other", () => {
    const documented = ROUTES.filter((r) => docRoutes.includes(key(r.method, r.path)));
    expect(documented.length).toBeGreaterThan(50);
    for (const r of documented) {
      const item = doc.paths?.[r.path.replace(/:(\w+)/g, "{$1}")] as Record<string, { security?: unknown[] }> | undefined;
      const security = item?.[r.method.toLowerCase()]?.security;
      if (r.auth === "public") expect(security, `${r.method} ${r.path}`).toEqual([]);
      else expect(security?.length, `${r.method} ${r.path}`).toBeGreaterThan(0);
    }
  });

  it("documents the one error body on every guarded operation", () => {
    const guarded = ROUTES.filter((r) => r.auth !== "public" && r.auth !== "page");
    for (const r of guarded) {
      const item = doc.paths?.[r.path.replace(/:(\w+)/g, "{$1}")] as Record<string, { responses?: Record<string, unknown> }> | undefined;
      const op = item?.[r.method.toLowerCase()];
      expect(op?.responses?.["401"], `${r.method} ${r.path} documents 401`).toBeTruthy();
    }
  });
});
