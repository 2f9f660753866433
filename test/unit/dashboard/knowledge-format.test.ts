// How the Knowledge screen words a knowledge base and a document's row (src/dashboard/knowledge/
// format.ts: the pages and the live JSON the page's script follows share it), and how its add
// forms map onto the API's document shapes and back onto their own fields (form.ts).
import { describe, expect, it } from "vitest";
import { documentJsonOf, documentKindOf, onDocumentFields } from "../../../src/dashboard/knowledge/form";
import { bytesLabel, countsOf, documentRow } from "../../../src/dashboard/knowledge/format";
import type { DocumentView } from "../../../src/knowledge/schema";

const doc = (over: Partial<DocumentView>): DocumentView => ({
  id: "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77",
  knowledgeBaseId: "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b78",
  name: "price-list.pdf",
  source: "file",
  url: null,
  contentType: "application/pdf",
  sizeBytes: 48_211,
  contentHash: "9f86",
  status: "ready",
  error: null,
  chunkCount: 12,
  progress: 1,
  createdAt: "2025-01-31T09:05:12.000Z",
  updatedAt: "2025-01-31T09:05:12.000Z",
  ...over,
});

describe("the Knowledge screen's words", () => {
  it("says sizes in B, KiB and MiB (as the limits are said)", () => {
    expect([0, 1023, 1024, 10_240, 48_211, 1024 * 1024, 20 * 1024 * 1024, 500 * 1024 * 1024].map(bytesLabel)).toEqual([
      "0 B",
      "1023 B",
      "1.0 KiB",
      "10 KiB",
      "47 KiB",
      "1.0 MiB",
      "20 MiB",
      "500 MiB",
    ]);
  });

  it("counts in words, one and many", () => {
    expect(countsOf({ documentCount: 1, chunkCount: 1, sizeBytes: 10 })).toEqual({
      documents: "1 document",
      passages: "1 passage",
      size: "10 B",
    });
    expect(countsOf({ documentCount: 0, chunkCount: 42, sizeBytes: 2048 })).toEqual({
      documents: "0 documents",
      passages: "42 passages",
      size: "2.0 KiB",
    });
  });

  it("words a document's row: type, source, progress as a whole percent, passages only once known", () => {
    expect(documentRow(doc({}))).toMatchObject({
      type: "PDF",
      source: "File",
      size: "47 KiB",
      percent: 100,
      passages: "12",
      added: "2025-01-31 09:05:12 UTC",
    });
    expect(documentRow(doc({ status: "processing", chunkCount: 0, progress: 0 }))).toMatchObject({ percent: 0, passages: "—" });
    expect(documentRow(doc({ status: "processing", chunkCount: 3, progress: 2 / 3 }))).toMatchObject({ percent: 66, passages: "3" });
    expect(documentRow(doc({ status: "failed", error: "The PDF is encrypted.", chunkCount: 0, progress: 0 }))).toMatchObject({
      passages: "—",
      error: "The PDF is encrypted.",
    });
    expect(documentRow(doc({ source: "url", url: "https://example.com/faq", contentType: "text/html" }))).toMatchObject({
      source: "URL",
      url: "https://example.com/faq",
      type: "HTML",
    });
    expect(documentRow(doc({ contentType: "text/x-unknown" })).type).toBe("text/x-unknown");
  });
});

describe("the add forms", () => {
  it("tells which form was sent: its `type`, a multipart body without one being a file", () => {
    expect(documentKindOf({ type: ["text"] }, false)).toBe("text");
    expect(documentKindOf({ type: ["url"] }, true)).toBe("url");
    expect(documentKindOf({}, true)).toBe("file");
    expect(documentKindOf({}, false)).toBeNull();
    expect(documentKindOf({ type: ["fax"] }, true)).toBeNull();
  });

  it("maps the text and URL forms onto the API's shapes (an empty URL name left out)", () => {
    expect(documentJsonOf("text", { textName: ["Hours"], text: ["# Hours"] })).toEqual({ type: "text", name: "Hours", text: "# Hours" });
    expect(documentJsonOf("url", { url: [" https://example.com/faq "], urlName: [""] })).toEqual({
      type: "url",
      url: "https://example.com/faq",
    });
    expect(documentJsonOf("url", { url: ["https://example.com"], urlName: ["FAQ"] })).toEqual({
      type: "url",
      url: "https://example.com",
      name: "FAQ",
    });
  });

  it("puts the API's issues on the form's own fields, and the rest on its main field", () => {
    expect(onDocumentFields("text", { name: "must not be empty", form: "The document is empty." })).toEqual({
      textName: "must not be empty",
      text: "The document is empty.",
    });
    expect(onDocumentFields("url", { url: "must be an http or https URL", name: "too long" })).toEqual({
      url: "must be an http or https URL",
      urlName: "too long",
    });
    expect(onDocumentFields("file", { form: "Cannot read…", type: "must be one of: file, text, url" })).toEqual({ file: "Cannot read…" });
  });
});
