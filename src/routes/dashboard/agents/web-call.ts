import type { OpenAPIHono } from "@hono/zod-openapi";
import { startWebCall } from "../../../calls/place";
import type { AppEnv } from "../../../context";
import { scriptAction } from "../../../dashboard/json";
import { ownAgent, versionTried } from "./shared";

/**
 * POST /dashboard/agents/:id/web-call: the agent page's Talk button. The API's web call
 * (calls/place.ts: credits, the call row, the watchdog) with `metadata.source` `dashboard` and the
 * user, at the version chosen (`agentVersion`; empty: the live one); answers the one-time socket URL for the page's script, in JSON (errors in the error body).
 */
export const registerAgentWebCallAction = (app: OpenAPIHono<AppEnv>) =>
  app.post("/:id/web-call", (c) =>
    scriptAction(c, async () => {
      const { ctx } = c.var;
      const agent = await ownAgent(c, c.req.param("id"));
      const userId = ctx.actor.type === "user" ? ctx.actor.id : null;
      const session = await startWebCall({
        ctx,
        input: { agent, agentVersion: versionTried(c), metadata: { source: "dashboard", userId } },
      });
      return c.json({ callId: session.call.id, url: session.url, expiresAt: session.expiresAt.toISOString() }, 201);
    }),
  );
