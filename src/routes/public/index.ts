// The public surface: no credential. /health (no I/O: the benchmark's baseline), the OpenAPI
// document and reference page, the built-in test receiver (an endpoint's capture token in the
// URL) and QStash's callbacks (Upstash-Signature verified, qstash/). One file per operation;
// absolute paths, no middleware of its own.
import type { OpenAPIHono } from "@hono/zod-openapi";
import { type AppEnv, createRouter } from "../../context";
import { registerHealth } from "./health";
import { registerDocumentComponents, registerOpenApiDocument } from "./openapi";
import { registerQstashDeliver } from "./qstash/deliver";
import { registerQstashFailed } from "./qstash/failed";
import { registerQstashKnowledge } from "./qstash/knowledge";
import { registerReference } from "./reference";
import { registerTestReceiver } from "./test-receiver";

/** `root` is the whole app, whose OpenAPI document /v1/openapi.json serves. */
export function publicRoutes(root: OpenAPIHono<AppEnv>) {
  const router = createRouter();
  registerDocumentComponents(router, root);
  registerHealth(router);
  registerOpenApiDocument(router, root);
  registerReference(router, root);
  registerTestReceiver(router);
  registerQstashDeliver(router);
  registerQstashFailed(router);
  registerQstashKnowledge(router);
  return router;
}
