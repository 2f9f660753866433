import type { OpenAPIHono } from "@hono/zod-openapi";
import { toAgent } from "../../../agents/mapper";
import { withToolSecret } from "../../../agents/service";
import type { AppEnv } from "../../../context";
import { valuesOf } from "../../../dashboard/agents/form";
import { ownAgent, renderForm } from "./shared";

/** GET /dashboard/agents/:id: the agent's form, every field. */
export const registerEditAgentPage = (app: OpenAPIHono<AppEnv>) =>
  app.get("/:id", async (c) => {
    const agent = await ownAgent(c, c.req.param("id"));
    const { toolSecret } = await withToolSecret({ ctx: c.var.ctx, input: agent });
    const saved = c.req.query("saved");
    const notice = saved === "draft" ? "Saved as a draft: not live until published." : saved ? "Agent saved." : undefined;
    return renderForm(c, agent, valuesOf(toAgent(agent, toolSecret)), {}, 200, notice);
  });
