import type { OpenAPIHono } from "@hono/zod-openapi";
import { toAgent } from "../../../agents/mapper";
import { rotateToolSecret, withToolSecret } from "../../../agents/service";
import type { AppEnv } from "../../../context";
import { valuesOf } from "../../../dashboard/agents/form";
import { renderForm } from "./shared";

/**
 * POST /dashboard/agents/:id/rotate-tool-secret: the API's rotation (agents/service.ts); the agent's
 * page shows the new secret once, in this response (no-store, never in a URL).
 */
export const registerRotateToolSecretPage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/:id/rotate-tool-secret", async (c) => {
    const { agent, toolSecret } = await rotateToolSecret({ ctx: c.var.ctx, input: { id: c.req.param("id") } });
    const masked = await withToolSecret({ ctx: c.var.ctx, input: agent });
    return renderForm(c, agent, valuesOf(toAgent(agent, masked.toolSecret)), {}, 200, {
      notice: "A new tool signing secret is in use.",
      newToolSecret: toolSecret ? { value: toolSecret, why: "rotated" } : undefined,
    });
  });
