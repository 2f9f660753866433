import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { renderBase } from "./shared";

const NOTICES: Record<string, string> = {
  created: "Knowledge base created. Add documents to it, then link it to an agent (the agent's Knowledge section).",
  saved: "Knowledge base saved.",
  added: "Document added: it is being processed.",
  existing: "The same content is in this knowledge base already: nothing was added.",
  removed: "Document deleted.",
};

/** GET /dashboard/knowledge/:id: a knowledge base's page (its documents by `?cursor=`); another workspace's is the 404 page. */
export const registerShowKnowledgePage = (app: OpenAPIHono<AppEnv>) =>
  app.get("/:id", (c) => {
    const notice = Object.keys(NOTICES).find((k) => c.req.query(k) !== undefined);
    return renderBase(c, c.req.param("id"), {}, 200, notice ? NOTICES[notice] : undefined);
  });
