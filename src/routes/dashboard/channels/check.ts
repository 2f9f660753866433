import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { adminOnly } from "../../../dashboard/routers";
import { checkChannel } from "../../../messaging/channels";
import { own, renderChannel } from "./shared";

/** POST /dashboard/channels/:id/test: the channel checked with its provider (admins), the result on its page. */
export const registerCheckChannelPage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/:id/test", adminOnly, async (c) => {
    const channel = await own(c);
    return renderChannel(c, channel, { check: await checkChannel({ ctx: c.var.ctx, input: { id: channel.id } }) });
  });
