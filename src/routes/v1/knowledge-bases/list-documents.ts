import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { listDocuments, toDocumentView } from "../../../knowledge/documents";
import { documentPageSchema, listDocumentsQuerySchema } from "../../../knowledge/schema";
import { bearerSecurity, errorResponses, idParam, jsonResponse } from "../../../lib/openapi";
import { TAG } from "./shared";

export const listDocumentsRoute = createRoute({
  method: "get",
  path: "/knowledge-bases/{id}/documents",
  tags: TAG,
  operationId: "listKnowledgeDocuments",
  summary: "List a knowledge base's documents",
  description: "Newest first, with each one's status and progress. See docs/pagination.md for the cursor contract.",
  security: bearerSecurity,
  request: { params: idParam("Knowledge base"), query: listDocumentsQuerySchema },
  responses: { 200: jsonResponse(documentPageSchema, "A page of documents."), ...errorResponses(400, 404) },
});

export const registerListDocuments = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(listDocumentsRoute, async (c) => {
    const page = await listDocuments({ ctx: c.var.ctx, input: { knowledgeBaseId: c.req.valid("param").id, ...c.req.valid("query") } });
    return c.json({ ...page, data: page.data.map(toDocumentView) }, 200);
  });
