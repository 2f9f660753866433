import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { knowledgeBaseSchema } from "../../../knowledge/schema";
import { getKnowledgeBase, toKnowledgeBaseView } from "../../../knowledge/service";
import { bearerSecurity, errorResponses, idParam, jsonResponse } from "../../../lib/openapi";
import { TAG } from "./shared";

export const getKnowledgeBaseRoute = createRoute({
  method: "get",
  path: "/knowledge-bases/{id}",
  tags: TAG,
  operationId: "getKnowledgeBase",
  summary: "Get a knowledge base",
  security: bearerSecurity,
  request: { params: idParam("Knowledge base") },
  responses: { 200: jsonResponse(knowledgeBaseSchema, "The knowledge base and what it holds."), ...errorResponses(400, 404) },
});

export const registerGetKnowledgeBase = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(getKnowledgeBaseRoute, async (c) =>
    c.json(toKnowledgeBaseView(await getKnowledgeBase({ ctx: c.var.ctx, input: { id: c.req.valid("param").id } })), 200),
  );
