import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { scriptAction } from "../../../dashboard/json";
import { countsOf, documentRow } from "../../../dashboard/knowledge/format";
import { listDocuments, toDocumentView } from "../../../knowledge/documents";
import { getKnowledgeBase } from "../../../knowledge/service";
import { DOCUMENTS_SHOWN } from "./shared";

/**
 * GET /dashboard/knowledge/:id/live: what a knowledge base's page follows while documents are
 * processed (its script polls every 2 s until none is): the knowledge base's figures and the rows of
 * the documents the page shows (the same `?cursor=`), worded as the page words them. JSON; another
 * workspace's knowledge base is the error body's 404.
 */
export const registerLiveKnowledgePage = (app: OpenAPIHono<AppEnv>) =>
  app.get("/:id/live", (c) =>
    scriptAction(c, async () => {
      const ctx = c.var.ctx;
      const id = c.req.param("id");
      // The documents first, then the figures: a document that turned ready between the two reads is
      // then counted too, so the last poll (none processing) never shows figures older than its rows.
      // Another workspace's id finds no documents here and is refused by the read after.
      const page = await listDocuments({ ctx, input: { knowledgeBaseId: id, limit: DOCUMENTS_SHOWN, cursor: c.req.query("cursor") } });
      const base = await getKnowledgeBase({ ctx, input: { id } });
      return c.json({ counts: countsOf(base), documents: page.data.map((d) => documentRow(toDocumentView(d))) });
    }),
  );
