/** @jsxImportSource hono/jsx */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { RemovePage } from "../../../dashboard/channels/detail";
import { adminOnly } from "../../../dashboard/routers";
import { shellOf } from "../../../dashboard/ui";
import { own } from "./shared";

/** GET /dashboard/channels/:id/remove: what removing ends, and the button (admins). */
export const registerConfirmRemoveChannelPage = (app: OpenAPIHono<AppEnv>) =>
  app.get("/:id/remove", adminOnly, async (c) => {
    const channel = await own(c);
    return c.html(<RemovePage shell={await shellOf(c, `Remove ${channel.name}`, "channels")} channel={channel} />);
  });
