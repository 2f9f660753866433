import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { toPhoneNumberView } from "../../../calls/mapper";
import { listPhoneNumbers } from "../../../calls/phone-numbers";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, jsonResponse } from "../../../lib/openapi";
import { pageQuerySchema } from "../../../lib/pagination";
import { phoneNumberPageSchema } from "./schema";

export const listPhoneNumbersRoute = createRoute({
  method: "get",
  path: "/phone-numbers",
  tags: ["Calls"],
  operationId: "listPhoneNumbers",
  summary: "The workspace's caller ids",
  security: bearerSecurity,
  request: { query: pageQuerySchema },
  responses: { 200: jsonResponse(phoneNumberPageSchema, "A page of phone numbers."), ...errorResponses(400) },
});

export const registerListPhoneNumbers = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(listPhoneNumbersRoute, async (c) => {
    const page = await listPhoneNumbers({ ctx: c.var.ctx, input: c.req.valid("query") });
    return c.json({ ...page, data: page.data.map(toPhoneNumberView) }, 200);
  });
