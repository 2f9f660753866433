// Paging knowledge bases and a knowledge base's documents (docs/pagination.md): following
// `nextCursor` page by page yields every item once, newest first, with `hasMore` true exactly while a
// cursor follows; a status filter kept while following pages only its documents.
import { describe, expect, it } from "vitest";
import type { DocumentView, KnowledgeBaseView } from "../../../src/knowledge/schema";
import { createWorkspace, expectError, json, type Workspace } from "../../support/harness";
import { addText, documentsPath, newKnowledgeBase, processed } from "../../support/knowledge";

interface Page<T> {
  data: T[];
  nextCursor: string | null;
  hasMore: boolean;
}

/** Every page of `path` at `limit` a page: the pages' sizes and the items in order. */
async function walk<T extends { id: string }>(ws: Workspace, path: string, limit: number): Promise<{ sizes: number[]; items: T[] }> {
  const sizes: number[] = [];
  const items: T[] = [];
  let cursor: string | null = null;
  do {
    const sep = path.includes("?") ? "&" : "?";
    const res = await ws.api(`${path}${sep}limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`);
    expect(res.status).toBe(200);
    const page: Page<T> = await json<Page<T>>(res);
    expect(page.hasMore).toBe(page.nextCursor !== null);
    sizes.push(page.data.length);
    items.push(...page.data);
    cursor = page.nextCursor;
  } while (cursor);
  return { sizes, items };
}

const newestFirst = (ids: string[]) => [...ids].sort().reverse();

describe("paging knowledge", () => {
  it("GET /v1/knowledge-bases follows the cursor across pages: every knowledge base once, newest first", async () => {
    const ws = await createWorkspace("Paged knowledge bases");
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await newKnowledgeBase(ws, `Base ${i}`));
    const { sizes, items } = await walk<KnowledgeBaseView>(ws, "/v1/knowledge-bases", 2);
    expect(sizes).toEqual([2, 2, 1]);
    expect(items.map((b) => b.id)).toEqual(newestFirst(ids));
    expect(items.map((b) => b.name)).toEqual(["Base 4", "Base 3", "Base 2", "Base 1", "Base 0"]);
    // A page that ends on the last one says so.
    expect((await walk<KnowledgeBaseView>(ws, "/v1/knowledge-bases", 5)).sizes).toEqual([5]);
    await expectError(await ws.api("/v1/knowledge-bases?cursor=not-a-cursor"), 400, "bad_request");
  });

  it("a knowledge base's documents follow the cursor across pages, with and without a status filter", async () => {
    const ws = await createWorkspace("Paged documents");
    const kb = await newKnowledgeBase(ws);
    const ready: string[] = [];
    for (let i = 0; i < 4; i++) ready.push((await processed(ws, kb, await addText(ws, kb, `Doc ${i}`, `# Doc ${i}\n\nWord ${i}.`))).id);
    // A document that cannot be read ends failed.
    const failed = await processed(ws, kb, await addText(ws, kb, "Blank", " \n\n "));
    expect(failed.status).toBe("failed");

    const all = await walk<DocumentView>(ws, documentsPath(kb), 2);
    expect(all.sizes).toEqual([2, 2, 1]);
    expect(all.items.map((d) => d.id)).toEqual(newestFirst([...ready, failed.id]));
    const onlyReady = await walk<DocumentView>(ws, `${documentsPath(kb)}?status=ready`, 3);
    expect(onlyReady.sizes).toEqual([3, 1]);
    expect(onlyReady.items.map((d) => d.id)).toEqual(newestFirst(ready));
    expect((await walk<DocumentView>(ws, `${documentsPath(kb)}?status=failed`, 3)).items.map((d) => d.id)).toEqual([failed.id]);
  });
});
