import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { deleteDocument } from "../../../knowledge/documents";
import { bearerSecurity, errorResponses } from "../../../lib/openapi";
import { documentParams, TAG } from "./shared";

export const deleteDocumentRoute = createRoute({
  method: "delete",
  path: "/knowledge-bases/{id}/documents/{documentId}",
  tags: TAG,
  operationId: "deleteKnowledgeDocument",
  summary: "Delete a document and its passages",
  description: "At once: its passages are no longer found. One being processed stops.",
  security: bearerSecurity,
  request: { params: documentParams },
  responses: { 204: { description: "Deleted." }, ...errorResponses(400, 404) },
});

export const registerDeleteDocument = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(deleteDocumentRoute, async (c) => {
    const { id, documentId } = c.req.valid("param");
    await deleteDocument({ ctx: c.var.ctx, input: { knowledgeBaseId: id, id: documentId } });
    return c.body(null, 204);
  });
