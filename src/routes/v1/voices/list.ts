import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { and, desc, eq, inArray, isNull, not, or, type SQL, sql } from "drizzle-orm";
import type { AppEnv } from "../../../context";
import { voices } from "../../../db/schema";
import { bearerSecurity, errorResponses, jsonResponse } from "../../../lib/openapi";
import { pageOf, pageQuery } from "../../../lib/pagination";
import { synthesizableProviders } from "../../../providers/registry";
import { toVoice } from "./mapper";
import { listVoicesQuerySchema, voicePageSchema } from "./schema";
import { ownedBy, visibleTo } from "./scope";

export const listVoicesRoute = createRoute({
  method: "get",
  path: "/v1/voices",
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
    const query = c.req.valid("query");
    const page = pageQuery(query);
    const org = c.var.auth.organizationId;
    const conditions: SQL[] = [
      query.type === "system" ? isNull(voices.organizationId) : query.type === "owned" ? ownedBy(org) : visibleTo(org),
      ...page.where(voices),
    ];
    if (query.provider) conditions.push(eq(voices.provider, query.provider));
    const synthesizable = synthesizableProviders(c.var.config);
    if (query.available !== undefined) {
      const speakable = synthesizable.length ? inArray(voices.provider, synthesizable) : sql`false`;
      conditions.push(query.available ? speakable : not(speakable));
    }
    if (query.language) {
      // Tags hold only letters, digits and hyphens (validated), so they are safe in LIKE.
      const tag = query.language;
      conditions.push(
        or(eq(voices.language, tag), sql`${voices.language} like ${`${tag}-%`}`, sql`${tag} like ${voices.language} || '-%'`) as SQL,
      );
    }
    const rows = await c.var.db
      .select()
      .from(voices)
      .where(and(...conditions))
      .orderBy(desc(voices.id))
      .limit(page.limit + 1);
    return c.json(
      pageOf(rows, page.limit, (row) => toVoice(row, synthesizable)),
      200,
    );
  });
