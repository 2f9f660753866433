import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { addDocumentFrom } from "../../../knowledge/add";
import { toDocumentView } from "../../../knowledge/documents";
import { readDocumentForm } from "../../../knowledge/form";
import { type AddDocumentJson, addDocumentFormSchema, addDocumentJsonSchema, documentSchema } from "../../../knowledge/schema";
import { bearerSecurity, errorResponses, idParam, jsonResponse } from "../../../lib/openapi";
import { TAG } from "./shared";

export const addDocumentRoute = createRoute({
  method: "post",
  path: "/knowledge-bases/{id}/documents",
  tags: TAG,
  operationId: "addKnowledgeDocument",
  summary: "Add a document: upload a file, send text, or import a URL",
  description:
    "A file is sent as multipart/form-data (field `file`: text, Markdown, HTML or PDF, up to 20 MiB by default; optional `name`); " +
    'text as JSON `{"type":"text","name","text"}`; a URL as JSON `{"type":"url","url"}`, fetched once under the webhooks\' SSRF rules. ' +
    "The answer comes before the document is processed: `202` with status `processing`; poll the document until it is `ready` or `failed` (with `error`). " +
    "The same content already in the knowledge base answers `200` with that document: nothing is stored twice. " +
    "If that document had `failed`, it is processed again instead (`202`): upload a failed document again to retry it. " +
    "A `503` says the document could not be stored or queued; one that was stored is then `failed` and is retried by uploading it again.",
  security: bearerSecurity,
  request: {
    params: idParam("Knowledge base"),
    body: {
      // One of the two is required; `required: true` would have each validator run on the other's requests too.
      required: false,
      description: "A file as multipart/form-data, or text or a URL as JSON (one of them is required).",
      content: { "multipart/form-data": { schema: addDocumentFormSchema }, "application/json": { schema: addDocumentJsonSchema } },
    },
  },
  responses: {
    202: jsonResponse(documentSchema, "The document, being processed (a new one, or a failed one being retried)."),
    200: jsonResponse(documentSchema, "The same content was in the knowledge base already: that document."),
    ...errorResponses(400, 402, 404, 409, 413, 415, 503),
  },
});

export const registerAddDocument = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(addDocumentRoute, async (c) => {
    const id = c.req.valid("param").id;
    const isJson = (c.req.header("content-type") ?? "").toLowerCase().startsWith("application/json");
    const document = isJson ? (c.req.valid("json") as AddDocumentJson) : await readDocumentForm(c.req.raw);
    const { document: row, started } = await addDocumentFrom({ ctx: c.var.ctx, input: { knowledgeBaseId: id, document } });
    c.header("Location", `/v1/knowledge-bases/${id}/documents/${row.id}`);
    return started ? c.json(toDocumentView(row), 202) : c.json(toDocumentView(row), 200);
  });
