/** @jsxImportSource hono/jsx */
import type { OpenAPIHono } from "@hono/zod-openapi";
import { listAgentNames } from "../../../agents/service";
import type { AppEnv } from "../../../context";
import { ChannelList } from "../../../dashboard/channels/list";
import { shellOf } from "../../../dashboard/ui";
import { pageQuery } from "../../../db/pagination";
import { listChannels } from "../../../messaging/channels";

const LIST_LIMIT = 50;

/** GET /dashboard/channels: the workspace's channels, paged (everyone). */
export const registerListChannelsPage = (app: OpenAPIHono<AppEnv>) =>
  app.get("/", async (c) => {
    const shell = await shellOf(c, "Channels", "channels");
    const org = c.var.auth.organizationId;
    const [page, agents] = await Promise.all([
      listChannels({ ctx: c.var.ctx, input: pageQuery({ limit: LIST_LIMIT, cursor: c.req.query("cursor") }) }),
      listAgentNames({ ctx: { db: c.var.db, organizationId: org } }),
    ]);
    const agentNames = new Map(agents.map((a) => [a.id, a.name]));
    const notice = c.req.query("notice") === "removed" ? "Channel removed." : undefined;
    return c.html(<ChannelList shell={shell} channels={page.data} agentNames={agentNames} next={page.nextCursor} notice={notice} />);
  });
