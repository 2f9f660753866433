import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { renderList } from "./shared";

/** GET /dashboard/knowledge: the workspace's knowledge bases (newest first, paged by `?cursor=`) and the form that creates one. */
export const registerListKnowledgePage = (app: OpenAPIHono<AppEnv>) =>
  app.get("/", (c) => renderList(c, undefined, 200, c.req.query("deleted") ? "Knowledge base deleted." : undefined));
