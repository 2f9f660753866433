import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { knowledgeBaseSchema, updateKnowledgeBaseSchema } from "../../../knowledge/schema";
import { toKnowledgeBaseView, updateKnowledgeBase } from "../../../knowledge/service";
import { bearerSecurity, errorResponses, idParam, jsonBody, jsonResponse } from "../../../lib/openapi";
import { TAG } from "./shared";

export const updateKnowledgeBaseRoute = createRoute({
  method: "patch",
  path: "/knowledge-bases/{id}",
  tags: TAG,
  operationId: "updateKnowledgeBase",
  summary: "Rename or describe a knowledge base",
  description: "Partial update: only the fields sent change; `null` clears the description.",
  security: bearerSecurity,
  request: { params: idParam("Knowledge base"), ...jsonBody(updateKnowledgeBaseSchema) },
  responses: { 200: jsonResponse(knowledgeBaseSchema, "The updated knowledge base."), ...errorResponses(400, 404) },
});

export const registerUpdateKnowledgeBase = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(updateKnowledgeBaseRoute, async (c) => {
    const row = await updateKnowledgeBase({ ctx: c.var.ctx, input: { id: c.req.valid("param").id, ...c.req.valid("json") } });
    return c.json(toKnowledgeBaseView(row), 200);
  });
