import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { validate } from "../../../dashboard/forms";
import { baseInputOf, settingsValuesOf } from "../../../dashboard/knowledge/form";
import { createKnowledgeBaseSchema } from "../../../knowledge/schema";
import { createKnowledgeBase } from "../../../knowledge/service";
import { BASE, renderList } from "./shared";

/** POST /dashboard/knowledge: a new knowledge base (name, description), through the API's schema and service. */
export const registerCreateKnowledgePage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/", async (c) => {
    const checked = validate(createKnowledgeBaseSchema, baseInputOf(c.var.form));
    if (!checked.ok) return renderList(c, { values: settingsValuesOf(c.var.form), errors: checked.errors }, 400);
    const row = await createKnowledgeBase({ ctx: c.var.ctx, input: checked.data });
    return c.redirect(`${BASE}/${row.id}?created=1`, 303);
  });
