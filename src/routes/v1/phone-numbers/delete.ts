import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { removePhoneNumber } from "../../../calls/phone-numbers";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, idParam } from "../../../lib/openapi";

export const deletePhoneNumberRoute = createRoute({
  method: "delete",
  path: "/phone-numbers/{id}",
  tags: ["Calls"],
  operationId: "deletePhoneNumber",
  summary: "Remove a caller id",
  security: bearerSecurity,
  request: { params: idParam("PhoneNumber") },
  responses: { 204: { description: "Removed." }, ...errorResponses(400, 404) },
});

export const registerDeletePhoneNumber = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(deletePhoneNumberRoute, async (c) => {
    await removePhoneNumber({ ctx: c.var.ctx, input: { id: c.req.valid("param").id } });
    return c.body(null, 204);
  });
