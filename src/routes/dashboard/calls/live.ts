import type { OpenAPIHono } from "@hono/zod-openapi";
import { getCall } from "../../../calls/service";
import { ACTIVE_STATUSES } from "../../../calls/states";
import { transcriptOf } from "../../../calls/views";
import type { AppEnv } from "../../../context";
import { scriptAction } from "../../../dashboard/json";

/**
 * GET /dashboard/calls/:id/live: what a call's page follows while the call runs (its script polls
 * every 2 s): the status, whether it is still live, and the transcript so far (role, text, start).
 * JSON; another workspace's call is the error body's 404.
 */
export const registerLiveCallPage = (app: OpenAPIHono<AppEnv>) =>
  app.get("/:id/live", (c) =>
    scriptAction(c, async () => {
      const call = await getCall({ ctx: c.var.ctx, input: { id: c.req.param("id") } });
      const turns = transcriptOf(call.transcript).turns.map(({ role, text, startMs }) => ({ role, text, startMs }));
      return c.json({ status: call.status, live: ACTIVE_STATUSES.includes(call.status), turns });
    }),
  );
