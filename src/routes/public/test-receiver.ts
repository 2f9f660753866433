// The built-in test receiver's capture URL: public (it receives deliveries, and a developer may
// POST to it to try a verifier), reachable only through an endpoint's unguessable capture token.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../context";
import { errorResponses, jsonResponse, publicSecurity } from "../../lib/openapi";
import { redisFor } from "../../lib/redis";
import { CAPTURE_KEEP, receiveTestRequest } from "../../webhooks/capture";

export const testReceiverRoute = createRoute({
  method: "post",
  path: "/webhooks/test-receiver/{token}",
  tags: ["Webhooks"],
  operationId: "captureTestRequest",
  security: publicSecurity,
  summary: `Built-in test receiver: keeps the most recent ${CAPTURE_KEEP} requests of an endpoint for 24 h`,
  request: {
    params: z.object({
      token: z
        .string()
        .regex(/^[0-9A-Za-z]{32}$/)
        .openapi({ param: { name: "token", in: "path" } }),
    }),
  },
  responses: {
    200: jsonResponse(z.object({ received: z.literal(true), id: z.string() }), "Captured."),
    ...errorResponses(400, 404),
  },
});

export function registerTestReceiver(app: OpenAPIHono<AppEnv>): void {
  app.openapi(testReceiverRoute, async (c) => {
    const { token } = c.req.valid("param");
    const entry = await receiveTestRequest({
      ctx: { db: c.var.db, redis: redisFor(c.var.config) },
      input: { token, method: c.req.method, headers: c.req.raw.headers, body: () => c.req.text() },
    });
    return c.json({ received: true as const, id: entry.id }, 200);
  });
}
