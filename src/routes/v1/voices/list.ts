import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, jsonResponse } from "../../../lib/openapi";
import { toVoice } from "../../../voices/mapper";
import { listVoicesQuerySchema, voicePageSchema } from "../../../voices/schema";
import { listVoices } from "../../../voices/service";

export const listVoicesRoute = createRoute({
  method: "get",
  path: "/voices",
  tags: ["Voices"],
  operationId: "listVoices",
  summary: "List voices: the system catalog plus this workspace's own",
  description:
    "Newest first; owned voices come before system voices. Each says whether this deployment can synthesize it (`available`). See docs/pagination.md for the cursor contract.",
  security: bearerSecurity,
  request: { query: listVoicesQuerySchema },
  responses: { 200: jsonResponse(voicePageSchema, "A page of voices."), ...errorResponses(400) },
});

export const registerListVoices = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(listVoicesRoute, async (c) => {
    const page = await listVoices({ ctx: c.var.ctx, input: c.req.valid("query") });
    const synthesizable = c.var.ctx.providers.synthesizable();
    return c.json({ ...page, data: page.data.map((row) => toVoice(row, synthesizable)) }, 200);
  });
