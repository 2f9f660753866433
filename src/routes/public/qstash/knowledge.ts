// QStash's calls for knowledge documents (docs/knowledge.md, "Processing"): process one document
// (a call again after a worker died resumes it), and, once QStash gives up, mark it failed.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { failDocument, processDocument, QSTASH_KNOWLEDGE_FAILED_PATH, QSTASH_KNOWLEDGE_PATH } from "../../../knowledge/ingest";
import { errorResponses, jsonResponse, publicSecurity } from "../../../lib/openapi";
import { claim, finish, parse, verified } from "./shared";

const knowledgeMessage = z.object({ documentId: z.uuid() });
const failureSchema = z.object({ sourceBody: z.string() });
const processed = z.object({ ok: z.literal(true), status: z.enum(["processing", "ready", "failed", "gone"]) });

export const knowledgeRoute = createRoute({
  method: "post",
  path: QSTASH_KNOWLEDGE_PATH,
  tags: ["Internal"],
  operationId: "qstashKnowledge",
  security: publicSecurity,
  summary: "QStash callback: process a knowledge document (Upstash-Signature verified)",
  responses: { 200: jsonResponse(processed, "Processed: the document's status now."), ...errorResponses(400, 404, 409, 503) },
});

export const knowledgeFailedRoute = createRoute({
  method: "post",
  path: QSTASH_KNOWLEDGE_FAILED_PATH,
  tags: ["Internal"],
  operationId: "qstashKnowledgeFailed",
  security: publicSecurity,
  summary: "QStash failure callback: a knowledge document's processing never finished (Upstash-Signature verified)",
  responses: { 200: jsonResponse(z.object({ ok: z.literal(true) }), "Marked failed."), ...errorResponses(400, 404, 409, 503) },
});

export const registerQstashKnowledge = (app: OpenAPIHono<AppEnv>) => {
  app.openapi(knowledgeRoute, async (c) => {
    const { body, identity } = await verified(c, QSTASH_KNOWLEDGE_PATH);
    const { documentId } = parse(knowledgeMessage, body);
    // A call already answered is answered the same; processing again is harmless but not needed.
    if (await claim(c, identity)) return c.json({ ok: true as const, status: "processing" as const }, 200);
    const { services } = c.var;
    const status = await processDocument({ ...services.webhooks, knowledgeBucket: services.knowledgeBucket }, documentId);
    await finish(c, identity, { ok: true, statusCode: null });
    return c.json({ ok: true as const, status }, 200);
  });
  app.openapi(knowledgeFailedRoute, async (c) => {
    const { body, identity } = await verified(c, QSTASH_KNOWLEDGE_FAILED_PATH);
    const { documentId } = parse(knowledgeMessage, parse(failureSchema, body).sourceBody, true);
    if (!(await claim(c, identity))) {
      await failDocument(c.var.db, documentId, "Processing did not finish after several tries. Upload the document again.");
      await finish(c, identity, { ok: true, statusCode: null });
    }
    return c.json({ ok: true as const }, 200);
  });
};
