// What the knowledge base operations share: their tag, their parameters.
import { z } from "@hono/zod-openapi";

export const TAG = ["Knowledge bases"];

export const documentParams = z.object({
  id: z
    .uuid({ message: "Knowledge base id must be a UUID" })
    .openapi({ param: { name: "id", in: "path" }, example: "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77" }),
  documentId: z
    .uuid({ message: "Document id must be a UUID" })
    .openapi({ param: { name: "documentId", in: "path" }, example: "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b78" }),
});
