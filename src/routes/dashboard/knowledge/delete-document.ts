import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { deleteDocument } from "../../../knowledge/documents";
import { BASE } from "./shared";

/** POST /dashboard/knowledge/:id/documents/:documentId/delete: the document and its passages (the API's delete). */
export const registerDeleteDocumentPage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/:id/documents/:documentId/delete", async (c) => {
    const id = c.req.param("id");
    await deleteDocument({ ctx: c.var.ctx, input: { knowledgeBaseId: id, id: c.req.param("documentId") } });
    return c.redirect(`${BASE}/${id}?removed=1`, 303);
  });
