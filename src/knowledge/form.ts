// A document upload's multipart form (field `file`, optional `name`), read into what addDocumentFrom
// takes; the API and the dashboard read it the same way. What is not such a form is a 400 saying so.
import { ApiError, invalidInput } from "../lib/errors";
import type { AddDocumentInput } from "./add";

export async function readDocumentForm(request: Request): Promise<AddDocumentInput> {
  let form: FormData;
  try {
    form = await request.formData();
  } catch {
    throw new ApiError(
      "validation_failed",
      "The multipart body is malformed: send multipart/form-data with the document in the field `file`.",
    );
  }
  const file = form.get("file") as unknown as File | string | null;
  if (file === null || typeof file === "string") {
    throw invalidInput("form", [
      { path: ["file"], message: "send the document as a file in the field `file` (text, Markdown, HTML or PDF)" },
    ]);
  }
  const name = form.get("name");
  if (name !== null && typeof name !== "string") throw invalidInput("form", [{ path: ["name"], message: "must be text" }]);
  const trimmed = typeof name === "string" ? name.trim() : "";
  if (trimmed.length > 200) throw invalidInput("form", [{ path: ["name"], message: "must be at most 200 characters" }]);
  return {
    type: "file",
    fileName: file.name || "document",
    contentType: file.type || null,
    bytes: new Uint8Array(await file.arrayBuffer()),
    ...(trimmed ? { name: trimmed } : {}),
  };
}
