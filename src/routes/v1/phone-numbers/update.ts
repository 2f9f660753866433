import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { toPhoneNumberView } from "../../../calls/mapper";
import { updatePhoneNumber } from "../../../calls/phone-numbers";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, idParam, jsonBody, jsonResponse } from "../../../lib/openapi";
import { phoneNumberSchema, updatePhoneNumberSchema } from "./schema";

export const updatePhoneNumberRoute = createRoute({
  method: "patch",
  path: "/phone-numbers/{id}",
  tags: ["Calls"],
  operationId: "updatePhoneNumber",
  summary: "Change a number's label, or the agent that answers its incoming calls",
  description:
    "`agentId`: one of the workspace's agents (another workspace's answers like a missing one: 400), or null to stop answering. " +
    "Assigning an agent points the number's incoming calls at the platform in Twilio; a caller id that is only verified there cannot receive calls (400).",
  security: bearerSecurity,
  request: { params: idParam("PhoneNumber"), ...jsonBody(updatePhoneNumberSchema) },
  responses: { 200: jsonResponse(phoneNumberSchema, "The phone number."), ...errorResponses(400, 404, 413, 415, 502, 503) },
});

export const registerUpdatePhoneNumber = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(updatePhoneNumberRoute, async (c) => {
    const row = await updatePhoneNumber({ ctx: c.var.ctx, input: { id: c.req.valid("param").id, patch: c.req.valid("json") } });
    return c.json(toPhoneNumberView(row), 200);
  });
