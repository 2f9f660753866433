import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { getDocument, toDocumentView } from "../../../knowledge/documents";
import { documentSchema } from "../../../knowledge/schema";
import { bearerSecurity, errorResponses, jsonResponse } from "../../../lib/openapi";
import { documentParams, TAG } from "./shared";

export const getDocumentRoute = createRoute({
  method: "get",
  path: "/knowledge-bases/{id}/documents/{documentId}",
  tags: TAG,
  operationId: "getKnowledgeDocument",
  summary: "Get a document: its status, progress and passages count",
  security: bearerSecurity,
  request: { params: documentParams },
  responses: { 200: jsonResponse(documentSchema, "The document."), ...errorResponses(400, 404) },
});

export const registerGetDocument = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(getDocumentRoute, async (c) => {
    const { id, documentId } = c.req.valid("param");
    return c.json(toDocumentView(await getDocument({ ctx: c.var.ctx, input: { knowledgeBaseId: id, id: documentId } })), 200);
  });
