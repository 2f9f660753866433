/** @jsxImportSource hono/jsx */
// What the Knowledge pages share: the list page and a knowledge base's page (drawn for a GET, and
// again with a form's errors or a question's answer), and how a route tells a page's script (which
// asks for JSON) from a form sent without one.
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { AppEnv } from "../../../context";
import { KnowledgePage } from "../../../dashboard/knowledge/detail";
import { emptyForms, type PageForms } from "../../../dashboard/knowledge/form";
import { bytesLabel, documentRow } from "../../../dashboard/knowledge/format";
import { EMPTY_BASE, KnowledgeList, type NewBaseValues } from "../../../dashboard/knowledge/list";
import { type FieldErrors, shellOf } from "../../../dashboard/ui";
import { knowledgeLimits, listDocuments, toDocumentView } from "../../../knowledge/documents";
import { getKnowledgeBase, listKnowledgeBases, toKnowledgeBaseView } from "../../../knowledge/service";

export const BASE = "/dashboard/knowledge";
/** Knowledge bases a list page shows, and documents a knowledge base's page shows. */
export const BASES_SHOWN = 50;
export const DOCUMENTS_SHOWN = 100;

/** A page's script asks for JSON (`Accept: application/json`); a form sent without one gets a page. */
export const wantsJson = (c: Context<AppEnv>) => (c.req.header("accept") ?? "").includes("application/json");

export async function renderList(
  c: Context<AppEnv>,
  form: { values: NewBaseValues; errors: FieldErrors } = { values: EMPTY_BASE, errors: {} },
  status: ContentfulStatusCode = 200,
  notice?: string,
) {
  const [shell, page] = await Promise.all([
    shellOf(c, "Knowledge", "knowledge"),
    listKnowledgeBases({ ctx: c.var.ctx, input: { limit: BASES_SHOWN, cursor: c.req.query("cursor") } }),
  ]);
  const next = page.nextCursor ? `${BASE}?${new URLSearchParams({ cursor: page.nextCursor })}` : null;
  return c.html(
    <KnowledgeList
      shell={shell}
      bases={page.data.map(toKnowledgeBaseView)}
      next={next}
      values={form.values}
      errors={form.errors}
      notice={notice}
    />,
    status,
  );
}

/**
 * A knowledge base's page (404 for another workspace's or a missing one): its documents (a page of
 * them, by `?cursor=`), and its forms as `forms` says (empty by default).
 */
export async function renderBase(
  c: Context<AppEnv>,
  id: string,
  forms: Partial<PageForms> = {},
  status: ContentfulStatusCode = 200,
  notice?: string,
) {
  const ctx = c.var.ctx;
  const cursor = c.req.query("cursor") ?? null;
  const base = toKnowledgeBaseView(await getKnowledgeBase({ ctx, input: { id } }));
  const [shell, documents] = await Promise.all([
    shellOf(c, `Knowledge: ${base.name}`, "knowledge"),
    listDocuments({ ctx, input: { knowledgeBaseId: base.id, limit: DOCUMENTS_SHOWN, cursor: cursor ?? undefined } }),
  ]);
  const next = documents.nextCursor ? `${BASE}/${base.id}?${new URLSearchParams({ cursor: documents.nextCursor })}` : null;
  return c.html(
    <KnowledgePage
      shell={shell}
      base={base}
      rows={documents.data.map((d) => documentRow(toDocumentView(d)))}
      cursor={cursor}
      next={next}
      maxFile={bytesLabel(knowledgeLimits(c.var.config).maxFileBytes)}
      forms={{ ...emptyForms({ name: base.name, description: base.description ?? "" }), ...forms }}
      notice={notice}
    />,
    status,
  );
}
