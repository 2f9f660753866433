import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { deleteKnowledgeBase } from "../../../knowledge/service";
import { bearerSecurity, errorResponses, idParam } from "../../../lib/openapi";
import { TAG } from "./shared";

export const deleteKnowledgeBaseRoute = createRoute({
  method: "delete",
  path: "/knowledge-bases/{id}",
  tags: TAG,
  operationId: "deleteKnowledgeBase",
  summary: "Delete a knowledge base, its documents and their passages",
  description: "At once; agents that linked it stop retrieving from it (their link is dropped).",
  security: bearerSecurity,
  request: { params: idParam("Knowledge base") },
  responses: { 204: { description: "Deleted." }, ...errorResponses(400, 404) },
});

export const registerDeleteKnowledgeBase = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(deleteKnowledgeBaseRoute, async (c) => {
    await deleteKnowledgeBase({ ctx: c.var.ctx, input: { id: c.req.valid("param").id } });
    return c.body(null, 204);
  });
