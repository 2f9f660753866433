import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { knowledgeBasePageSchema } from "../../../knowledge/schema";
import { listKnowledgeBases, toKnowledgeBaseView } from "../../../knowledge/service";
import { bearerSecurity, errorResponses, jsonResponse } from "../../../lib/openapi";
import { pageQuerySchema } from "../../../lib/pagination";
import { TAG } from "./shared";

export const listKnowledgeBasesRoute = createRoute({
  method: "get",
  path: "/knowledge-bases",
  tags: TAG,
  operationId: "listKnowledgeBases",
  summary: "List knowledge bases",
  description: "Newest first, with what each holds. See docs/pagination.md for the cursor contract.",
  security: bearerSecurity,
  request: { query: pageQuerySchema },
  responses: { 200: jsonResponse(knowledgeBasePageSchema, "A page of knowledge bases."), ...errorResponses(400) },
});

export const registerListKnowledgeBases = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(listKnowledgeBasesRoute, async (c) => {
    const page = await listKnowledgeBases({ ctx: c.var.ctx, input: c.req.valid("query") });
    return c.json({ ...page, data: page.data.map(toKnowledgeBaseView) }, 200);
  });
