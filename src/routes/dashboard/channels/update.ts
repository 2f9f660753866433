import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { BASE } from "../../../dashboard/channels/connect";
import { typed, updateInputOf } from "../../../dashboard/channels/form";
import { apiErrorFields, validate } from "../../../dashboard/forms";
import { adminOnly } from "../../../dashboard/routers";
import { updateChannel } from "../../../messaging/channels";
import { updateChannelSchema } from "../../../messaging/schema";
import { own, renderChannel } from "./shared";

/** POST /dashboard/channels/:id: the settings form sent (admins): name, agent. */
export const registerUpdateChannelPage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/:id", adminOnly, async (c) => {
    const channel = await own(c);
    const checked = validate(updateChannelSchema, updateInputOf(c.var.form));
    if (!checked.ok) return renderChannel(c, channel, { values: typed(c.var.form), errors: checked.errors }, 400);
    try {
      await updateChannel({ ctx: c.var.ctx, input: { ...checked.data, id: channel.id } });
      return c.redirect(`${BASE}/${channel.id}?notice=saved`, 303);
    } catch (err) {
      return renderChannel(c, channel, { values: typed(c.var.form), errors: apiErrorFields(err) }, 400);
    }
  });
