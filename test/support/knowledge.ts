// Knowledge bases in tests (docs/knowledge.md): a knowledge base to add to, uploads as the API
// takes them, a document waited for until its processing ends, and what the database holds of a
// knowledge base (rows and passages), to prove a refusal stored nothing.
import { count, eq } from "drizzle-orm";
import { expect } from "vitest";
import { knowledgeChunks, knowledgeDocuments } from "../../src/db/schema";
import type { DocumentView, KnowledgeBaseView } from "../../src/knowledge/schema";
import { json, testDb, until, type Workspace } from "./harness";

export const documentsPath = (kb: string) => `/v1/knowledge-bases/${kb}/documents`;

export async function newKnowledgeBase(ws: Workspace, name = "Knowledge"): Promise<string> {
  const res = await ws.api("/v1/knowledge-bases", { method: "POST", json: { name } });
  expect(res.status).toBe(201);
  return (await json<KnowledgeBaseView>(res)).id;
}

/** A file upload (multipart, field `file`), with other form fields as given. */
export function upload(
  ws: Workspace,
  kb: string,
  file: { name: string; bytes: Uint8Array | string; type: string },
  fields: Record<string, string> = {},
): Promise<Response> {
  const form = new FormData();
  form.set("file", new Blob([file.bytes], { type: file.type }), file.name);
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  return ws.api(documentsPath(kb), { method: "POST", body: form });
}

export const addText = (ws: Workspace, kb: string, name: string, text: string) =>
  ws.api(documentsPath(kb), { method: "POST", json: { type: "text", name, text } });

/** The document an add answered `202` with, once its processing ended (ready or failed). */
export async function processed(ws: Workspace, kb: string, added: Response): Promise<DocumentView> {
  expect(added.status).toBe(202);
  const doc = await json<DocumentView>(added);
  expect(doc.status).toBe("processing");
  return until(
    async () => json<DocumentView>(await ws.api(`${documentsPath(kb)}/${doc.id}`)),
    (d) => d.status !== "processing",
    30_000,
  );
}

/** The passages stored for a document, embedded or not. */
export async function passagesOf(documentId: string): Promise<number> {
  const [row] = await testDb().select({ n: count() }).from(knowledgeChunks).where(eq(knowledgeChunks.documentId, documentId));
  return Number(row?.n ?? 0);
}

/** Asserts the knowledge base holds no document: none listed, no row. */
export async function holdsNothing(ws: Workspace, kb: string): Promise<void> {
  const page = await json<{ data: DocumentView[] }>(await ws.api(documentsPath(kb)));
  expect(page.data).toEqual([]);
  const [row] = await testDb().select({ n: count() }).from(knowledgeDocuments).where(eq(knowledgeDocuments.knowledgeBaseId, kb));
  expect(Number(row?.n)).toBe(0);
}
