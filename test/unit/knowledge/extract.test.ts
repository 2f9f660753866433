// A document's text by its type (src/knowledge/extract.ts): text as it is (UTF-8 only), PDF pages
// through unpdf; an encrypted, corrupt or non-PDF file is a reason, never a crash. HTML goes through
// the Workers runtime's HTMLRewriter: the integration tests read it (test/integration/knowledge).
import { describe, expect, it } from "vitest";
import { DocumentUnreadable, documentTypeOf, extractText } from "../../../src/knowledge/extract";
import { makePdf } from "../../support/pdf";

describe("documentTypeOf", () => {
  it("takes the declared type when it is one we read, else the file name's extension", () => {
    expect(documentTypeOf("application/pdf", "x.bin")).toBe("application/pdf");
    expect(documentTypeOf("text/markdown; charset=utf-8", "x")).toBe("text/markdown");
    expect(documentTypeOf("application/octet-stream", "Prices.MD")).toBe("text/markdown");
    expect(documentTypeOf(null, "faq.htm")).toBe("text/html");
    expect(documentTypeOf("", "notes.txt")).toBe("text/plain");
    expect(documentTypeOf("image/png", "scan.png")).toBeNull();
    // A type that says what the file is, and is not one we read, is not overridden by a name.
    expect(documentTypeOf("image/png", "notes.md")).toBeNull();
    expect(documentTypeOf("application/vnd.ms-excel", "prices.txt")).toBeNull();
    expect(documentTypeOf(null, "no-extension")).toBeNull();
  });
});

describe("extractText", () => {
  it("reads UTF-8 text and Markdown as they are, without a byte order mark", async () => {
    const text = "\uFEFF# Zürich office\n\nOpen 8–18 🎧";
    expect(await extractText("text/markdown", new TextEncoder().encode(text))).toBe("# Zürich office\n\nOpen 8–18 🎧");
  });

  it("refuses text that is not UTF-8, saying how to fix it", async () => {
    await expect(extractText("text/plain", new Uint8Array([0x48, 0xe9, 0x6c, 0x6c, 0x6f]))).rejects.toThrow(/not UTF-8 text/);
  });

  it("reads every page of a PDF", async () => {
    const pdf = makePdf([["Cleaning costs 80 dollars."], ["Whitening costs 250 dollars (two visits)."]]);
    const text = await extractText("application/pdf", pdf);
    expect(text).toContain("Cleaning costs 80 dollars.");
    expect(text).toContain("Whitening costs 250 dollars (two visits).");
    expect(text.indexOf("Cleaning")).toBeLessThan(text.indexOf("Whitening"));
  });

  it("says a password-protected PDF is encrypted", async () => {
    const pdf = makePdf([["Secret"]], { encrypt: true });
    await expect(extractText("application/pdf", pdf)).rejects.toThrow(/encrypted with a password/);
  });

  it("says a corrupt PDF or a file that is not a PDF cannot be read", async () => {
    const corrupt = new TextEncoder().encode("%PDF-1.4\n1 0 obj << /Type /Catalog >> this is not a pdf");
    await expect(extractText("application/pdf", corrupt)).rejects.toBeInstanceOf(DocumentUnreadable);
    await expect(extractText("application/pdf", new TextEncoder().encode("hello"))).rejects.toThrow(/not a PDF/);
  });
});
