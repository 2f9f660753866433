import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { BASE } from "../../../dashboard/channels/connect";
import { adminOnly } from "../../../dashboard/routers";
import { deleteChannel } from "../../../messaging/channels";
import { own } from "./shared";

/** POST /dashboard/channels/:id/remove (admins). */
export const registerRemoveChannelPage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/:id/remove", adminOnly, async (c) => {
    const channel = await own(c);
    await deleteChannel({ ctx: c.var.ctx, input: { id: channel.id } });
    return c.redirect(`${BASE}?notice=removed`, 303);
  });
