import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { validate } from "../../../dashboard/forms";
import { scriptAction } from "../../../dashboard/json";
import { queryInputOf, queryValuesOf } from "../../../dashboard/knowledge/form";
import { foundSummary } from "../../../dashboard/knowledge/query";
import { queryKnowledgeSchema } from "../../../knowledge/schema";
import { queryKnowledgeBase } from "../../../knowledge/search";
import { requireKnowledgeBase } from "../../../knowledge/service";
import { ApiError, invalidInput } from "../../../lib/errors";
import { renderBase, wantsJson } from "./shared";

/**
 * POST /dashboard/knowledge/:id/query: the page's test question (`query`, `topK`), through the API's
 * schema and its query operation (queryKnowledgeBase: the question's embedding metered to the
 * workspace as POST /v1/knowledge-bases/:id/query meters it). The page's script asks for JSON: the
 * API's answer (`data`, `usage`) and its summary line; without a script, the page with the passages.
 */
export const registerQueryKnowledgePage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/:id/query", async (c) => {
    const { ctx, form } = c.var;
    const id = c.req.param("id");
    const values = queryValuesOf(form);
    if (wantsJson(c))
      return scriptAction(c, async () => {
        const base = await requireKnowledgeBase({ ctx, input: { id } });
        const checked = queryKnowledgeSchema.safeParse(queryInputOf(form));
        if (!checked.success) throw invalidInput("form", checked.error.issues);
        const found = await queryKnowledgeBase({ ctx, input: { id: base.id, apiKeyId: null, ...checked.data } });
        return c.json({ ...found, summary: foundSummary(found) }, 200);
      });
    const base = await requireKnowledgeBase({ ctx, input: { id } });
    const checked = validate(queryKnowledgeSchema, queryInputOf(form));
    if (!checked.ok) return renderBase(c, base.id, { query: { values, errors: checked.errors } }, 400);
    try {
      const found = await queryKnowledgeBase({ ctx, input: { id: base.id, apiKeyId: null, ...checked.data } });
      return renderBase(c, base.id, { query: { values, errors: {}, found } });
    } catch (err) {
      if (!(err instanceof ApiError) || err.code === "not_found") throw err;
      return renderBase(c, base.id, { query: { values, errors: { query: err.message } } }, err.status);
    }
  });
