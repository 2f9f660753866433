// Shared pieces of the OpenAPI document, generated from the same zod schemas the routes
// validate with (@hono/zod-openapi).
import { z } from "@hono/zod-openapi";
import { ERRORS, reasonPhrase } from "./errors";

export const errorSchema = z
  .object({
    statusCode: z.number().int().openapi({ example: 401 }),
    error: z.string().openapi({ example: "Unauthorized" }),
    code: z.enum(Object.keys(ERRORS) as [keyof typeof ERRORS, ...Array<keyof typeof ERRORS>]).openapi({ example: "unauthorized" }),
    message: z.string().openapi({ example: "The API key is invalid or has been revoked." }),
    requestId: z.string().openapi({ example: "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77" }),
    issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  })
  .openapi("Error");

const json = <T extends z.ZodType>(schema: T) => ({ "application/json": { schema } });

/** The error responses a route can give, documented with the one body. */
export function errorResponses(...statuses: number[]) {
  const all = [...new Set([401, 429, 500, ...statuses])].sort();
  return Object.fromEntries(all.map((s) => [s, { description: reasonPhrase(s), content: json(errorSchema) }]));
}

export const jsonBody = <T extends z.ZodType>(schema: T, description?: string) => ({
  body: { required: true, description, content: json(schema) },
});

export const jsonResponse = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: json(schema) });

export const idParam = (name: string) =>
  z.object({
    id: z
      .uuid({ message: `${name} id must be a UUID` })
      .openapi({ param: { name: "id", in: "path" }, example: "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77" }),
  });

export const bearerSecurity = [{ apiKey: [] }];

/**
 * Operations that take no credential of ours (`security: []` in the document): what guards them
 * instead (a provider's signature, a capture token in the path, the widget's origin) is in their
 * description.
 */
export const publicSecurity: Array<Record<string, string[]>> = [];
