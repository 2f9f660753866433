// /v1/knowledge-bases: knowledge bases, their documents, and a query to test retrieval (docs/knowledge.md).
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { registerAddDocument } from "./add-document";
import { registerCreateKnowledgeBase } from "./create";
import { registerDeleteKnowledgeBase } from "./delete";
import { registerDeleteDocument } from "./delete-document";
import { registerGetKnowledgeBase } from "./get";
import { registerGetDocument } from "./get-document";
import { registerListKnowledgeBases } from "./list";
import { registerListDocuments } from "./list-documents";
import { registerQueryKnowledgeBase } from "./query";
import { registerUpdateKnowledgeBase } from "./update";

export function registerKnowledgeBases(app: OpenAPIHono<AppEnv>) {
  registerListKnowledgeBases(app);
  registerCreateKnowledgeBase(app);
  registerGetKnowledgeBase(app);
  registerUpdateKnowledgeBase(app);
  registerDeleteKnowledgeBase(app);
  registerListDocuments(app);
  registerAddDocument(app);
  registerGetDocument(app);
  registerDeleteDocument(app);
  registerQueryKnowledgeBase(app);
}
