import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { getAgent } from "../../../agents/service";
import { toCallView } from "../../../calls/mapper";
import { placePhoneCall } from "../../../calls/place";
import type { AppEnv } from "../../../context";
import { ApiError } from "../../../lib/errors";
import { bearerSecurity, errorResponses, idParam, jsonBody, jsonResponse } from "../../../lib/openapi";
import { callSchema, createCallSchema } from "./schema";

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

export const createCallRoute = createRoute({
  method: "post",
  path: "/agents/{id}/calls",
  tags: ["Calls"],
  operationId: "createCall",
  summary: "Place an outbound phone call with the agent",
  description:
    "Answers 201 with the call (status `queued`, or `failed` with `endedReason` when the carrier refused the number). " +
    "Send an `Idempotency-Key` header to make retries safe: the same key and body answer the same call (header `Idempotent-Replayed: true`) instead of dialling again.",
  security: bearerSecurity,
  request: {
    params: idParam("Agent"),
    headers: z.object({
      "idempotency-key": z
        .string()
        .optional()
        .openapi({ description: "1 to 255 printable ASCII characters.", example: "order-1042-reminder" }),
    }),
    ...jsonBody(createCallSchema),
  },
  responses: { 201: jsonResponse(callSchema, "The call."), ...errorResponses(400, 402, 404, 409, 502, 503) },
});

export const registerCreateCall = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(createCallRoute, async (c) => {
    const key = c.req.header("idempotency-key");
    if (key !== undefined && !IDEMPOTENCY_KEY.test(key))
      throw new ApiError("bad_request", "Idempotency-Key must be 1 to 255 printable ASCII characters.");
    const agent = await getAgent({ ctx: c.var.ctx, input: { id: c.req.valid("param").id } });
    const { ctx } = c.var;
    const { call, replayed } = await placePhoneCall({ ctx, input: { agent, call: c.req.valid("json"), idempotencyKey: key } });
    c.header("Location", `/v1/calls/${call.id}`);
    if (replayed) c.header("Idempotent-Replayed", "true");
    return c.json(toCallView(call, undefined, ctx.publicOrigin), 201);
  });
