/** @jsxImportSource hono/jsx */
import type { OpenAPIHono } from "@hono/zod-openapi";
import { listAgents } from "../../../agents/service";
import type { AppEnv } from "../../../context";
import { AgentList } from "../../../dashboard/agents/views";
import { shellOf } from "../../../dashboard/ui";

/** GET /dashboard/agents: every agent of the workspace. */
export const registerListAgentsPage = (app: OpenAPIHono<AppEnv>) =>
  app.get("/", async (c) => {
    const shell = await shellOf(c, "Agents", "agents");
    const { data: agents } = await listAgents({ ctx: c.var.ctx, input: { limit: 200 } });
    return c.html(<AgentList shell={shell} agents={agents} notice={c.req.query("deleted") ? "Agent deleted." : undefined} />);
  });
