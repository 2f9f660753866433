import type { OpenAPIHono } from "@hono/zod-openapi";
import { toAgent } from "../../../agents/mapper";
import { withToolSecret } from "../../../agents/service";
import { agentAtVersion } from "../../../agents/versions";
import type { AppEnv } from "../../../context";
import { valuesOf } from "../../../dashboard/agents/form";
import { toolFormOf } from "../../../dashboard/agents/tool-form";
import type { FunctionTool } from "../../../db/schema";
import { ownAgent, renderForm } from "./shared";

/**
 * GET /dashboard/agents/:id: the agent's form, every field, as it is being edited: the newest draft
 * when there is one (what "Save as draft" builds on and the Try panel picks), else the live version;
 * ?tool=<name> opens that tool of the version shown in the tool builder.
 */
export const registerEditAgentPage = (app: OpenAPIHono<AppEnv>) =>
  app.get("/:id", async (c) => {
    const live = await ownAgent(c, c.req.param("id"));
    const agent =
      live.latestVersion > live.liveVersion
        ? await agentAtVersion({ ctx: c.var.ctx, input: { agentId: live.id, version: live.latestVersion } })
        : live;
    const { toolSecret } = await withToolSecret({ ctx: c.var.ctx, input: agent });
    const saved = c.req.query("saved");
    const wanted = c.req.query("tool");
    const tool = wanted ? (agent.tools.find((t) => t.type === "function" && t.name === wanted) as FunctionTool | undefined) : undefined;
    const notice =
      wanted && !tool
        ? `The agent has no tool named “${wanted}”.`
        : saved === "draft"
          ? "Saved as a draft: not live until published."
          : saved
            ? "Agent saved."
            : undefined;
    return renderForm(c, agent, valuesOf(toAgent(agent, toolSecret)), {}, 200, {
      notice,
      tool: tool ? { values: toolFormOf(tool), errors: {} } : undefined,
    });
  });
