/** @jsxImportSource hono/jsx */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { toCallView } from "../../../calls/mapper";
import { getCallWithUsage } from "../../../calls/service";
import { ACTIVE_STATUSES } from "../../../calls/states";
import type { AppEnv } from "../../../context";
import { type CallNotice, CallPage } from "../../../dashboard/calls/detail";
import { shellOf, when } from "../../../dashboard/ui";
import { deliveriesOf } from "../../../webhooks/log";
import { replayChoices } from "../agents/replays";

/** The flash a Hang up left (POST /dashboard/calls/:id/hang-up redirects here with `?notice=`). */
const NOTICES: Record<string, CallNotice> = {
  ending: { kind: "ok", text: "Hanging up: the call ends in a moment. Refresh to see how it ended." },
  ended: { kind: "ok", text: "Call ended." },
  canceled: { kind: "ok", text: "Call canceled." },
};

/** The call's page, its transcript, cost, webhook deliveries and replay form (once it has ended), with a flash. */
export async function renderCallPage(c: Context<AppEnv>, id: string, notice?: CallNotice, status: ContentfulStatusCode = 200) {
  const { call, usage } = await getCallWithUsage({ ctx: c.var.ctx, input: { id } });
  const live = ACTIVE_STATUSES.includes(call.status);
  const [shell, deliveries, replay] = await Promise.all([
    shellOf(c, `Call ${when(call.createdAt)}`, "calls"),
    deliveriesOf({ ctx: c.var.ctx, input: { subjectId: call.id } }),
    live ? null : replayChoices(c, { agentId: call.agentId, agentVersion: call.agentVersion, transcript: call.transcript }),
  ]);
  return c.html(
    <CallPage
      shell={shell}
      call={call}
      v={toCallView(call, usage, "")}
      live={live}
      deliveries={deliveries}
      notice={notice}
      replay={replay}
    />,
    status,
  );
}

/** GET /dashboard/calls/:id: the call's page, with the flash its last action left. */
export const registerShowCallPage = (app: OpenAPIHono<AppEnv>) =>
  app.get("/:id", (c) => renderCallPage(c, c.req.param("id"), NOTICES[c.req.query("notice") ?? ""]));
