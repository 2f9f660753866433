// What the Knowledge screen's upload route refuses (POST /dashboard/knowledge/:id/documents, as
// the page's script sends a file: multipart with the page's CSRF token, asking for JSON; and as the
// form does without a script): no CSRF token or a forged one, another site, another workspace's
// knowledge base (404 like a missing one, nothing stored in it), a type we do not read, an empty
// file, a file over the document limit or over the route's body limit: each a clear 4xx, said in
// the error body for the script and on the file field for the form; nothing stored.
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import type { KnowledgeBaseView } from "../../../src/knowledge/schema";
import { baseUrl, createWorkspace, json, type Workspace } from "../../support/harness";
import { fieldError, knowledgeSession } from "../../support/knowledge-pages";

type Session = Awaited<ReturnType<typeof knowledgeSession>>;

const MD = { name: "hours.md", type: "text/markdown", bytes: "# Hours\n\nWe open at eight." };

describe("the Knowledge screen's upload refuses", () => {
  let ws: Workspace;
  let s: Session;
  let kb: string;
  const documents = async (id = kb, owner = ws) =>
    (await json<{ data: unknown[] }>(await owner.api(`/v1/knowledge-bases/${id}/documents`))).data;

  beforeAll(async () => {
    ws = await createWorkspace("Knowledge refusals");
    s = await knowledgeSession(ws);
    kb = (await json<KnowledgeBaseView>(await ws.api("/v1/knowledge-bases", { method: "POST", json: { name: "Refusals" } }))).id;
  });

  it("a post without the page's CSRF token, with a forged one, or from another site (403, nothing stored)", async () => {
    for (const json of [true, false]) {
      expect((await s.upload(kb, MD, { csrf: null, json })).status).toBe(403);
      expect((await s.upload(kb, MD, { csrf: "forged-token", json })).status).toBe(403);
    }
    const form = new FormData();
    form.set("_csrf", s.csrf);
    form.set("file", new Blob([MD.bytes], { type: MD.type }), MD.name);
    const crossSite = await fetch(`${baseUrl()}/dashboard/knowledge/${kb}/documents`, {
      method: "POST",
      headers: { cookie: s.cookie, origin: "https://evil.example", accept: "application/json" },
      body: form,
      redirect: "manual",
    });
    expect(crossSite.status).toBe(403);
    // Without a session: the sign-in page, whatever the token.
    const signedOut = await fetch(`${baseUrl()}/dashboard/knowledge/${kb}/documents`, { method: "POST", body: form, redirect: "manual" });
    expect(signedOut.status).toBe(303);
    expect(signedOut.headers.get("location")).toBe("/dashboard/sign-in");
    expect(await documents()).toEqual([]);
  });

  it("another workspace's knowledge base: 404 exactly like a missing one, and nothing stored in it", async () => {
    const theirs = await createWorkspace("Knowledge owner");
    const their = (await json<KnowledgeBaseView>(await theirs.api("/v1/knowledge-bases", { method: "POST", json: { name: "Theirs" } }))).id;
    const body = async (res: Response) => (await res.text()).replace(/"requestId":"[^"]*"/, "").replace(/ nonce="[^"]+"/g, "");
    const foreign = await s.upload(their, MD);
    const missing = await s.upload(randomUUID(), MD);
    expect(foreign.status).toBe(404);
    expect(missing.status).toBe(404);
    const refused = await foreign.clone().json();
    expect(refused).toMatchObject({ code: "not_found", message: "No knowledge base with that id in this workspace." });
    expect(await body(foreign)).toBe(await body(missing));
    const page = await s.upload(their, MD, { json: false });
    expect(page.status).toBe(404);
    expect(await body(page)).toBe(await body(await s.upload(randomUUID(), MD, { json: false })));
    for (const path of [`/dashboard/knowledge/${their}`, `/dashboard/knowledge/${their}/live`])
      expect((await s.get(path)).status).toBe(404);
    const asked = await s.post(`/dashboard/knowledge/${their}/query`, { query: "hours?" }, { json: true });
    expect(asked.status).toBe(404);
    expect(await documents(their, theirs)).toEqual([]);
  });

  it("a file of a type we do not read, an empty one, or none: the error body for the script, the file field's error on the page", async () => {
    const cases: Array<[{ name: string; type: string; bytes: Uint8Array | string }, number, string]> = [
      [
        { name: "photo.png", type: "image/png", bytes: new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]) },
        400,
        'Cannot read "photo.png" (image/png): send text (.txt), Markdown (.md), HTML (.html) or PDF (.pdf).',
      ],
      [{ name: "setup.exe", type: "application/octet-stream", bytes: "MZ" }, 400, 'Cannot read "setup.exe" (application/octet-stream)'],
      [{ name: "empty.md", type: "text/markdown", bytes: "" }, 400, "The document is empty: there is nothing to read in it."],
    ];
    for (const [file, status, message] of cases) {
      const script = await s.upload(kb, file);
      expect(script.status, file.name).toBe(status);
      expect((await json<{ message: string }>(script)).message).toContain(message);
      const page = await s.upload(kb, file, { json: false });
      expect(page.status, file.name).toBe(status);
      expect(fieldError(await page.text(), "file"), file.name).toContain(message);
    }
    const noFile = await s.post(`/dashboard/knowledge/${kb}/documents`, { type: "file" }, { json: true });
    expect(noFile.status).toBe(400);
    expect((await json<{ message: string }>(noFile)).message).toContain("multipart/form-data");
    expect(await documents()).toEqual([]);
  });

  it("a file over the document limit (413, in the limit's words) or over the route's body limit (413)", async () => {
    const big = new Uint8Array(20 * 1024 * 1024 + 1).fill(0x61); // "aaa…": text, one byte over 20 MiB
    const over = await s.upload(kb, { name: "big.txt", type: "text/plain", bytes: big });
    expect(over.status).toBe(413);
    expect((await json<{ code: string; message: string }>(over)).message).toContain("Documents are limited to 20,971,520 bytes each");
    const huge = await s.upload(kb, { name: "huge.txt", type: "text/plain", bytes: new Uint8Array(26 * 1024 * 1024).fill(0x61) });
    expect(huge.status).toBe(413);
    await huge.body?.cancel();
    expect(await documents()).toEqual([]);
  }, 60_000);

  it("takes a file named in any script, and says the same content twice is one document", async () => {
    const name = "prix-été 📄 日本.md";
    const res = await s.upload(kb, { ...MD, name });
    expect(res.status).toBe(202);
    expect((await json<{ document: { name: string } }>(res)).document.name).toBe(name);
    const again = await s.upload(kb, { ...MD, name: "other.md" });
    expect(again.status).toBe(200);
    expect((await json<{ created: boolean; document: { name: string } }>(again)).document.name).toBe(name);
    expect(await documents()).toHaveLength(1);
  });
});
