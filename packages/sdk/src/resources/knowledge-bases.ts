// Knowledge bases (docs/knowledge.md): the bases, their documents (a file, text or a URL; processed
// after the answer: poll `documents.retrieve` until `ready`, or use `documents.waitUntilProcessed`),
// and a query to test retrieval.
import type { RequestOptions } from "../core.js";
import type { PagePromise } from "../pagination.js";
import type {
  KnowledgeBase,
  KnowledgeBaseCreateParams,
  KnowledgeBaseListParams,
  KnowledgeBaseUpdateParams,
  KnowledgeDocument,
  KnowledgeDocumentJson,
  KnowledgeDocumentListParams,
  KnowledgeQueryParams,
  KnowledgeQueryResult,
} from "../types.js";
import { toBlob, type Uploadable } from "./models.js";
import { Resource } from "./resource.js";

export interface KnowledgeFileParams {
  file: Uploadable;
  /** The file name sent (default: the File's name, else `document`); its extension tells a generic type apart (`.md`, `.pdf`). */
  filename?: string;
  /** The document's name (default: the file name). */
  name?: string;
}

export class KnowledgeDocuments extends Resource {
  /**
   * Adds a document: `{ file }` uploads a file (text, Markdown, HTML, PDF), `{ type: "text" }` sends text,
   * `{ type: "url" }` imports a URL. The same content already in the base returns that document.
   */
  create(
    knowledgeBaseId: string,
    params: KnowledgeFileParams | KnowledgeDocumentJson,
    options?: RequestOptions,
  ): Promise<KnowledgeDocument> {
    const pathParams = { id: knowledgeBaseId };
    if ("file" in params) {
      const form = new FormData();
      const file = params.file;
      const filename = params.filename ?? (typeof File !== "undefined" && file instanceof File && file.name ? file.name : "document");
      form.append("file", toBlob(file), filename);
      if (params.name) form.append("name", params.name);
      return this.call({ operation: "addKnowledgeDocument", pathParams, form }, options);
    }
    return this.call({ operation: "addKnowledgeDocument", pathParams, body: params }, options);
  }

  retrieve(knowledgeBaseId: string, documentId: string, options?: RequestOptions): Promise<KnowledgeDocument> {
    return this.call({ operation: "getKnowledgeDocument", pathParams: { id: knowledgeBaseId, documentId } }, options);
  }

  list(knowledgeBaseId: string, query?: KnowledgeDocumentListParams, options?: RequestOptions): PagePromise<KnowledgeDocument> {
    return this.page("listKnowledgeDocuments", query, options, { id: knowledgeBaseId });
  }

  del(knowledgeBaseId: string, documentId: string, options?: RequestOptions): Promise<void> {
    return this.call({ operation: "deleteKnowledgeDocument", pathParams: { id: knowledgeBaseId, documentId }, expect: "empty" }, options);
  }

  /** Polls the document until it is `ready` or `failed` (or `timeoutMs` passes: then the last state). */
  async waitUntilProcessed(
    knowledgeBaseId: string,
    documentId: string,
    { intervalMs = 500, timeoutMs = 120_000 }: { intervalMs?: number; timeoutMs?: number } = {},
  ): Promise<KnowledgeDocument> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const doc = await this.retrieve(knowledgeBaseId, documentId);
      if (doc.status !== "processing" || Date.now() >= deadline) return doc;
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  }
}

export class KnowledgeBases extends Resource {
  readonly documents = new KnowledgeDocuments(this.client);

  create(body: KnowledgeBaseCreateParams, options?: RequestOptions): Promise<KnowledgeBase> {
    return this.call({ operation: "createKnowledgeBase", body }, options);
  }

  retrieve(id: string, options?: RequestOptions): Promise<KnowledgeBase> {
    return this.call({ operation: "getKnowledgeBase", pathParams: { id } }, options);
  }

  update(id: string, body: KnowledgeBaseUpdateParams, options?: RequestOptions): Promise<KnowledgeBase> {
    return this.call({ operation: "updateKnowledgeBase", pathParams: { id }, body }, options);
  }

  list(query?: KnowledgeBaseListParams, options?: RequestOptions): PagePromise<KnowledgeBase> {
    return this.page("listKnowledgeBases", query, options);
  }

  del(id: string, options?: RequestOptions): Promise<void> {
    return this.call({ operation: "deleteKnowledgeBase", pathParams: { id }, expect: "empty" }, options);
  }

  /** The passages a question finds (metered: the question's embedding). */
  query(id: string, body: KnowledgeQueryParams, options?: RequestOptions): Promise<KnowledgeQueryResult> {
    return this.call({ operation: "queryKnowledgeBase", pathParams: { id }, body }, options);
  }
}
