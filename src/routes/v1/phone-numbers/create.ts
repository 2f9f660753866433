import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { toPhoneNumberView } from "../../../calls/mapper";
import { addPhoneNumber } from "../../../calls/phone-numbers";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, jsonBody, jsonResponse } from "../../../lib/openapi";
import { createPhoneNumberSchema, phoneNumberSchema } from "./schema";

export const createPhoneNumberRoute = createRoute({
  method: "post",
  path: "/phone-numbers",
  tags: ["Calls"],
  operationId: "createPhoneNumber",
  summary: "Add a phone number: a caller id the workspace may call from, and optionally the agent that answers it",
  description:
    "The number must be a phone number of the platform's Twilio account or a caller id verified there (else 400 `caller_id_not_verified`), " +
    "and not another workspace's or one of the platform's shared numbers (409 `phone_number_taken`). A number belongs to one workspace.",
  security: bearerSecurity,
  request: jsonBody(createPhoneNumberSchema),
  responses: { 201: jsonResponse(phoneNumberSchema, "The phone number."), ...errorResponses(400, 409, 502, 503) },
});

export const registerCreatePhoneNumber = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(createPhoneNumberRoute, async (c) => {
    const row = await addPhoneNumber({ ctx: c.var.ctx, input: c.req.valid("json") });
    c.header("Location", `/v1/phone-numbers/${row.id}`);
    return c.json(toPhoneNumberView(row), 201);
  });
