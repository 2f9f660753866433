// A document's text, by its type (docs/knowledge.md, "Documents"): plain text and Markdown as they
// are; HTML through the Workers runtime's HTMLRewriter, headings kept as Markdown `#` lines and
// scripts, styles and navigation left out; PDF through unpdf (PDF.js built for serverless
// runtimes), a page at a time. What cannot be read is a DocumentUnreadable with a reason the user
// can act on, never a crash.

export const DOCUMENT_TYPES = {
  "text/plain": [".txt", ".text"],
  "text/markdown": [".md", ".markdown"],
  "text/html": [".html", ".htm"],
  "application/pdf": [".pdf"],
} as const;

export type DocumentType = keyof typeof DOCUMENT_TYPES;

export class DocumentUnreadable extends Error {}

/** Media types that say nothing of the content: the file name's extension decides. */
const GENERIC = new Set(["", "application/octet-stream", "binary/octet-stream", "application/x-unknown", "application/unknown"]);

/**
 * The type a document is read as: its declared media type when we read that; when the type is
 * generic or missing (browsers send `application/octet-stream` for .md), its file name's
 * extension; else (an image, a spreadsheet…) null.
 */
export function documentTypeOf(declared: string | null | undefined, fileName: string): DocumentType | null {
  const media = (declared ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  if (media in DOCUMENT_TYPES) return media as DocumentType;
  if (media === "text/x-markdown" || media === "application/xhtml+xml") return media === "text/x-markdown" ? "text/markdown" : "text/html";
  if (!GENERIC.has(media)) return null;
  const lower = fileName.toLowerCase();
  for (const [type, extensions] of Object.entries(DOCUMENT_TYPES)) {
    if ((extensions as readonly string[]).some((e) => lower.endsWith(e))) return type as DocumentType;
  }
  return null;
}

export const SUPPORTED_DOCUMENTS = "text (.txt), Markdown (.md), HTML (.html) or PDF (.pdf)";

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

function decodeText(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes).replace(/^\uFEFF/, "");
  } catch {
    throw new DocumentUnreadable("The file is not UTF-8 text. Save it as UTF-8 and upload it again.");
  }
}

/** The document's text with Markdown-style headings, for chunkText. */
export async function extractText(type: DocumentType, bytes: Uint8Array): Promise<string> {
  switch (type) {
    case "text/plain":
    case "text/markdown":
      return decodeText(bytes);
    case "text/html":
      return htmlToText(decodeText(bytes));
    case "application/pdf":
      return pdfToText(bytes);
  }
}

/** Elements whose text is not the page's content. */
const SKIPPED = ["script", "style", "noscript", "template", "svg", "nav", "footer", "head", "iframe", "form"];
/** Elements that end a paragraph. */
const BLOCKS = ["p", "div", "section", "article", "main", "li", "tr", "br", "blockquote", "pre", "dd", "dt", "table", "ul", "ol", "hr"];

/** HTML to text with `#` headings, through HTMLRewriter (streaming: never a DOM of the page). */
export async function htmlToText(html: string): Promise<string> {
  const parts: string[] = [];
  let skipping = 0;
  const rewriter = new HTMLRewriter()
    .on(SKIPPED.join(","), {
      element(el) {
        skipping++;
        try {
          el.onEndTag(() => {
            skipping--;
          });
        } catch {
          skipping--; // written self-closing (<svg/>): it has no end tag and nothing inside
        }
      },
    })
    .on("h1,h2,h3,h4,h5,h6", {
      element(el) {
        if (skipping) return;
        parts.push(`\n\n${"#".repeat(Number(el.tagName.slice(1)))} `);
        el.onEndTag(() => {
          if (!skipping) parts.push("\n\n");
        });
      },
    })
    .on(BLOCKS.join(","), {
      element(el) {
        if (skipping) return;
        parts.push("\n\n");
        if (el.tagName === "br" || el.tagName === "hr") return;
        try {
          el.onEndTag(() => {
            if (!skipping) parts.push("\n\n");
          });
        } catch {
          // written self-closing: the break before it is enough
        }
      },
    })
    .on("*", {
      text(t) {
        if (!skipping && t.text) parts.push(t.text);
      },
    });
  await rewriter.transform(new Response(html, { headers: { "content-type": "text/html; charset=utf-8" } })).text();
  return decodeEntities(parts.join(""))
    .replace(/[ \t\f\v\u00a0]+/g, " ")
    .replace(/ *\n */g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

const ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
  mdash: "—",
  ndash: "–",
  hellip: "…",
};

/** HTMLRewriter hands text as written: its character references are decoded here. */
function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, ref: string) => {
    if (ref[0] === "#") {
      const code = ref[1] === "x" || ref[1] === "X" ? Number.parseInt(ref.slice(2), 16) : Number.parseInt(ref.slice(1), 10);
      return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[ref.toLowerCase()] ?? whole;
  });
}

/** A PDF's text, a page at a time (pages become sections only where the text has headings). */
export async function pdfToText(bytes: Uint8Array): Promise<string> {
  if (!startsWith(bytes, "%PDF-")) throw new DocumentUnreadable("The file is not a PDF (it does not start with %PDF-).");
  const { extractText: extractPdf, getDocumentProxy } = await import("unpdf");
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    // A copy: PDF.js takes the buffer over.
    pdf = await getDocumentProxy(new Uint8Array(bytes));
  } catch (err) {
    const name = (err as Error)?.name ?? "";
    if (name === "PasswordException") throw new DocumentUnreadable("The PDF is encrypted with a password. Upload a copy without one.");
    throw new DocumentUnreadable(
      `The PDF cannot be read (${(err as Error)?.message ?? "corrupt file"}). Export it again and upload the new file.`,
    );
  }
  try {
    const { text } = await extractPdf(pdf, { mergePages: false });
    return text.map((page) => page.replace(/[ \t]+\n/g, "\n")).join("\n\n");
  } catch (err) {
    throw new DocumentUnreadable(`The PDF's text cannot be read (${(err as Error)?.message ?? "corrupt file"}).`);
  } finally {
    await pdf.loadingTask.destroy().catch(() => undefined);
  }
}

function startsWith(bytes: Uint8Array, magic: string): boolean {
  // A PDF may have a few bytes of junk before its header (PDF.js tolerates up to 1,024).
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, 1024));
  return head.includes(magic);
}
