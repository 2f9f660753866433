// The public surface: no credential. /health (no I/O: the benchmark's baseline), the OpenAPI
// document and reference page, the built-in test receiver (an endpoint's capture token in the
// URL) and QStash's callbacks (Upstash-Signature verified). Absolute paths, no middleware of its own.
import type { OpenAPIHono } from "@hono/zod-openapi";
import { type AppEnv, createRouter } from "../../context";
import { registerDocs } from "./docs";
import { registerQstashRoutes } from "./qstash";
import { registerTestReceiver } from "./test-receiver";

/** `root` is the whole app, whose OpenAPI document /v1/openapi.json serves. */
export function publicRoutes(root: OpenAPIHono<AppEnv>) {
  const router = createRouter();
  registerDocs(router, root);
  registerTestReceiver(router);
  registerQstashRoutes(router);
  return router;
}
