import type { OpenAPIHono } from "@hono/zod-openapi";
import { deleteAgent } from "../../../agents/service";
import type { AppEnv } from "../../../context";

/** POST /dashboard/agents/:id/delete. */
export const registerDeleteAgentPage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/:id/delete", async (c) => {
    await deleteAgent({ ctx: c.var.ctx, input: { id: c.req.param("id") } });
    return c.redirect("/dashboard/agents?deleted=1", 303);
  });
