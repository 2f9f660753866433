import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { toPhoneNumberView } from "../../../calls/mapper";
import { addPhoneNumber, listPhoneNumbers, removePhoneNumber, updatePhoneNumber } from "../../../calls/phone-numbers";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, idParam, jsonBody, jsonResponse } from "../../../lib/openapi";
import { pageQuerySchema } from "../../../lib/pagination";
import { createPhoneNumberSchema, phoneNumberPageSchema, phoneNumberSchema, updatePhoneNumberSchema } from "./schema";

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

export function registerPhoneNumbers(app: OpenAPIHono<AppEnv>): void {
  app.openapi(listPhoneNumbersRoute, async (c) => {
    const page = await listPhoneNumbers({ db: c.var.db, organizationId: c.var.auth.organizationId }, c.req.valid("query"));
    return c.json({ ...page, data: page.data.map(toPhoneNumberView) }, 200);
  });

  app.openapi(createPhoneNumberRoute, async (c) => {
    const input = c.req.valid("json");
    const ctx = { db: c.var.db, config: c.var.config, organizationId: c.var.auth.organizationId, origin: c.var.services.publicOrigin };
    const row = await addPhoneNumber(ctx, input);
    c.header("Location", `/v1/phone-numbers/${row.id}`);
    return c.json(toPhoneNumberView(row), 201);
  });

  app.openapi(updatePhoneNumberRoute, async (c) => {
    const ctx = { db: c.var.db, config: c.var.config, organizationId: c.var.auth.organizationId, origin: c.var.services.publicOrigin };
    const row = await updatePhoneNumber(ctx, c.req.valid("param").id, c.req.valid("json"));
    return c.json(toPhoneNumberView(row), 200);
  });

  app.openapi(deletePhoneNumberRoute, async (c) => {
    await removePhoneNumber({ db: c.var.db, organizationId: c.var.auth.organizationId }, c.req.valid("param").id);
    return c.body(null, 204);
  });
}
