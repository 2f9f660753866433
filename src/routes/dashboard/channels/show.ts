import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { own, renderChannel } from "./shared";

const NOTICES: Record<string, string> = {
  connected: "Channel connected.",
  saved: "Channel saved.",
  paused: "Channel paused: messages are acknowledged and not answered.",
  active: "Channel resumed: the agent answers again.",
};

/** GET /dashboard/channels/:id: the channel's page (everyone; its forms are the admins'). */
export const registerShowChannelPage = (app: OpenAPIHono<AppEnv>) =>
  app.get("/:id", async (c) => renderChannel(c, await own(c), { notice: NOTICES[c.req.query("notice") ?? ""] }));
