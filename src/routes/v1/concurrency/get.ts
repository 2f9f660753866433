// GET /v1/concurrency (Retell's get-concurrency): the workspace's calls in flight and its limit. A
// single call over the limit is refused with 429 calls_in_flight_limit; a campaign waits its turn.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { errorResponses, jsonResponse } from "../../../lib/openapi";
import { getConcurrency } from "../../../organizations/service";

export const concurrencySchema = z
  .object({
    callsInFlight: z
      .number()
      .int()
      .openapi({ description: "Calls queued, ringing or in progress now: phone (both directions) and web.", example: 3 }),
    maxCallsInFlight: z.number().int().openapi({ description: "The most the workspace may have at once.", example: 20 }),
  })
  .openapi("Concurrency");

export const registerGetConcurrency = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(
    createRoute({
      method: "get",
      path: "/concurrency",
      readsAlongsideTheKeyCheck: true,
      tags: ["Calls"],
      operationId: "getConcurrency",
      summary: "Calls in flight and the workspace's limit",
      security: [{ apiKey: [] }],
      responses: { 200: jsonResponse(concurrencySchema, "The workspace's calls in flight."), ...errorResponses() },
    }),
    async (c) => c.json(await getConcurrency({ ctx: c.var.ctx }), 200),
  );
