import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { validate } from "../../../dashboard/forms";
import { baseInputOf, settingsValuesOf } from "../../../dashboard/knowledge/form";
import { updateKnowledgeBaseSchema } from "../../../knowledge/schema";
import { requireKnowledgeBase, updateKnowledgeBase } from "../../../knowledge/service";
import { BASE, renderBase } from "./shared";

/** POST /dashboard/knowledge/:id: rename or describe it (an empty description clears it), through the API's schema and service. */
export const registerUpdateKnowledgePage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/:id", async (c) => {
    const { ctx, form } = c.var;
    const base = await requireKnowledgeBase({ ctx, input: { id: c.req.param("id") } });
    const checked = validate(updateKnowledgeBaseSchema, baseInputOf(form));
    if (!checked.ok) return renderBase(c, base.id, { settings: { values: settingsValuesOf(form), errors: checked.errors } }, 400);
    await updateKnowledgeBase({ ctx, input: { id: base.id, ...checked.data } });
    return c.redirect(`${BASE}/${base.id}?saved=1`, 303);
  });
