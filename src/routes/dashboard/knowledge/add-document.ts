import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../../context";
import { apiErrorFields } from "../../../dashboard/forms";
import { scriptAction } from "../../../dashboard/json";
import {
  type DocumentKind,
  documentJsonOf,
  documentKindOf,
  onDocumentFields,
  textValuesOf,
  urlValuesOf,
} from "../../../dashboard/knowledge/form";
import { documentRow } from "../../../dashboard/knowledge/format";
import { type AddDocumentInput, addDocumentFrom } from "../../../knowledge/add";
import { toDocumentView } from "../../../knowledge/documents";
import { readDocumentForm } from "../../../knowledge/form";
import { addDocumentJsonSchema } from "../../../knowledge/schema";
import { requireKnowledgeBase } from "../../../knowledge/service";
import { ApiError, invalidInput } from "../../../lib/errors";
import { BASE, renderBase, wantsJson } from "./shared";

const isMultipart = (c: Context<AppEnv>) => (c.req.header("content-type") ?? "").toLowerCase().startsWith("multipart/form-data");

/** The document a form sent: a file (multipart, read as the API reads it), text or a URL; a 400 naming the form's field otherwise. */
async function documentOf(c: Context<AppEnv>, kind: DocumentKind | null): Promise<AddDocumentInput> {
  if (kind === null) throw invalidInput("form", [{ path: ["type"], message: "must be one of: file, text, url" }]);
  if (kind === "file") {
    if (!isMultipart(c))
      throw invalidInput("form", [{ path: ["file"], message: "send the file as multipart/form-data (the upload form does)" }]);
    // The body was read once, at the edge (src/middleware/guards.ts), and the page session read its
    // fields: the file is read from those bytes, as the API's route reads its own request.
    const request = new Request(c.req.url, {
      method: "POST",
      headers: { "content-type": c.req.header("content-type") ?? "" },
      body: await c.req.arrayBuffer(),
    });
    return readDocumentForm(request);
  }
  const checked = addDocumentJsonSchema.safeParse(documentJsonOf(kind, c.var.form));
  if (!checked.success) throw invalidInput("form", checked.error.issues);
  return checked.data;
}

/**
 * POST /dashboard/knowledge/:id/documents: a document added to the knowledge base by one of its
 * page's forms (`type`: file, text or url), through the API's own operation (addDocumentFrom: its
 * checks, limits and processing). A file is multipart (up to 25 MiB reach the route: the guard's
 * document limit); text and URLs are form fields. The page's script sends the upload with
 * `Accept: application/json` and gets JSON (`{created, document}`, refusals in the error body); a
 * form sent without a script gets the page back: a redirect, or the page with the refusal on the form.
 */
export const registerAddDocumentPage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/:id/documents", async (c) => {
    const { ctx, form } = c.var;
    const kind = documentKindOf(form, isMultipart(c));
    const owned = () => requireKnowledgeBase({ ctx, input: { id: c.req.param("id") } });
    const add = async (knowledgeBaseId: string) =>
      addDocumentFrom({ ctx, input: { knowledgeBaseId, document: await documentOf(c, kind) } });
    if (wantsJson(c))
      return scriptAction(c, async () => {
        // `created`: its processing starts (a new document, or a failed one sent again).
        const { document, started } = await add((await owned()).id);
        return c.json({ created: started, document: documentRow(toDocumentView(document)) }, started ? 202 : 200);
      });
    const base = await owned();
    try {
      const { started } = await add(base.id);
      return c.redirect(`${BASE}/${base.id}?${started ? "added" : "existing"}=1`, 303);
    } catch (err) {
      if (!(err instanceof ApiError) || err.code === "not_found") throw err;
      const shown = kind ?? "file";
      // The service's words on the form that was sent: its fields' issues on them, the rest on its main field.
      const errors = onDocumentFields(shown, apiErrorFields(err));
      const forms =
        shown === "file"
          ? { file: { errors } }
          : shown === "text"
            ? { text: { values: textValuesOf(form), errors } }
            : { url: { values: urlValuesOf(form), errors } };
      return renderBase(c, base.id, forms, err.status);
    }
  });
