import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { createKnowledgeBaseSchema, knowledgeBaseSchema } from "../../../knowledge/schema";
import { createKnowledgeBase, toKnowledgeBaseView } from "../../../knowledge/service";
import { bearerSecurity, errorResponses, jsonBody, jsonResponse } from "../../../lib/openapi";
import { TAG } from "./shared";

export const createKnowledgeBaseRoute = createRoute({
  method: "post",
  path: "/knowledge-bases",
  tags: TAG,
  operationId: "createKnowledgeBase",
  summary: "Create a knowledge base",
  description: "An empty knowledge base; add documents to it, then link it to agents (`knowledge.knowledgeBaseIds`).",
  security: bearerSecurity,
  request: jsonBody(createKnowledgeBaseSchema),
  responses: { 201: jsonResponse(knowledgeBaseSchema, "The created knowledge base."), ...errorResponses(400) },
});

export const registerCreateKnowledgeBase = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(createKnowledgeBaseRoute, async (c) => {
    const row = await createKnowledgeBase({ ctx: c.var.ctx, input: c.req.valid("json") });
    c.header("Location", `/v1/knowledge-bases/${row.id}`);
    return c.json(toKnowledgeBaseView(row), 201);
  });
