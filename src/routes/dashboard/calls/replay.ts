import type { OpenAPIHono } from "@hono/zod-openapi";
import { getCall } from "../../../calls/service";
import type { AppEnv } from "../../../context";
import { startReplayFrom } from "../agents/replays";
import { renderCallPage } from "./show";

/**
 * POST /dashboard/calls/:id/replay: replays the call's caller turns against the version chosen
 * (the agent-tests service's startReplay) and opens the replay's page; a refusal is told on the
 * call's page. Another workspace's call is the 404 page.
 */
export const registerReplayCallPage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/:id/replay", async (c) => {
    const call = await getCall({ ctx: c.var.ctx, input: { id: c.req.param("id") } });
    return startReplayFrom(c, { kind: "call", id: call.id, agentId: call.agentId }, (notice, status) =>
      renderCallPage(c, call.id, notice, status),
    );
  });
