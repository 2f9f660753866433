import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { and, desc, eq, ilike, type SQL } from "drizzle-orm";
import type { AppEnv } from "../../../context";
import { agents } from "../../../db/schema";
import { bearerSecurity, errorResponses, jsonResponse } from "../../../lib/openapi";
import { pageOf, pageQuery } from "../../../lib/pagination";
import { toAgent } from "./mapper";
import { agentPageSchema, listAgentsQuerySchema } from "./schema";

export const listAgentsRoute = createRoute({
  method: "get",
  path: "/v1/agents",
  tags: ["Agents"],
  operationId: "listAgents",
  summary: "List the workspace's agents",
  description: "Newest first. See docs/pagination.md for the cursor contract.",
  security: bearerSecurity,
  request: { query: listAgentsQuerySchema },
  responses: { 200: jsonResponse(agentPageSchema, "A page of agents."), ...errorResponses(400) },
});

/** LIKE treats % _ and \ specially; a name filter matches them literally. */
const escapeLike = (s: string) => s.replace(/[\\%_]/g, (ch) => `\\${ch}`);

export const registerListAgents = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(listAgentsRoute, async (c) => {
    const query = c.req.valid("query");
    const page = pageQuery(query);
    const conditions: SQL[] = [eq(agents.organizationId, c.var.auth.organizationId), ...page.where(agents)];
    if (query.name) conditions.push(ilike(agents.name, `%${escapeLike(query.name)}%`));
    if (query.voiceId) conditions.push(eq(agents.voiceId, query.voiceId));
    const rows = await c.var.db
      .select()
      .from(agents)
      .where(and(...conditions))
      .orderBy(desc(agents.id))
      .limit(page.limit + 1);
    return c.json(pageOf(rows, page.limit, toAgent), 200);
  });
