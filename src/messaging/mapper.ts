// Where the messaging_channels row (drizzle) and the API shape (zod) meet; nowhere else.
// Credentials never leave: the view has no field for them.
import type { z } from "@hono/zod-openapi";
import type { MessagingChannel } from "../db/schema";
import { webhookPath } from "./channels";
import type { channelSchema } from "./schema";

export type ChannelView = z.infer<typeof channelSchema>;

export const toChannelView = (row: MessagingChannel, origin: string): ChannelView => ({
  id: row.id,
  type: row.type,
  name: row.name,
  agentId: row.agentId,
  agentVersion: row.agentVersion,
  status: row.status,
  info: row.info,
  idleTimeoutSeconds: row.idleTimeoutSeconds,
  webhookUrl: `${origin}${webhookPath(row)}`,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});
