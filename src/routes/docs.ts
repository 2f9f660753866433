// The OpenAPI 3.1 document (from the routes' own zod schemas) and a reference page.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../context";

export const OPENAPI_PATH = "/v1/openapi.json";

export function registerDocs(app: OpenAPIHono<AppEnv>): void {
  app.openAPIRegistry.registerComponent("securitySchemes", "apiKey", {
    type: "http",
    scheme: "bearer",
    description: "An organization API key, `sk-live-…`, created in the dashboard.",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "session", {
    type: "apiKey",
    in: "cookie",
    name: "session",
    description: "The dashboard's session cookie (with `x-organization-id` to choose the organization).",
  });
  app.doc31(OPENAPI_PATH, (c) => ({
    openapi: "3.1.0",
    info: {
      title: "Voice and Chat Agent Platform API",
      version: "1.0.0",
      description: "Agents, calls, voices and the Models API under /v1. Errors share one body; see the Error schema.",
    },
    servers: [{ url: new URL(c.req.url).origin }],
  }));
  app.get("/docs", (c) =>
    c.html(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>API reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><script id="api-reference" data-url="${OPENAPI_PATH}"></script>
<script src="https://cdn.jsdelivr.net/npm/@scalar/api-reference"></script></body></html>`),
  );
}
