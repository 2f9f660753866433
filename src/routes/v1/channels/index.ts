// /v1/channels: messaging channels (Telegram bots, WhatsApp Business numbers) connected to agents
// (docs/messaging.md), one file per operation. Credentials are write-only: sent on create, never returned.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { registerCheckChannel } from "./check";
import { registerCreateChannel } from "./create";
import { registerDeleteChannel } from "./delete";
import { registerGetChannel } from "./get";
import { registerListChannels } from "./list";
import { registerUpdateChannel } from "./update";

export function registerChannels(app: OpenAPIHono<AppEnv>): void {
  registerListChannels(app);
  registerCreateChannel(app);
  registerGetChannel(app);
  registerUpdateChannel(app);
  registerDeleteChannel(app);
  registerCheckChannel(app);
}
