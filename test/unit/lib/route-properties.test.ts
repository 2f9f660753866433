// Route properties (src/lib/route-properties.ts): declared on the route, never in the OpenAPI
// document; which routes read alongside the key check is read off the app, not off a list.
import { createRoute, z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/app";
import { createRouter } from "../../../src/context";
import { handlerReadsAlongside } from "../../../src/lib/route-properties";
import { openApiDocument } from "../../../src/routes/public/openapi";

const ok = { 200: { description: "ok", content: { "application/json": { schema: z.object({}) } } } };

describe("readsAlongsideTheKeyCheck", () => {
  it("is declared by exactly the API's read-only GETs (and the dashboard's usage, which sessions never run alongside)", () => {
    const app = createApp();
    const marked = app.routes.filter((r) => handlerReadsAlongside(r.handler)).map((r) => `${r.method} ${r.path}`);
    expect(marked.sort()).toEqual(
      [
        "GET /dashboard/api/usage",
        "GET /v1/agents",
        "GET /v1/agents/:id",
        "GET /v1/calls",
        "GET /v1/calls/:id",
        "GET /v1/chats",
        "GET /v1/chats/:id",
        "GET /v1/concurrency",
        "GET /v1/usage",
        "GET /v1/widgets",
        "GET /v1/widgets/:id",
      ].sort(),
    );
  });

  it("stays out of the OpenAPI document", () => {
    const text = JSON.stringify(openApiDocument(createApp(), "http://localhost"));
    expect(text).not.toContain("readsAlongside");
  });

  it("is refused on anything but a GET", () => {
    const router = createRouter();
    const post = createRoute({ method: "post", path: "/x", responses: ok, readsAlongsideTheKeyCheck: true });
    expect(() => router.openapi(post, (c) => c.json({}, 200))).toThrow(/only a GET may read alongside/);
  });

  it("marks only the handler of the route that declares it", async () => {
    const router = createRouter();
    const declared = (c: Parameters<Parameters<typeof router.openapi>[1]>[0]) => c.json({}, 200);
    const plain = (c: Parameters<Parameters<typeof router.openapi>[1]>[0]) => c.json({}, 200);
    router.openapi(createRoute({ method: "get", path: "/a", responses: ok, readsAlongsideTheKeyCheck: true }), declared);
    router.openapi(createRoute({ method: "get", path: "/b", responses: ok }), plain);
    expect(handlerReadsAlongside(declared)).toBe(true);
    expect(handlerReadsAlongside(plain)).toBe(false);
    expect(handlerReadsAlongside(undefined)).toBe(false);
  });
});
