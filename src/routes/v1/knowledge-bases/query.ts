import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { queryKnowledgeSchema, queryResultSchema } from "../../../knowledge/schema";
import { queryKnowledgeBase } from "../../../knowledge/search";
import { bearerSecurity, errorResponses, idParam, jsonBody, jsonResponse } from "../../../lib/openapi";
import { TAG } from "./shared";

export const queryKnowledgeBaseRoute = createRoute({
  method: "post",
  path: "/knowledge-bases/{id}/query",
  tags: TAG,
  operationId: "queryKnowledgeBase",
  summary: "Find the passages a question finds (for testing retrieval)",
  description:
    "The nearest passages of the knowledge base's ready documents to the question, nearest first, with their distance, score and document. " +
    "The question's embedding is metered like any embedding (`usage.tokens`).",
  security: bearerSecurity,
  request: { params: idParam("Knowledge base"), ...jsonBody(queryKnowledgeSchema) },
  responses: { 200: jsonResponse(queryResultSchema, "The passages found."), ...errorResponses(400, 402, 404, 502, 503, 504) },
});

export const registerQueryKnowledgeBase = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(queryKnowledgeBaseRoute, async (c) => {
    const { ctx } = c.var;
    const apiKeyId = ctx.actor.type === "api_key" ? ctx.actor.id : null;
    return c.json(await queryKnowledgeBase({ ctx, input: { id: c.req.valid("param").id, apiKeyId, ...c.req.valid("json") } }), 200);
  });
