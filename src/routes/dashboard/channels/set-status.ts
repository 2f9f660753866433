import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { BASE } from "../../../dashboard/channels/connect";
import { one, validate } from "../../../dashboard/forms";
import { adminOnly } from "../../../dashboard/routers";
import { ApiError } from "../../../lib/errors";
import { updateChannel } from "../../../messaging/channels";
import { updateChannelSchema } from "../../../messaging/schema";
import { own } from "./shared";

/** POST /dashboard/channels/:id/status: pause or resume (admins). */
export const registerSetChannelStatusPage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/:id/status", adminOnly, async (c) => {
    const channel = await own(c);
    const checked = validate(updateChannelSchema, { status: one(c.var.form, "status") });
    if (!checked.ok) throw new ApiError("validation_failed", "status: choose active or paused");
    await updateChannel({ ctx: c.var.ctx, input: { ...checked.data, id: channel.id } });
    return c.redirect(`${BASE}/${channel.id}?notice=${checked.data.status}`, 303);
  });
