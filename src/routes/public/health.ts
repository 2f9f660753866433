// GET /health: liveness, no credential and no I/O (the benchmark's baseline).
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../context";
import { publicSecurity } from "../../lib/openapi";

export const healthRoute = createRoute({
  method: "get",
  path: "/health",
  tags: ["Meta"],
  operationId: "health",
  security: publicSecurity,
  summary: "Liveness: no authentication, touches no data",
  responses: { 200: { description: "Alive.", content: { "application/json": { schema: z.object({ status: z.literal("ok") }) } } } },
});

export const registerHealth = (router: OpenAPIHono<AppEnv>) => router.openapi(healthRoute, (c) => c.json({ status: "ok" as const }, 200));
