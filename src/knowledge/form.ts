// A document upload's multipart form (field `file`, optional `name`), read into what addDocumentFrom
// takes; the API and the dashboard read it the same way. A body of another type is a 415, a form
// that is not such a form a 400 saying so; `name` is checked as JSON's `name` is.
import { readMultipart } from "../lib/body";
import { ApiError, invalidInput } from "../lib/errors";
import type { AddDocumentInput } from "./add";
import { documentNameSchema } from "./schema";

const mediaTypeOf = (request: Request) => (request.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase() ?? "";

export async function readDocumentForm(request: Request): Promise<AddDocumentInput> {
  const type = mediaTypeOf(request);
  if (type !== "multipart/form-data") {
    throw new ApiError(
      "unsupported_media_type",
      `Send a file as multipart/form-data, or text or a URL as application/json (got ${type || "no Content-Type"}).`,
    );
  }
  const form = await readMultipart(request, "the document in the field `file`");
  const file = form.get("file") as unknown as File | string | null;
  if (file === null || typeof file === "string") {
    throw invalidInput("form", [
      { path: ["file"], message: "send the document as a file in the field `file` (text, Markdown, HTML or PDF)" },
    ]);
  }
  const name = form.get("name");
  if (name !== null && typeof name !== "string") throw invalidInput("form", [{ path: ["name"], message: "must be text" }]);
  let checked: string | undefined;
  if (name !== null && name.trim() !== "") {
    const parsed = documentNameSchema.safeParse(name);
    if (!parsed.success)
      throw invalidInput(
        "form",
        parsed.error.issues.map((i) => ({ path: ["name", ...i.path], message: i.message })),
      );
    checked = parsed.data;
  }
  return {
    type: "file",
    fileName: file.name || "document",
    contentType: file.type || null,
    bytes: new Uint8Array(await file.arrayBuffer()),
    ...(checked ? { name: checked } : {}),
  };
}
