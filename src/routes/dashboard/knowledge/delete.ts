import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { deleteKnowledgeBase } from "../../../knowledge/service";
import { BASE } from "./shared";

/** POST /dashboard/knowledge/:id/delete: the knowledge base, its documents and passages; its agents stop naming it. */
export const registerDeleteKnowledgePage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/:id/delete", async (c) => {
    await deleteKnowledgeBase({ ctx: c.var.ctx, input: { id: c.req.param("id") } });
    return c.redirect(`${BASE}?deleted=1`, 303);
  });
